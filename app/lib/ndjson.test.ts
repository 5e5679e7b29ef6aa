import { describe, expect, it } from 'vitest'
import { ndjsonResponse, readNdjson } from './ndjson.ts'

describe('ndjsonResponse', () => {
  it('writes one JSON line per value with streaming headers', async () => {
    async function* values() {
      yield { a: 1 }
      yield { b: '줄\n바꿈' }
    }
    const res = ndjsonResponse(values(), { status: 200 })
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.text()).toBe('{"a":1}\n{"b":"줄\\n바꿈"}\n')
  })
})

describe('readNdjson', () => {
  it('reads values split anywhere across chunks, skipping blank lines, and a last line without newline', async () => {
    const text = '{"a":1}\n\n{"b":"줄"}\n{"c":[1,2]}'
    const bytes = new TextEncoder().encode(text)
    // Chunk boundaries inside a line and inside a multi-byte character.
    const cuts = [3, 9, 13, 14, bytes.length]
    let from = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const to = cuts.shift()
        if (to === undefined) return controller.close()
        controller.enqueue(bytes.slice(from, to))
        from = to
      },
    })
    const values = []
    for await (const value of readNdjson(body)) values.push(value)
    expect(values).toEqual([{ a: 1 }, { b: '줄' }, { c: [1, 2] }])
  })

  it('reads what ndjsonResponse writes', async () => {
    async function* values() {
      for (let i = 0; i < 3; i++) yield { i }
    }
    const read = []
    for await (const value of readNdjson(ndjsonResponse(values()).body!)) read.push(value)
    expect(read).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }])
  })
})
