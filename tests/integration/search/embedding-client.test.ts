import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ProviderError, type ProviderTarget } from '#app/services/ai/provider.server.ts'
import { embedderOf } from '#app/services/ai/registry.server.ts'
import { standInVector, startStandIn, type StandIn } from '#tests/provider-stand-in.ts'

/**
 * The alpha-compatible embedding client's answer formats (decision 036): it asks for base64 vectors, reads
 * numbers from a server that ignores the ask, falls back to numbers (and stays with them) on a server that
 * refuses it, and refuses a vector of the wrong length either way.
 */

const TEXTS = ['ledger settlement', 'a queue of payments', '결제 원장']
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function standIn(): Promise<StandIn> {
  const provider = await startStandIn()
  closers.push(() => provider.close())
  return provider
}

const target = (baseUrl: string): ProviderTarget => ({
  baseUrl,
  model: 'text-embed-small',
  apiKey: null,
  headers: {},
})

const formatsAsked = (provider: StandIn) =>
  provider.requests
    .filter((r) => r.path.endsWith('/embeddings'))
    .map((r) => (r.body as { encoding_format?: string }).encoding_format)

/** A server that answers `embedding` with `vectorOf(text)` whatever format was asked. */
async function fixedServer(vectorOf: (text: string) => unknown): Promise<string> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString()).input as string[]
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vectorOf(t) })) }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

describe('alpha-compatible embeddings', () => {
  it('asks for base64 and reads each vector as little-endian float32, in the order of the texts', async () => {
    const provider = await standIn()
    const { vectors } = await embedderOf('alpha_compatible', target(provider.url)).embed(TEXTS)
    expect(formatsAsked(provider)).toEqual(['base64'])
    expect(vectors).toEqual(TEXTS.map((t) => standInVector(t).map(Math.fround)))
  })

  it('reads numbers from a server that ignores the format asked', async () => {
    const url = await fixedServer(standInVector)
    const { vectors } = await embedderOf('alpha_compatible', target(url)).embed(TEXTS)
    expect(vectors).toEqual(TEXTS.map(standInVector))
  })

  it('a server that refuses base64 is asked again for numbers, and only for numbers from then on', async () => {
    const provider = await standIn()
    provider.embeddingFormats = ['float']
    const embedder = embedderOf('alpha_compatible', target(provider.url))
    expect((await embedder.embed(TEXTS)).vectors).toEqual(TEXTS.map(standInVector))
    expect(formatsAsked(provider)).toEqual(['base64', 'float'])
    expect((await embedder.embed(TEXTS.slice(0, 1))).vectors).toEqual([standInVector(TEXTS[0]!)])
    expect(formatsAsked(provider)).toEqual(['base64', 'float', 'float'])
  })

  it('another failure is not taken for a refusal: a 500 is not asked again', async () => {
    const provider = await standIn()
    provider.failNext(500)
    const error = await embedderOf('alpha_compatible', target(provider.url))
      .embed(TEXTS)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).failureClass).toBe('provider_unavailable')
    expect(formatsAsked(provider)).toEqual(['base64'])
  })

  it('a base64 vector that is not 1,536 floats, or not whole floats, is a malformed answer', async () => {
    for (const bytes of [1535 * 4, 1536 * 4 + 2]) {
      const url = await fixedServer(() => Buffer.alloc(bytes).toString('base64'))
      const error = await embedderOf('alpha_compatible', target(url))
        .embed(TEXTS)
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).message).toContain('a vector is not 1536 numbers')
    }
  })
})
