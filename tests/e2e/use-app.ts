import { afterAll, beforeAll } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser, startService, type RunningService } from './harness.ts'

/**
 * The built app (`glossary start` on a fresh data folder) and a headless Chromium for one test file: both
 * started before its tests and stopped after them. The fields are set once the file's first hook has run.
 */
export function useAppAndBrowser(): { service: RunningService; browser: Browser } {
  const app = {} as { service: RunningService; browser: Browser }
  beforeAll(async () => {
    app.service = await startService('start')
    app.browser = await launchBrowser()
  })
  afterAll(async () => {
    await app.browser?.close()
    await app.service?.stop()
  })
  return app
}
