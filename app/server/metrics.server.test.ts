import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { metricsAccess } from './metrics.server.ts'

const TOKEN = 'a-metrics-token-of-at-least-32-characters'

function rule(allow: string[], token: string | undefined = TOKEN) {
  // The address comes from the request object here; the web passes its trusted-proxy reader.
  return metricsAccess(
    { metrics: { allow, token, workerPort: undefined }, trustProxyHeaders: false },
    (req) => ({
      ip: (req as IncomingMessage & { ip: string }).ip,
      isHttps: false,
    }),
  )
}

function request(ip: string, authorization?: string): IncomingMessage {
  return { ip, headers: authorization === undefined ? {} : { authorization } } as unknown as IncomingMessage
}

describe('the /metrics access rule', () => {
  it('opens to listed addresses and ranges, IPv4-mapped IPv6 included', () => {
    const access = rule(['127.0.0.1', '::1', '10.1.0.0/16', 'fd00::/8'])
    for (const ip of ['127.0.0.1', '::1', '10.1.200.3', '::ffff:10.1.0.9', '::FFFF:127.0.0.1', 'fd12::7']) {
      expect(access(request(ip)), ip).toBeNull()
    }
    for (const ip of ['127.0.0.2', '10.2.0.1', '::ffff:10.2.0.1', 'fe80::1', '', 'not-an-ip']) {
      expect(access(request(ip))?.code, ip).toBe('forbidden')
    }
  })

  it('opens to the token from anywhere; a wrong or malformed one is 401 with WWW-Authenticate', () => {
    const access = rule([])
    expect(access(request('198.51.100.7', `Bearer ${TOKEN}`))).toBeNull()
    for (const header of [
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}${TOKEN}`,
      'Bearer',
      '',
      `Token ${TOKEN}`,
    ]) {
      const refused = access(request('198.51.100.7', header))
      expect(refused?.code, header).toBe('unauthorized')
      expect(refused?.headers?.['WWW-Authenticate']).toBe('Bearer')
      expect(refused?.message).not.toContain(TOKEN.slice(0, 8))
    }
  })

  it('without a configured token, no bearer opens it', () => {
    const access = rule([], undefined)
    expect(access(request('198.51.100.7', 'Bearer anything-at-all'))?.code).toBe('unauthorized')
    expect(access(request('198.51.100.7'))?.code).toBe('forbidden')
  })
})
