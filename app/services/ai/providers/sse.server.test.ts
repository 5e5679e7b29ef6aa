import { describe, expect, it } from 'vitest'
import { sseData } from './sse.server.ts'

async function* bytes(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part
}

async function all(body: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = []
  for await (const data of sseData(body)) out.push(data)
  return out
}

describe('sseData', () => {
  it('answers the data of each event, in order', async () => {
    expect(await all(bytes('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n'))).toEqual([
      '{"a":1}',
      '{"a":2}',
      '[DONE]',
    ])
  })

  it('joins lines split across chunks, at any byte, CRLF and CR line ends included', async () => {
    const text = 'data: one\r\n\r\ndata:two\r\rdata: three\n\n'
    const expected = ['one', 'two', 'three']
    for (let cut = 0; cut <= text.length; cut++) {
      expect(await all(bytes(text.slice(0, cut), text.slice(cut)))).toEqual(expected)
    }
  })

  it('keeps a character whose bytes are split across chunks', async () => {
    const encoded = new TextEncoder().encode('data: 용어집\n\n')
    expect(await all(bytes(encoded.slice(0, 8), encoded.slice(8)))).toEqual(['용어집'])
  })

  it('joins the data lines of one event, skips comments and other fields', async () => {
    expect(await all(bytes(': keep-alive\nevent: x\nid: 7\nretry: 10\ndata: a\ndata: b\n\n'))).toEqual([
      'a\nb',
    ])
  })

  it('drops an event the body ends in the middle of', async () => {
    expect(await all(bytes('data: whole\n\ndata: half'))).toEqual(['whole'])
    expect(await all(bytes('data: whole\n\ndata: half\n'))).toEqual(['whole'])
  })
})
