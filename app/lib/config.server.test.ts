import { describe, expect, it } from 'vitest'
import { ConfigError, embedAncestorsListNothing, parseConfig, parseEmbedAncestors } from './config.server.ts'

function problemsOf(env: Record<string, string>): { variable: string; message: string }[] {
  try {
    parseConfig(env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).problems
  }
  throw new Error('expected a ConfigError')
}

describe('config', () => {
  it('starts with nothing set: embedded database, port 3000, own loopback origins', () => {
    const config = parseConfig({})
    expect(config.port).toBe(3000)
    expect(config.databaseUrl).toBeUndefined()
    expect(config.redisUrl).toBeUndefined()
    expect(config.dataDir).toMatch(/data$/)
    expect(config.allowedOrigins).toEqual(['http://localhost:3000', 'http://127.0.0.1:3000'])
    expect(config.retentionDays).toEqual({ aiRuns: 90, audit: 365, attachments: 30 })
    expect(config.passwordLoginEnabledInitial).toBe(true)
  })

  it('follows PORT in the default origins', () => {
    expect(parseConfig({ PORT: '8080' }).allowedOrigins).toEqual([
      'http://localhost:8080',
      'http://127.0.0.1:8080',
    ])
  })

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      GLOSSARY_ENCRYPTION_KEY: 'short',
      DATABASE_URL: 'mysql://x',
      GLOSSARY_TRUST_PROXY_HEADERS: 'maybe',
      LOG_LEVEL: 'loud',
    })
    expect(problems.map((p) => p.variable).sort()).toEqual(
      ['DATABASE_URL', 'GLOSSARY_ENCRYPTION_KEY', 'GLOSSARY_TRUST_PROXY_HEADERS', 'LOG_LEVEL', 'PORT'].sort(),
    )
    expect(problems.find((p) => p.variable === 'GLOSSARY_ENCRYPTION_KEY')?.message).toMatch(/32/)
  })

  it('the error message lists each variable on its own line', () => {
    expect(() => parseConfig({ PORT: '-1', REDIS_URL: 'http://x' })).toThrow(/PORT: .*\n.*REDIS_URL/)
  })

  it('refuses production without allowed origins or encryption key', () => {
    const problems = problemsOf({ NODE_ENV: 'production' })
    expect(problems.map((p) => p.variable).sort()).toEqual([
      'GLOSSARY_ALLOWED_ORIGINS',
      'GLOSSARY_ENCRYPTION_KEY',
    ])
  })

  it('accepts production with both', () => {
    const config = parseConfig({
      NODE_ENV: 'production',
      GLOSSARY_ALLOWED_ORIGINS: 'https://glossary.example.com, https://alt.example.com:8443',
      GLOSSARY_ENCRYPTION_KEY: 'x'.repeat(32),
    })
    expect(config.allowedOrigins).toEqual(['https://glossary.example.com', 'https://alt.example.com:8443'])
  })

  it('refuses origins with a path and non-http schemes', () => {
    const problems = problemsOf({ GLOSSARY_ALLOWED_ORIGINS: 'https://a.example/path,ftp://b.example' })
    expect(problems).toHaveLength(2)
    expect(problems[0]!.variable).toBe('GLOSSARY_ALLOWED_ORIGINS')
  })

  it('refuses to start with embed ancestors that are not origins, naming each (issue 26)', () => {
    const problems = problemsOf({
      GLOSSARY_EMBED_ANCESTORS: 'https://x.example/frame, https://ok.example:8443, https://*',
    })
    expect(problems).toHaveLength(1)
    expect(problems[0]!.variable).toBe('GLOSSARY_EMBED_ANCESTORS')
    expect(problems[0]!.message).toContain('"https://x.example/frame", "https://*"')
    expect(problems[0]!.message).not.toContain('ok.example')
    expect(parseConfig({ GLOSSARY_EMBED_ANCESTORS: 'https://ok.example:8443' }).embedAncestors).toEqual([
      'https://ok.example:8443',
    ])
  })

  it('splits embed ancestors into origins and entries that are not one', () => {
    expect(parseEmbedAncestors('https://x.example/frame,ftp://y.example, https://a.example ,')).toEqual({
      origins: ['https://a.example'],
      invalid: ['https://x.example/frame', 'ftp://y.example'],
    })
    expect(parseEmbedAncestors(undefined)).toEqual({ origins: [], invalid: [] })
    expect(parseEmbedAncestors(',')).toEqual({ origins: [], invalid: [] })
  })

  it("accepts CSP's subdomain wildcard and nothing looser", () => {
    expect(
      parseEmbedAncestors(
        'https://*.example.com, http://*.intra.example:8443, https://*.example.com/, http://localhost:3000, https://[::1]:8443',
      ),
    ).toEqual({
      origins: [
        'https://*.example.com',
        'http://*.intra.example:8443',
        'https://*.example.com',
        'http://localhost:3000',
        'https://[::1]:8443',
      ],
      invalid: [],
    })
    const loose = [
      '*',
      'https://*',
      'https://*.com',
      'https://*.*.example.com',
      'https://a*.example.com',
      'https://*example.com',
      'https://a.*.example.com',
      'https://*.example.com:*',
      'https://*.example.com/path',
      'https://a;script-src.example',
      "https://a'.example",
      'ftp://*.example.com',
    ]
    expect(parseEmbedAncestors(loose.join(','))).toEqual({ origins: [], invalid: loose })
    expect(problemsOf({ GLOSSARY_EMBED_ANCESTORS: 'https://*.com' })[0]!.variable).toBe(
      'GLOSSARY_EMBED_ANCESTORS',
    )
    expect(parseConfig({ GLOSSARY_EMBED_ANCESTORS: 'https://*.example.com' }).embedAncestors).toEqual([
      'https://*.example.com',
    ])
  })

  it('tells a list with no entry (",") from unset or empty', () => {
    expect(embedAncestorsListNothing(',')).toBe(true)
    expect(embedAncestorsListNothing(' , ,')).toBe(true)
    expect(embedAncestorsListNothing(undefined)).toBe(false)
    expect(embedAncestorsListNothing('')).toBe(false)
    expect(embedAncestorsListNothing('  ')).toBe(false)
    expect(embedAncestorsListNothing('https://a.example,')).toBe(false)
    // It starts like unset: no origin, nothing refused.
    expect(parseConfig({ GLOSSARY_EMBED_ANCESTORS: ',' }).embedAncestors).toEqual([])
  })

  it('parses booleans and retention days', () => {
    const config = parseConfig({
      GLOSSARY_TRUST_PROXY_HEADERS: 'true',
      PASSWORD_LOGIN_ENABLED: 'false',
      GLOSSARY_AUDIT_RETENTION_DAYS: '30',
    })
    expect(config.trustProxyHeaders).toBe(true)
    expect(config.passwordLoginEnabledInitial).toBe(false)
    expect(config.retentionDays.audit).toBe(30)
    expect(problemsOf({ GLOSSARY_AI_RUN_RETENTION_DAYS: '0' })[0]!.variable).toBe(
      'GLOSSARY_AI_RUN_RETENTION_DAYS',
    )
  })
})
