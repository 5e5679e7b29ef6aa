import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { describe, expect, it } from 'vitest'
import { clientAddressReader } from './client-address.server.ts'

/** What Express says of a request with `headers` (its `req.ip`, `req.secure`) and what the reader says. */
async function bothReadings(trustProxyHeaders: boolean, headers: Record<string, string | string[]>) {
  const reader = clientAddressReader(trustProxyHeaders)
  const app = express()
  app.set('trust proxy', trustProxyHeaders ? 1 : false)
  app.use((req, res) => {
    res.json({ express: { ip: req.ip, isHttps: req.secure }, ours: reader(req) })
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  try {
    return await new Promise<{ express: unknown; ours: unknown }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', headers },
        (res) => {
          let text = ''
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
          res.on('end', () => resolve(JSON.parse(text) as { express: unknown; ours: unknown }))
        },
      )
      req.on('error', reject)
      req.end()
    })
  } finally {
    server.close()
  }
}

describe('clientAddressReader', () => {
  const cases: Record<string, string | string[]>[] = [
    {},
    { 'x-forwarded-for': '203.0.113.7' },
    { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' },
    { 'x-forwarded-for': ['198.51.100.1', '203.0.113.7, 192.0.2.9'] },
    { 'x-forwarded-for': '  2001:db8::1 ' },
    { 'x-forwarded-proto': 'https' },
    { 'x-forwarded-proto': 'https, http' },
    { 'x-forwarded-proto': 'http' },
    { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': ' https ' },
    { 'x-forwarded-for': 'not an address', 'x-forwarded-proto': '' },
  ]

  for (const trustProxyHeaders of [true, false]) {
    it(`reads the client as Express does with trust proxy ${trustProxyHeaders ? '= 1' : 'off'}`, async () => {
      for (const headers of cases) {
        const { express: expected, ours } = await bothReadings(trustProxyHeaders, headers)
        expect(ours, JSON.stringify(headers)).toEqual(expected)
      }
    })
  }

  it('trusts the one hop in front: the last X-Forwarded-For entry, never one a client wrote before it', async () => {
    const { ours } = await bothReadings(true, {
      'x-forwarded-for': '10.0.0.1, 203.0.113.7',
      'x-forwarded-proto': 'https',
    })
    expect(ours).toEqual({ ip: '203.0.113.7', isHttps: true })
    expect((await bothReadings(false, { 'x-forwarded-for': '203.0.113.7' })).ours).toEqual({
      ip: '127.0.0.1',
      isHttps: false,
    })
  })
})
