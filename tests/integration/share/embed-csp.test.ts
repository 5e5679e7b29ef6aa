import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { securityHeaders } from '#app/server/security-headers.server.ts'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
// The real Express app with its real security headers (helmet); no Remix build, so the pages answer 404,
// but every answer carries the headers this test is about.
const server = useApiServer()

const lines: string[] = []
beforeAll(() => setLogDestination({ write: (line: string) => void lines.push(line) }))
afterAll(() => {
  setLogDestination(undefined)
  delete process.env.GLOSSARY_EMBED_ANCESTORS
})

const frameAncestors = async (path: string) => {
  const res = await fetch(`${server.url()}${path}`)
  const csp = res.headers.get('content-security-policy') ?? ''
  return /frame-ancestors ([^;]*)/.exec(csp)?.[1]
}

describe('frame-ancestors of /sheet and /embed (spec part 9)', () => {
  it('denies framing everywhere but /embed', async () => {
    process.env.GLOSSARY_EMBED_ANCESTORS = 'https://a.example'
    expect(await frameAncestors('/sheet')).toBe("'none'")
    expect(await frameAncestors('/sheet?columns=name')).toBe("'none'")
    expect(await frameAncestors('/terms')).toBe("'none'")
    expect(await frameAncestors('/embed/x')).toBe("'none'")
    expect(await frameAncestors('/embed?compact=1')).toBe("'self' https://a.example")
  })

  it('reads GLOSSARY_EMBED_ANCESTORS on every request, without a restart', async () => {
    delete process.env.GLOSSARY_EMBED_ANCESTORS
    expect(await frameAncestors('/embed')).toBe('*')
    process.env.GLOSSARY_EMBED_ANCESTORS = ''
    expect(await frameAncestors('/embed')).toBe('*')
    process.env.GLOSSARY_EMBED_ANCESTORS = 'https://docs.example.com, https://wiki.example.com:8443'
    expect(await frameAncestors('/embed')).toBe(
      "'self' https://docs.example.com https://wiki.example.com:8443",
    )
    process.env.GLOSSARY_EMBED_ANCESTORS = 'https://other.example'
    expect(await frameAncestors('/embed')).toBe("'self' https://other.example")
  })

  it('passes CSP\'s subdomain wildcard through; a list with no entry (",") is every origin, as unset', async () => {
    process.env.GLOSSARY_EMBED_ANCESTORS = 'https://*.example.com, https://docs.example.org:8443'
    expect(await frameAncestors('/embed')).toBe("'self' https://*.example.com https://docs.example.org:8443")
    process.env.GLOSSARY_EMBED_ANCESTORS = ','
    expect(await frameAncestors('/embed')).toBe('*')
  })

  it('warns once at start when the list has no entry, not when it is unset or empty (issue 26)', () => {
    const warningsAtStart = (value: string | undefined) => {
      if (value === undefined) delete process.env.GLOSSARY_EMBED_ANCESTORS
      else process.env.GLOSSARY_EMBED_ANCESTORS = value
      lines.length = 0
      securityHeaders({ isDev: false })
      return lines.map((l) => JSON.parse(l)).filter((l) => /GLOSSARY_EMBED_ANCESTORS/.test(l.msg))
    }
    const warnings = warningsAtStart(',')
    expect(warnings).toHaveLength(1)
    expect(warnings[0].level).toBe(40)
    expect(warnings[0].msg).toMatch(/every origin may frame \/embed/)
    expect(warningsAtStart(' , ,')).toHaveLength(1)
    expect(warningsAtStart(undefined)).toHaveLength(0)
    expect(warningsAtStart('')).toHaveLength(0)
    expect(warningsAtStart('https://a.example')).toHaveLength(0)
  })

  it('ignores and logs entries that are not origins, never failing the request', async () => {
    lines.length = 0
    process.env.GLOSSARY_EMBED_ANCESTORS =
      'https://ok.example, https://bad.example/path, javascript:alert(1), *, https://*, https://a;b.example'
    const res = await fetch(`${server.url()}/embed`)
    expect(res.status).toBe(404) // no Remix build here: the page itself is not served, the headers are
    expect(/frame-ancestors ([^;]*)/.exec(res.headers.get('content-security-policy')!)![1]).toBe(
      "'self' https://ok.example",
    )
    // Logged once for this value, not on every request.
    await frameAncestors('/embed')
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => /GLOSSARY_EMBED_ANCESTORS/.test(l.msg))
    expect(warnings).toHaveLength(1)
    expect(warnings[0].ignored).toEqual([
      'https://bad.example/path',
      'javascript:alert(1)',
      '*',
      'https://*',
      'https://a;b.example',
    ])
    // Every entry ignored: only the service itself may frame (whoever set the variable meant to restrict).
    process.env.GLOSSARY_EMBED_ANCESTORS = 'https://bad.example/path'
    expect(await frameAncestors('/embed')).toBe("'self'")
  })
})
