import path from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Files that take minutes, started first: in a clean clone (CI) vitest knows no durations and starts the
 * largest files first, so the provider outage (three minutes, mostly waiting) ran last, alone, and the pass
 * took 478 s for 790 s of tests on two workers.
 */
const LONGEST_FIRST = ['tests/e2e/provider-outage.e2e.test.ts', 'tests/e2e/pages-check.e2e.test.ts']

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(path.relative(import.meta.dirname, file.moduleId))
      return i === -1 ? LONGEST_FIRST.length : i
    }
    // Array sort is stable: the rest keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

// Tests of the built application: the `glossary` CLI as a user runs it, and pages in Debian's Chromium.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.test.ts'],
    pool: 'forks',
    // Two files at a time: the production-shape files mostly wait on their processes (a provider outage, a
    // worker's heartbeat going silent), so pairing them with the Chromium files shortens the run without
    // crowding two cores.
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    // A guard, not a measure: a test here starts several processes of the built app, each opening its database
    // and building its matcher before it serves, on two cores shared with the other file of the pair.
    testTimeout: 120_000,
    hookTimeout: 90_000,
  },
})
