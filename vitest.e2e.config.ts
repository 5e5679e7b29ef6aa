import { defineConfig } from 'vitest/config'

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
    // A guard, not a measure: a test here starts several processes of the built app, each opening its database
    // and building its matcher before it serves, on two cores shared with the other file of the pair.
    testTimeout: 120_000,
    hookTimeout: 90_000,
  },
})
