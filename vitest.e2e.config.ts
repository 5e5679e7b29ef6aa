import { defineConfig } from 'vitest/config'

// Tests of the built application: the `glossary` CLI as a user runs it, and pages in Debian's Chromium.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
})
