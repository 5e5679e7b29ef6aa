import { afterEach, beforeEach, expect, vi } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { testEnv } from './test-env.ts'

setConfig(parseConfig(testEnv()))

/**
 * A console.error fails the test unless the test expects it (`expectConsoleError()`), so unnoticed errors
 * cannot hide behind a green run.
 */
let consoleErrors: unknown[][] = []
let allowed = false

export function expectConsoleError(): void {
  allowed = true
}

beforeEach(() => {
  consoleErrors = []
  allowed = false
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    consoleErrors.push(args)
  })
})

afterEach(() => {
  vi.restoreAllMocks()
  if (!allowed) expect(consoleErrors, 'unexpected console.error').toEqual([])
})
