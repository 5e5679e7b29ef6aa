import { describe, expect, it } from 'vitest'
import type { Finding } from '#app/schemas/validation.ts'
import { checkSummary } from './check-summary.ts'

const found = (...findings: Finding[]) => findings.map((finding) => ({ finding }))

describe('checkSummary', () => {
  it('counts and names findings by what they are, not by severity (a wrong case is not a deprecated term)', () => {
    const occurrences = found(
      ...Array<Finding>(6).fill('deprecated-notation'),
      'wrong-case',
      'admitted-notation',
    )
    expect(checkSummary('en', occurrences, 3)).toBe(
      '8 findings: 6 deprecated notations, 1 in the wrong letter case, 1 admitted notation (3 terms).',
    )
    expect(checkSummary('ko', occurrences, 3)).toBe(
      '8건: 비권장 표기 6, 대소문자 틀림 1, 허용 표기 1 (용어 3개).',
    )
  })

  it('uses the singular for one and leaves out kinds that did not occur', () => {
    expect(checkSummary('en', found('deprecated-term'), 1)).toBe('1 finding: 1 deprecated term (1 term).')
    expect(checkSummary('en', found('correct', 'correct'), 1)).toBe('2 findings: 2 correct uses (1 term).')
  })

  it('says there are no findings without an empty list', () => {
    expect(checkSummary('en', [], 0)).toBe('0 findings (0 terms).')
    expect(checkSummary('ko', [], 0)).toBe('0건 (용어 0개).')
  })
})
