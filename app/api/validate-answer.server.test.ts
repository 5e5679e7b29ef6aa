import { describe, expect, it } from 'vitest'
import type { Occurrence } from '#app/schemas/validation.ts'
import { encodeValidateAnswer } from './validate-answer.server.ts'

/** An occurrence as validate.server.ts makes it, its members in that order. */
const occurrence = (text: string, preferred: string | null, at = 0): Occurrence => ({
  start: at,
  end: at + text.length,
  line: 1 + Math.floor(at / 80),
  column: 1 + (at % 80),
  text,
  notation: text.toLowerCase(),
  term: Object.freeze({
    id: '0190a6f0-0000-7000-8000-000000000001',
    slug: 'api-gateway',
    name: 'API "Gateway"',
    status: 'active' as const,
  }),
  kind: 'deprecated',
  finding: 'deprecated-notation',
  preferred,
  severity: 'error',
})

const summary = { occurrences: 3, error: 3, warning: 0, info: 0, none: 0, terms: 1 }
const glossary = { version: 42, upToDate: true }

describe('encodeValidateAnswer', () => {
  it('writes the bytes JSON.stringify writes', () => {
    const answer = {
      occurrences: [
        occurrence('API GW', 'API Gateway', 0),
        occurrence('용어집을 😀 \ud800 "q"\n', null, 1_234_567),
        occurrence('ＡＰＩ', 'API', 99),
      ],
      summary,
      glossary,
    }
    expect(encodeValidateAnswer(answer).toString('utf8')).toBe(JSON.stringify(answer))
  })

  it('writes an answer with no occurrences, and whatever members follow them', () => {
    const empty = { occurrences: [], summary: { ...summary, occurrences: 0, error: 0, terms: 0 }, glossary }
    expect(encodeValidateAnswer(empty).toString('utf8')).toBe(JSON.stringify(empty))
    expect(encodeValidateAnswer({ occurrences: [] }).toString('utf8')).toBe('{"occurrences":[]}')
    const other = { occurrences: [occurrence('x', null)], note: 'ünïcode' }
    expect(encodeValidateAnswer(other).toString('utf8')).toBe(JSON.stringify(other))
  })

  it('gives every answer memory of its own, of its own size', () => {
    const many = {
      occurrences: Array.from({ length: 4000 }, (_, i) => occurrence(`용어 ${i}`, 'API', i * 7)),
      summary,
      glossary,
    }
    const first = encodeValidateAnswer(many)
    encodeValidateAnswer({ occurrences: [occurrence('other', null)], summary, glossary })
    expect(first.toString('utf8')).toBe(JSON.stringify(many))
    expect(first.buffer.byteLength).toBe(first.length)
  })
})
