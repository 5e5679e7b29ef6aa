import { describe, expect, it } from 'vitest'
import { loadingSecondsLeft } from './health.server.ts'

const startedAt = '2026-11-27T10:00:00.000Z'
const at = (seconds: number) => Date.parse(startedAt) + seconds * 1000

describe('loadingSecondsLeft', () => {
  it('is the time so far times the sources left over the sources done', () => {
    const run = { phase: 'loading', sourcesDone: 250, sourcesTotal: 1000, startedAt } as const
    expect(loadingSecondsLeft(run, at(600))).toBe(1800)
    expect(loadingSecondsLeft({ ...run, sourcesDone: 1000 }, at(600))).toBe(0)
  })

  it('cannot tell before a source is done, in the first half minute, or after the loading', () => {
    const run = { phase: 'loading', sourcesDone: 10, sourcesTotal: 1000, startedAt } as const
    expect(loadingSecondsLeft({ ...run, sourcesDone: 0 }, at(600))).toBeNull()
    expect(loadingSecondsLeft(run, at(29))).toBeNull()
    expect(loadingSecondsLeft(run, at(30))).toBe(2970)
    expect(loadingSecondsLeft({ ...run, phase: 'indexing' }, at(600))).toBeNull()
    expect(loadingSecondsLeft({ ...run, phase: 'swapping' }, at(600))).toBeNull()
  })
})
