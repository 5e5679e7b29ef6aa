import { defineConfig } from 'vitest/config'

// The Remix Vite plugin is for the app build only; tests import modules directly.
export default defineConfig({
  test: {
    include: [
      'app/**/*.test.ts',
      'db/**/*.test.ts',
      'pipeline/**/*.test.ts',
      'sync/**/*.test.ts',
      'tests/**/*.test.ts',
    ],
    // The CLI and browser tests run against the build, in vitest.e2e.config.ts.
    exclude: ['tests/e2e/**', 'node_modules/**'],
    globalSetup: ['./tests/setup/global-setup.ts'],
    setupFiles: ['./tests/setup/setup-test-env.ts'],
    pool: 'forks',
    // Two files at a time even on two cores (vitest's default there is one). Measured on a 2-core machine, the
    // whole pass: 694 s with one worker, 516 s with two, the same tests passing.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
