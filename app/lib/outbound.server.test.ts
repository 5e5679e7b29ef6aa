import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { boundedJson, boundedStream, OutboundError } from './outbound.server.ts'

let server: http.Server
let base = ''

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'file:///etc/passwd' })
      return res.end()
    }
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 'a')
      let sent = 0
      const pump = () => {
        while (sent < 100 && res.write(chunk)) sent++
        if (sent < 100) res.once('drain', pump)
        else res.end()
      }
      return pump()
    }
    if (req.url === '/slow') return setTimeout(() => res.end('{}'), 2000)
    if (req.url === '/echo') {
      let raw = ''
      req.on('data', (c: Buffer) => (raw += c.toString()))
      req.on('end', () => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
        res.end(
          JSON.stringify({
            body: JSON.parse(raw),
            tenant: req.headers['x-tenant'],
            port: req.socket.remotePort,
          }),
        )
      })
      return
    }
    if (req.url === '/text') return res.end('not json')
    if (req.url === '/cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('{"partial":')
      return setTimeout(() => res.destroy(), 20)
    }
    if (req.url === '/trickle') {
      // Answers at once, then a byte every 50 ms for 2 s: only the total limit can stop it.
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      let sent = 0
      const drip = setInterval(() => {
        if (++sent > 40 || res.destroyed) return void (clearInterval(drip), res.end())
        res.write('.')
      }, 50)
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"ok":true}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const request = { method: 'GET' as const, headers: {}, timeoutMs: 500, maxBytes: 1024 * 1024 }

describe('boundedJson', () => {
  it('answers JSON', async () => {
    expect((await boundedJson(`${base}/ok`, request)).json).toEqual({ ok: true })
  })

  it.each([
    ['file:///etc/passwd', 'scheme'],
    ['gopher://127.0.0.1/', 'scheme'],
  ])('refuses %s', async (url, kind) => {
    await expect(boundedJson(url, request)).rejects.toMatchObject({ kind })
  })

  it('follows no redirect', async () => {
    await expect(boundedJson(`${base}/redirect`, request)).rejects.toMatchObject({ kind: 'redirect' })
  })

  it('stops reading past the size limit', async () => {
    await expect(boundedJson(`${base}/big`, request)).rejects.toMatchObject({ kind: 'too_large' })
  })

  it('gives up after the time limit', async () => {
    const error = await boundedJson(`${base}/slow`, request).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OutboundError)
    expect((error as OutboundError).kind).toBe('timeout')
  })
})

describe('boundedJson over node:http', () => {
  const post = {
    ...request,
    method: 'POST' as const,
    headers: { 'X-Tenant': 't1' },
    body: { input: ['ä', 'b'] },
  }

  it('sends the JSON body and headers, and answers the status, the JSON and Retry-After', async () => {
    const answer = await boundedJson(`${base}/echo`, post)
    expect(answer.status).toBe(429)
    expect(answer.retryAfter).toBe(7)
    expect(answer.json).toMatchObject({ body: { input: ['ä', 'b'] }, tenant: 't1' })
  })

  it('keeps the connection alive between calls', async () => {
    const first = (await boundedJson(`${base}/echo`, post)).json as { port: number }
    const second = (await boundedJson(`${base}/echo`, post)).json as { port: number }
    expect(second.port).toBe(first.port)
  })

  it('answers a body that is not JSON as undefined', async () => {
    expect(await boundedJson(`${base}/text`, request)).toEqual({
      status: 200,
      json: undefined,
      retryAfter: undefined,
    })
  })

  it('fails as the network when nothing listens, the connection is cut, or a header cannot be sent', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    await expect(boundedJson(`http://127.0.0.1:${port}/`, request)).rejects.toMatchObject({ kind: 'network' })
    await expect(boundedJson(`${base}/cut`, request)).rejects.toMatchObject({ kind: 'network' })
    await expect(
      boundedJson(`${base}/ok`, { ...request, headers: { 'x-bad': 'line\nbreak' } }),
    ).rejects.toMatchObject({ kind: 'network' })
  })
})

describe('boundedStream', () => {
  const stream = {
    method: 'GET' as const,
    headers: {},
    firstByteTimeoutMs: 500,
    timeoutMs: 500,
    maxBytes: 1024 * 1024,
  }
  const read = async (body: AsyncIterable<Uint8Array>) => {
    const chunks: Uint8Array[] = []
    for await (const chunk of body) chunks.push(chunk)
    return Buffer.concat(chunks).toString('utf8')
  }

  it('answers the status and the body as it arrives', async () => {
    const answer = await boundedStream(`${base}/ok`, stream)
    expect(answer.status).toBe(200)
    expect(answer.contentType).toBe('application/json')
    expect(await read(answer.body)).toBe('{"ok":true}')
  })

  it('refuses other schemes and follows no redirect', async () => {
    await expect(boundedStream('file:///etc/passwd', stream)).rejects.toMatchObject({ kind: 'scheme' })
    await expect(boundedStream(`${base}/redirect`, stream)).rejects.toMatchObject({ kind: 'redirect' })
  })

  it('stops reading past the size limit', async () => {
    const answer = await boundedStream(`${base}/big`, stream)
    await expect(read(answer.body)).rejects.toMatchObject({ kind: 'too_large' })
  })

  it('gives up when the first byte does not come in time', async () => {
    const error = await boundedStream(`${base}/slow`, { ...stream, timeoutMs: 5000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OutboundError)
    expect((error as OutboundError).kind).toBe('timeout')
  })

  it('gives up when the body does not end within the total limit, even after a garbage collection', async () => {
    // AbortSignal.timeout is held weakly by Node; reachable only through AbortSignal.any, it was collected
    // mid-stream and never fired (nodejs/node#57736), so the stream ran to its end. Collect while reading.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const answer = await boundedStream(`${base}/trickle`, {
      ...stream,
      firstByteTimeoutMs: 1000,
      timeoutMs: 400,
    })
    const reading = (async () => {
      let bytes = 0
      for await (const chunk of answer.body) {
        bytes += chunk.byteLength
        gc()
      }
      return bytes
    })()
    const error = await reading.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OutboundError)
    expect((error as OutboundError).kind).toBe('timeout')
    expect((error as OutboundError).message).toContain('did not end within 400 ms')
  })
})
