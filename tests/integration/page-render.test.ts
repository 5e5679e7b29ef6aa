import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { RENDER } from '#app/entry.server.tsx'
import * as loginPage from '#app/routes/login.tsx'
import { createUser } from '#tests/factories.ts'
import { captureLogLines } from '#tests/log-lines.ts'
import { usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The server renderer's time limit (app/entry.server.tsx): it abandons a render that is still under way when the
 * limit passes, and leaves a finished one alone. Before, the limit's abort fired after every page, and React,
 * closing the stream it had already closed, logged a TypeError as "render error" five seconds after each one.
 */

const pages = usePageServer({ 'routes/login': { path: 'login', module: loginPage } })

const DELAY = RENDER.abortDelayMs

beforeAll(async () => {
  // With no account yet, /login sends the visitor to /setup.
  await createUser()
})

afterEach(() => {
  RENDER.abortDelayMs = DELAY
})

describe('the page renderer', () => {
  it('logs nothing once the limit passes after a page was rendered', async () => {
    const lines: string[] = []
    captureLogLines(lines)
    RENDER.abortDelayMs = 50
    const page = await pages.get('/login')
    expect(page.status).toBe(200)
    expect(page.html).toContain('</html>')
    await new Promise((resolve) => setTimeout(resolve, 300))
    const errors = lines.filter((line) => JSON.parse(line).level >= 50)
    expect(errors).toEqual([])
  })
})
