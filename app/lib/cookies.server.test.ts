import { describe, expect, it } from 'vitest'
import { clearCookieLine, readCookie, setCookieLine, type CookieSpec } from './cookies.server.ts'

const SPEC: CookieSpec = { name: 'glossary_test', path: '/auth', maxAgeSeconds: 600, httpOnly: true }

describe('the cookie module', () => {
  it('writes the attributes in the order the service has always sent', () => {
    expect(setCookieLine(SPEC, 'abc.DEF_-1', { secure: false })).toBe(
      'glossary_test=abc.DEF_-1; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=600',
    )
    expect(setCookieLine({ ...SPEC, httpOnly: false }, 'ko', { secure: true })).toBe(
      'glossary_test=ko; Path=/auth; SameSite=Lax; Max-Age=600; Secure',
    )
    expect(clearCookieLine(SPEC, { secure: true })).toBe(
      'glossary_test=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0; Secure',
    )
  })

  it('encodes a value that a cookie cannot carry as it is, and reads it back', () => {
    const line = setCookieLine(SPEC, 'a; b=c', { secure: false })
    expect(line.startsWith('glossary_test=a%3B%20b%3Dc;')).toBe(true)
    expect(readCookie(line.split('; ')[0], 'glossary_test')).toBe('a; b=c')
  })

  it('refuses a name that is not a cookie name', () => {
    expect(() => setCookieLine({ ...SPEC, name: 'a b' }, 'x', { secure: false })).toThrow()
  })

  it('reads the first cookie of that name; absent or empty is undefined', () => {
    const header = 'other=1; glossary_test=first; glossary_test=second'
    expect(readCookie(header, 'glossary_test')).toBe('first')
    expect(readCookie(' glossary_test = spaced ;x=1', 'glossary_test')).toBe('spaced')
    expect(readCookie('glossary_testing=1', 'glossary_test')).toBeUndefined()
    expect(readCookie('glossary_test=; other=1', 'glossary_test')).toBeUndefined()
    expect(readCookie(null, 'glossary_test')).toBeUndefined()
    expect(readCookie('', 'glossary_test')).toBeUndefined()
    expect(readCookie('garbage without pairs', 'glossary_test')).toBeUndefined()
  })
})
