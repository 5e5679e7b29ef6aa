import { describe, expect, it } from 'vitest'
import { returnPath, RETURN_PATH_MAX_LENGTH } from './return-path.ts'

const OWN = 'http://localhost:3000'
const allowedOrigins = [OWN, 'https://glossary.example.com']

/** What a browser would do with the answer as a `Location` on our origin: where it ends up. */
const landing = (location: string) => new URL(location, `${OWN}/somewhere/page`)

describe('returnPath: the one rule of in-app return addresses', () => {
  it('keeps a path on this origin, with its query and fragment', () => {
    expect(returnPath('/')).toBe('/')
    expect(returnPath('/terms')).toBe('/terms')
    expect(returnPath('/terms?q=a+b&status=active#top')).toBe('/terms?q=a+b&status=active#top')
    expect(returnPath('/sheet?columns=name%2Cstatus')).toBe('/sheet?columns=name%2Cstatus')
    expect(returnPath('/terms/%EC%9A%A9%EC%96%B4')).toBe('/terms/%EC%9A%A9%EC%96%B4')
  })

  it('normalizes the way a browser reads it: dot segments and raw non-ASCII', () => {
    expect(returnPath('/a/../terms')).toBe('/terms')
    expect(returnPath('/./terms')).toBe('/terms')
    expect(returnPath('/용어')).toBe('/%EC%9A%A9%EC%96%B4')
  })

  // The known bypass list (issue 26 item 2 and the usual open-redirect forms): each either falls back or
  // stays a single-slash path on this origin.
  const BYPASSES: string[] = [
    '//evil.example',
    '/\\evil.example',
    '\\/evil.example',
    '\\\\evil.example',
    '/%09/evil.example/a',
    '/\t/evil.example/a',
    '/%0a/x',
    '/\n/x',
    '/%0d/x',
    '/\r/x',
    '/%2F/evil.example',
    '/%2f/evil.example',
    '/%5C/evil.example',
    '/%5c/evil.example',
    '/%252F/evil.example',
    '/%E3%80%82/x',
    '/\u3002/x',
    'https://evil.example',
    'http://evil.example/',
    'http:evil.example',
    'https:evil.example',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '/ /evil.example',
    '///evil.example',
    '/.//evil.example',
    '/..//evil.example',
    '/%2e%2e//evil.example',
    '/x/../..//evil.example',
    '/te\trms',
    '/terms\n',
    '/terms?q=\r\nSet-Cookie:x=1',
    '\t//evil.example',
    ' /terms',
    '/\u00a0/evil.example',
    '/\u200b/evil.example',
    '/\u3000/evil.example',
    '::::',
    '',
    'evil.example',
    '?next=//evil.example',
    '#//evil.example',
    '/%',
    '/%E3%80',
    `/${'a'.repeat(RETURN_PATH_MAX_LENGTH)}`,
  ]

  it.each(BYPASSES)('never leaves the origin: %j', (candidate) => {
    const answer = returnPath(candidate)
    expect(answer.startsWith('/')).toBe(true)
    expect(answer.startsWith('//')).toBe(false)
    expect(answer).not.toMatch(/[\\\s\p{Cc}]/u)
    expect(answer).toMatch(/^[\x21-\x7e]+$/) // a header can carry it as it is
    expect(landing(answer).origin).toBe(OWN)
  })

  it('falls back to / (or the given fallback) for each refused form', () => {
    const accepted = new Set(['/%E3%80%82/x', '/\u3002/x'])
    for (const candidate of BYPASSES.filter((c) => !accepted.has(c))) {
      expect(returnPath(candidate), JSON.stringify(candidate)).toBe('/')
      expect(returnPath(candidate, { fallback: '/terms' }), JSON.stringify(candidate)).toBe('/terms')
    }
    // The ideographic full stop is only a character of a path here (it never reaches a host position).
    expect(returnPath('/%E3%80%82/x')).toBe('/%E3%80%82/x')
    expect(returnPath('/\u3002/x')).toBe('/%E3%80%82/x')
  })

  it('refuses what is not a string', () => {
    expect(returnPath(null)).toBe('/')
    expect(returnPath(undefined)).toBe('/')
    expect(returnPath(42)).toBe('/')
    expect(returnPath(['/terms'])).toBe('/')
  })

  it('accepts the longest allowed candidate and refuses one character more', () => {
    const longest = `/${'a'.repeat(RETURN_PATH_MAX_LENGTH - 1)}`
    expect(returnPath(longest)).toBe(longest)
    expect(returnPath(`${longest}a`)).toBe('/')
  })

  describe('a Referer (an absolute URL)', () => {
    it('keeps the path of an allowed origin', () => {
      expect(returnPath(`${OWN}/terms?q=x`, { allowedOrigins })).toBe('/terms?q=x')
      expect(returnPath('https://glossary.example.com/wiki/a', { allowedOrigins })).toBe('/wiki/a')
      expect(returnPath(`${OWN}`, { allowedOrigins })).toBe('/')
    })

    it('refuses another origin, and any URL without the list', () => {
      expect(returnPath('https://evil.example/terms', { allowedOrigins })).toBe('/')
      expect(returnPath('http://localhost:3001/terms', { allowedOrigins })).toBe('/')
      expect(returnPath('https://localhost:3000/terms', { allowedOrigins })).toBe('/')
      expect(returnPath(`${OWN}/terms`)).toBe('/')
    })

    it('judges the path of an allowed origin by the same rule', () => {
      expect(returnPath(`${OWN}//evil.example/x`, { allowedOrigins })).toBe('/')
      expect(returnPath(`${OWN}/.//evil.example/x`, { allowedOrigins })).toBe('/')
      expect(returnPath(`${OWN}/%2F/evil.example`, { allowedOrigins })).toBe('/')
      expect(returnPath(`${OWN}/%5C/evil.example`, { allowedOrigins })).toBe('/')
      expect(returnPath(`${OWN}/%09/evil.example`, { allowedOrigins })).toBe('/')
      expect(returnPath(`${OWN}/\t/evil.example`, { allowedOrigins })).toBe('/')
    })

    it('refuses what is not an http(s) URL, or carries credentials', () => {
      for (const candidate of [
        '::::',
        'javascript:alert(1)',
        'data:text/html,x',
        'ftp://localhost:3000/x',
        'http://user:pw@localhost:3000/x',
        'http:evil.example',
        `${OWN}\n/x`,
      ]) {
        expect(returnPath(candidate, { allowedOrigins }), candidate).toBe('/')
      }
    })
  })
})
