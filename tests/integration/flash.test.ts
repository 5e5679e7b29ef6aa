import { describe, expect, it } from 'vitest'
import * as homePage from '#app/routes/_index.tsx'
import * as setupPage from '#app/routes/setup.tsx'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The flash message (app/lib/flash.server.ts): an action's redirect carries it in a cookie, the next page shows it
 * once in the reader's language and removes the cookie; a cookie we did not write shows nothing.
 */

const pages = usePageServer({
  'routes/_index': { path: '', module: homePage },
  'routes/setup': { path: 'setup', module: setupPage },
})

/** The `name=value` pairs of an answer's Set-Cookie lines, as a browser sends them back. */
function cookiesOf(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
}

describe('flash messages', () => {
  it('finishing setup says so on the page it leads to, once, without JavaScript', async () => {
    const setup = await pages.post('/setup', {
      email: 'first@example.test',
      password: 'a long password 1',
      name: 'First Admin',
    })
    expect(setup.status).toBe(302)
    expect(setup.location).toBe('/')
    const cookie = cookiesOf(setup.headers)
    expect(cookie).toContain('glossary_flash=')

    const home = await pages.get('/', { cookie })
    expect(pageText(home.html)).toContain('Setup is finished: you are signed in as the administrator.')
    expect(home.html).toMatch(/class="flash flash-success" role="status"/)
    // the same answer removes the cookie, so a reload does not show it again
    const cleared = home.headers.getSetCookie().find((line) => line.startsWith('glossary_flash='))
    expect(cleared).toMatch(/^glossary_flash=; .*Max-Age=0/)

    const withoutFlash = cookie
      .split('; ')
      .filter((pair) => !pair.startsWith('glossary_flash='))
      .join('; ')
    const again = await pages.get('/', { cookie: withoutFlash })
    expect(pageText(again.html)).not.toContain('Setup is finished')
  })

  it('shows nothing for a cookie it did not write, and never free text', async () => {
    for (const forged of [
      'not json',
      JSON.stringify({ kind: 'success', message: '<b>Pay here</b>', id: 'ab' }),
      JSON.stringify({ kind: 'shout', message: 'flash.setupDone', id: 'ab' }),
      JSON.stringify({ kind: 'success', message: 'flash.setupDone' }),
    ]) {
      const home = await pages.get('/', { cookie: `glossary_flash=${encodeURIComponent(forged)}` })
      expect(home.status).toBe(200)
      expect(home.html).not.toContain('class="flash')
      expect(home.html).not.toContain('Pay here')
    }
  })
})
