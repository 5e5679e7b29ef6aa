import { describe, expect, it } from 'vitest'
import type { LookupMatch, LookupResult } from '#app/services/validation/lookup.server.ts'
import { encodeLookupAnswer, MatchBytes } from './lookup-answer.server.ts'

/** A match as findings.server.ts makes it: frozen, its members in the order of `LookupMatch`. */
const fact = (notation: string, preferred: string | null): LookupMatch =>
  Object.freeze({
    notation,
    term: Object.freeze({
      id: '0190a6f0-0000-7000-8000-000000000001',
      slug: 'api',
      name: 'API "Gateway"',
      status: 'active' as const,
    }),
    kind: 'deprecated' as const,
    finding: 'deprecated-notation' as const,
    preferred,
  })

const result = (text: string, matches: LookupMatch[]): LookupResult => ({
  text,
  normalized: text.normalize('NFKC').toLowerCase(),
  found: matches.length > 0,
  matches,
})

describe('encodeLookupAnswer', () => {
  const shared = fact('A.P.I.', 'API')
  const answer = {
    results: [
      result('a.p.i.', [shared]),
      result('unknown "x"\n', []),
      result('ＡＰＩ 게이트웨이 😀 \ud800', [shared, fact('Api', null)]),
      Object.freeze(result('Remembered', Object.freeze([shared]) as LookupMatch[])),
    ],
  }

  it('writes the bytes JSON.stringify writes', () => {
    expect(encodeLookupAnswer(answer).toString('utf8')).toBe(JSON.stringify(answer))
    expect(encodeLookupAnswer({ results: [] }).toString('utf8')).toBe('{"results":[]}')
  })

  it('encodes a frozen result once and a mutable one every time', () => {
    const first = encodeLookupAnswer(answer).toString('utf8')
    const mutable = answer.results[1] as LookupResult
    mutable.text = 'changed'
    const second = encodeLookupAnswer(answer).toString('utf8')
    expect(second).toBe(JSON.stringify(answer))
    expect(second).not.toBe(first)
    // A frozen result's bytes were kept: the same answer again reads the same.
    expect(encodeLookupAnswer(answer).toString('utf8')).toBe(second)
  })

  it('writes each member of a match, escaped, and null for no preferred form', () => {
    const odd = fact('\u0000"\\ 용어 😀 \udc00', null)
    const oddAnswer = { results: [result('x', [odd, fact('y', 'z\n')])] }
    expect(encodeLookupAnswer(oddAnswer).toString('utf8')).toBe(JSON.stringify(oddAnswer))
  })

  it('gives every answer memory of its own, of its own size', () => {
    const big = { results: Array.from({ length: 500 }, (_, i) => result(`text ${i}`, [shared])) }
    const first = encodeLookupAnswer(big)
    // Encoding the next answer (in the buffer the encoder reuses) leaves the first, still being sent, as it was.
    encodeLookupAnswer(answer)
    expect(first.toString('utf8')).toBe(JSON.stringify(big))
    expect(first.buffer.byteLength).toBe(first.length)
    // One past what the reused buffer grows to (a bound of 6 bytes a code unit) is written on its own.
    const huge = { results: [result('x'.repeat(800_000), [shared])] }
    expect(encodeLookupAnswer(huge).toString('utf8')).toBe(JSON.stringify(huge))
    expect(encodeLookupAnswer(big).toString('utf8')).toBe(JSON.stringify(big))
  })

  it('keeps the bytes of a match met first inside a remembered result, and reads them back the same', () => {
    const fresh = [fact('Fresh-1', 'fresh'), fact('Fresh-2', null)]
    const remembered = Object.freeze(result('fresh', Object.freeze([...fresh]) as LookupMatch[]))
    const first = { results: [remembered] }
    expect(encodeLookupAnswer(first).toString('utf8')).toBe(JSON.stringify(first))
    // The same matches in a result not remembered, then both again: copied from what was kept.
    const again = { results: [result('FRESH', fresh), remembered, result('Fresh', [fresh[1]!])] }
    expect(encodeLookupAnswer(again).toString('utf8')).toBe(JSON.stringify(again))
    expect(encodeLookupAnswer(again).toString('utf8')).toBe(JSON.stringify(again))
  })
})

describe('MatchBytes', () => {
  const write = (out: Buffer, at: number, value: { text: string }) => at + out.write(value.text, at, 'utf8')
  const notWrittenAgain = (): number => {
    throw new Error('written again')
  }
  const written = (kept: MatchBytes<{ text: string }>, value: { text: string }) => {
    const out = Buffer.alloc(1024)
    const end = kept.write(value, Buffer.byteLength(value.text), write, out, 0)
    return out.subarray(0, end).toString('utf8')
  }

  it('gives back what it kept, across arenas, and starts over when they are full', () => {
    // Arenas of 64 bytes, at most three: 40 values of 10-20 bytes fill them many times over.
    const kept = new MatchBytes<{ text: string }>(64, 3)
    const values = Array.from({ length: 40 }, (_, i) => ({ text: `value ${i} ${'é'.repeat(i % 6)}` }))
    for (let round = 0; round < 3; round++) {
      for (const value of values) expect(written(kept, value)).toBe(value.text)
    }
    // What was written last is kept (copied, not written again); what came first went with a start-over.
    const last = values[values.length - 1]!
    const out = Buffer.alloc(64)
    const end = kept.write(last, 64, notWrittenAgain, out, 0)
    expect(out.subarray(0, end).toString('utf8')).toBe(last.text)
    expect(() => kept.write(values[0]!, 64, notWrittenAgain, out, 0)).toThrow(/written again/)
  })

  it('writes a value too big for an arena straight into the answer, keeping nothing', () => {
    const kept = new MatchBytes<{ text: string }>(64, 3)
    const big = { text: 'x'.repeat(200) }
    expect(written(kept, big)).toBe(big.text)
    expect(() => kept.write(big, 200, notWrittenAgain, Buffer.alloc(256), 0)).toThrow(/written again/)
  })
})
