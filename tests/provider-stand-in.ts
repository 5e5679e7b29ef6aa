import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A provider stand-in for tests (issue 12): a real HTTP server on 127.0.0.1 speaking the shapes of the
 * alpha-compatible API (`POST /embeddings`, `POST /rerank`, `GET /models`), the beta batch API
 * (`POST /models/{model}:batchEmbedContents`) and a gamma-compatible rerank server. Its embeddings are a
 * bag of words hashed into 1536 dimensions and normalized, so texts sharing words are near each other. It
 * can fail on demand (`failNext(status, n)`), answer slowly (`delayMs`) and records every request.
 */

export interface SeenRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: unknown
}

export interface StandIn {
  url: string
  requests: SeenRequest[]
  /** The next `times` requests answer `status` (500, 429, 401, 404 …). */
  failNext(status: number, times?: number): void
  /** Every answer waits this long first. */
  delayMs: number
  /** Model ids `GET /models` lists. */
  models: string[]
  close(): Promise<void>
}

const DIM = 1536

/** The stand-in's embedding of a text: hashed words, L2-normalized. */
export function standInVector(text: string): number[] {
  const v = new Array<number>(DIM).fill(0)
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? ['empty']
  for (const word of words) {
    const h = crypto.createHash('sha256').update(word).digest()
    v[h.readUInt16BE(0) % DIM]! += 1
    v[h.readUInt16BE(2) % DIM]! += 0.5
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / norm)
}

function overlap(query: string, doc: string): number {
  const q = new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
  const d = doc.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return d.filter((w) => q.has(w)).length / (d.length || 1)
}

export async function startStandIn(): Promise<StandIn> {
  const failures: number[] = []
  const state: StandIn = {
    url: '',
    requests: [],
    delayMs: 0,
    models: ['text-embed-small', 'text-embed-large', 'chat-model', 'bge-reranker-v2'],
    failNext(status, times = 1) {
      for (let i = 0; i < times; i++) failures.push(status)
    },
    close: async () => undefined,
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        body = raw
      }
      const path = (req.url ?? '/').replace(/\?.*$/, '')
      state.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body })
      const answer = (status: number, json: unknown) => {
        const send = () => {
          if (res.destroyed) return
          res.writeHead(status, { 'content-type': 'application/json' })
          res.end(JSON.stringify(json))
        }
        if (state.delayMs > 0) setTimeout(send, state.delayMs)
        else send()
      }
      const failure = failures.shift()
      if (failure)
        return answer(failure, { error: { message: `stand-in failure ${failure} with secret echo` } })
      const b = body as Record<string, unknown>
      if (req.method === 'GET' && path.endsWith('/models')) {
        return answer(200, { object: 'list', data: state.models.map((id) => ({ id, object: 'model' })) })
      }
      if (req.method === 'POST' && path.endsWith('/embeddings')) {
        const input = (Array.isArray(b.input) ? b.input : [b.input]) as string[]
        return answer(200, {
          object: 'list',
          data: input.map((text, index) => ({ object: 'embedding', index, embedding: standInVector(text) })),
          model: b.model,
          usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
        })
      }
      if (req.method === 'POST' && path.endsWith(':batchEmbedContents')) {
        const requests = (b.requests ?? []) as { content: { parts: { text: string }[] } }[]
        return answer(200, {
          embeddings: requests.map((r) => ({
            values: standInVector(r.content.parts.map((p) => p.text).join(' ')),
          })),
        })
      }
      if (req.method === 'POST' && path.endsWith('/rerank')) {
        const documents = (b.documents ?? []) as string[]
        return answer(200, {
          results: documents
            .map((d, index) => ({ index, relevance_score: overlap(String(b.query), d) }))
            .sort((x, y) => y.relevance_score - x.relevance_score),
          usage: { total_tokens: documents.length },
        })
      }
      answer(404, { error: 'not found' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  state.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return state
}
