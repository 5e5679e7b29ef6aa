import net from 'node:net'
import path from 'node:path'
import { z } from 'zod'

/**
 * The one reader of `process.env` (an ESLint rule forbids it elsewhere). Every variable is parsed once with zod;
 * a bad value stops start-up with one message naming every bad variable and why (see `ConfigError`).
 */

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : ['true', '1', 'yes'].includes(v)))

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v)

const days = (fallback: number) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(36500).default(fallback))

/** `https://host[:port]` with no path: the form origins are compared in. */
const originList = (what: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const items = (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      const out: string[] = []
      for (const item of items) {
        let url: URL | undefined
        try {
          url = new URL(item)
        } catch {
          url = undefined
        }
        if (
          !url ||
          !['http:', 'https:'].includes(url.protocol) ||
          url.origin !== item.replace(/\/$/, '') ||
          url.pathname !== '/'
        ) {
          ctx.addIssue({
            code: 'custom',
            message: `${what}: "${item}" is not an origin like https://host[:port]`,
          })
          continue
        }
        out.push(url.origin)
      }
      return out
    })

/**
 * Comma-separated IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`), checked with Node's own parser; unset or
 * empty is `fallback`, `none` is none.
 */
const addressList = (what: string, fallback: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback
      if (v.trim() === 'none') return []
      const out: string[] = []
      for (const item of (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const [address = '', prefix, ...rest] = item.split('/')
        const family = net.isIP(address)
        const bits = family === 4 ? 32 : 128
        const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
        if (!family || !prefixOk || rest.length) {
          ctx.addIssue({
            code: 'custom',
            message: `${what}: "${item}" is not an IP address or a CIDR range like 10.0.0.0/8`,
          })
          continue
        }
        out.push(item)
      }
      return out
    })

const EnvSchema = z.object({
  /** development | production | test. Production demands GLOSSARY_ALLOWED_ORIGINS and GLOSSARY_ENCRYPTION_KEY. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** TCP port of the web process. */
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  /** Interface to listen on. */
  HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  /** postgres://… of a PostgreSQL ≥ 15 with pgvector; unset means the embedded PGlite database. */
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must start with postgres:// or postgresql://')
      .optional(),
  ),
  /** Folder of the embedded database and of the generated local secrets. */
  GLOSSARY_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./data')),
  /** redis://…: jobs go through BullMQ and worker processes run them; unset: each job runs in the process that submits it (decision 014). */
  REDIS_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^rediss?:\/\//.test(v), 'must start with redis:// or rediss://')
      .optional(),
  ),
  /** Comma-separated origins allowed to make cookie-session writes. */
  GLOSSARY_ALLOWED_ORIGINS: originList('GLOSSARY_ALLOWED_ORIGINS'),
  /** Trust X-Forwarded-Proto/-For from a reverse proxy. */
  GLOSSARY_TRUST_PROXY_HEADERS: bool(false),
  /** AES-256-GCM key material for stored secrets, ≥ 32 characters. */
  GLOSSARY_ENCRYPTION_KEY: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, 'must be at least 32 characters').optional(),
  ),
  /**
   * Comma-separated origins that may frame /embed (`https://*.host` allowed, CSP's subdomain wildcard); unset or
   * empty allows every origin. Checked at start (an entry that is not one refuses to start), and read again on
   * every request (`readEmbedAncestors`), where an entry that is not one is ignored and logged.
   */
  GLOSSARY_EMBED_ANCESTORS: z.string().optional(),
  /** Initial value of the stored passwordLoginEnabled switch (first boot only). */
  PASSWORD_LOGIN_ENABLED: bool(true),
  /** Opens the oauth2-proxy capability (does not switch the mode; an admin chooses it, decision 018). */
  OAUTH2_PROXY_ENABLED: bool(false),
  /** Retention of the worker's hourly cleanup (pipeline/cleanup.ts): AI run records, audit rows, unreferenced attachments. */
  GLOSSARY_AI_RUN_RETENTION_DAYS: days(90),
  GLOSSARY_AUDIT_RETENTION_DAYS: days(365),
  GLOSSARY_ATTACHMENT_RETENTION_DAYS: days(30),
  /** Used by `glossary seed-admin` only. */
  GLOSSARY_ADMIN_EMAIL: z.preprocess(emptyAsUndefined, z.email('must be an email address').optional()),
  GLOSSARY_ADMIN_PASSWORD: z.preprocess(
    emptyAsUndefined,
    z.string().min(8, 'must be at least 8 characters').optional(),
  ),
  GLOSSARY_ADMIN_NAME: z.preprocess(emptyAsUndefined, z.string().max(200).optional()),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Rate limits: requests per window per bucket (docs/decisions/005-rate-limits.md). */
  GLOSSARY_RATE_LOGIN_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(10)),
  GLOSSARY_RATE_REGISTER_PER_HOUR: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(20)),
  GLOSSARY_RATE_CHAT_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(30)),
  /**
   * Downloads of `/api/v1/export/…` running at once in this web process, per caller (API key, or user of a
   * session) and in all; beyond them 429 (docs/decisions/019-sharing.md, "Round two (issue 26): bounded exports").
   */
  GLOSSARY_EXPORTS_PER_CALLER: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(2)),
  GLOSSARY_EXPORTS_PER_PROCESS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(4)),
  /** This installation's name in the offline sync bundles it exports; unset: the host name (decision 031). */
  GLOSSARY_SYNC_NAME: z.preprocess(emptyAsUndefined, z.string().trim().min(1).max(200).optional()),
  /**
   * `GET /metrics` (Prometheus text format) answers callers from these addresses (IPs or CIDR ranges, the client's
   * address by the trusted-proxy rule); default this machine only; `none`: only the token opens it.
   */
  GLOSSARY_METRICS_ALLOW: addressList('GLOSSARY_METRICS_ALLOW', ['127.0.0.1', '::1']),
  /** A bearer token (≥ 32 characters) that opens `GET /metrics` from any address; unset: addresses only. */
  GLOSSARY_METRICS_TOKEN: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, 'must be at least 32 characters').optional(),
  ),
  /** `glossary worker` serves its own `GET /metrics` on this port (same protection); unset: it serves none. */
  GLOSSARY_WORKER_METRICS_PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(65535).optional(),
  ),
  /** Automatic backups `glossary start` keeps in GLOSSARY_DATA_DIR/backups (taken before a pending migration). */
  GLOSSARY_BACKUP_KEEP: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(100).default(5)),
})

export type Env = z.infer<typeof EnvSchema>

/** Every variable this module reads (the README table and .env.example must list them). */
export const ENV_VARIABLES = Object.keys(EnvSchema.shape)

export class ConfigError extends Error {
  constructor(public readonly problems: { variable: string; message: string }[]) {
    super('Invalid configuration:\n' + problems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n'))
    this.name = 'ConfigError'
  }
}

export interface Config {
  env: Env['NODE_ENV']
  isProduction: boolean
  port: number
  host: string
  databaseUrl: string | undefined
  dataDir: string
  redisUrl: string | undefined
  allowedOrigins: string[]
  trustProxyHeaders: boolean
  encryptionKey: string | undefined
  embedAncestors: string[]
  passwordLoginEnabledInitial: boolean
  oauth2ProxyEnabled: boolean
  retentionDays: { aiRuns: number; audit: number; attachments: number }
  admin: { email: string | undefined; password: string | undefined; name: string | undefined }
  logLevel: Env['LOG_LEVEL']
  rateLimits: { loginPerMinute: number; registerPerHour: number; chatPerMinute: number }
  exportLimits: { perCaller: number; perProcess: number }
  syncName: string | undefined
  metrics: { allow: string[]; token: string | undefined; workerPort: number | undefined }
  backupKeep: number
}

/** Parses an environment (default `process.env`); throws `ConfigError` naming every bad variable. */
export function parseConfig(source: Record<string, string | undefined> = process.env): Config {
  const result = EnvSchema.safeParse(source)
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    )
  }
  const env = result.data
  const isProduction = env.NODE_ENV === 'production'
  const problems: { variable: string; message: string }[] = []
  let allowedOrigins = env.GLOSSARY_ALLOWED_ORIGINS
  if (allowedOrigins.length === 0) {
    if (isProduction) {
      problems.push({
        variable: 'GLOSSARY_ALLOWED_ORIGINS',
        message: 'must list at least one origin in production',
      })
    } else {
      // The zero-configuration default trusts only its own loopback addresses.
      allowedOrigins = [`http://localhost:${env.PORT}`, `http://127.0.0.1:${env.PORT}`]
    }
  }
  const embed = parseEmbedAncestors(env.GLOSSARY_EMBED_ANCESTORS)
  if (embed.invalid.length) {
    problems.push({
      variable: 'GLOSSARY_EMBED_ANCESTORS',
      message: `${embed.invalid.map((item) => JSON.stringify(item)).join(', ')}: each entry must be an origin like https://host[:port] or https://*.example.com[:port]`,
    })
  }
  if (isProduction && !env.GLOSSARY_ENCRYPTION_KEY) {
    problems.push({
      variable: 'GLOSSARY_ENCRYPTION_KEY',
      message: 'is required in production (at least 32 characters)',
    })
  }
  if (problems.length) throw new ConfigError(problems)
  return Object.freeze({
    env: env.NODE_ENV,
    isProduction,
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(env.GLOSSARY_DATA_DIR),
    redisUrl: env.REDIS_URL,
    allowedOrigins,
    trustProxyHeaders: env.GLOSSARY_TRUST_PROXY_HEADERS,
    encryptionKey: env.GLOSSARY_ENCRYPTION_KEY,
    embedAncestors: embed.origins,
    passwordLoginEnabledInitial: env.PASSWORD_LOGIN_ENABLED,
    oauth2ProxyEnabled: env.OAUTH2_PROXY_ENABLED,
    retentionDays: {
      aiRuns: env.GLOSSARY_AI_RUN_RETENTION_DAYS,
      audit: env.GLOSSARY_AUDIT_RETENTION_DAYS,
      attachments: env.GLOSSARY_ATTACHMENT_RETENTION_DAYS,
    },
    admin: {
      email: env.GLOSSARY_ADMIN_EMAIL,
      password: env.GLOSSARY_ADMIN_PASSWORD,
      name: env.GLOSSARY_ADMIN_NAME,
    },
    logLevel: env.LOG_LEVEL,
    rateLimits: {
      loginPerMinute: env.GLOSSARY_RATE_LOGIN_PER_MINUTE,
      registerPerHour: env.GLOSSARY_RATE_REGISTER_PER_HOUR,
      chatPerMinute: env.GLOSSARY_RATE_CHAT_PER_MINUTE,
    },
    exportLimits: {
      perCaller: env.GLOSSARY_EXPORTS_PER_CALLER,
      perProcess: env.GLOSSARY_EXPORTS_PER_PROCESS,
    },
    syncName: env.GLOSSARY_SYNC_NAME,
    metrics: {
      allow: env.GLOSSARY_METRICS_ALLOW,
      token: env.GLOSSARY_METRICS_TOKEN,
      workerPort: env.GLOSSARY_WORKER_METRICS_PORT,
    },
    backupKeep: env.GLOSSARY_BACKUP_KEEP,
  })
}

let current: Config | undefined

/** The process configuration, parsed on first use. */
export function getConfig(): Config {
  current ??= parseConfig()
  return current
}

/** Replaces the configuration (tests, and `glossary` sub-commands that read it before anything else). */
export function setConfig(next: Config): void {
  current = next
}

/**
 * A host GLOSSARY_EMBED_ANCESTORS may name (after the URL parser lowercased it and made IDNs punycode): DNS labels
 * or an IPv4 address, optionally behind CSP's one wildcard, a leading `*.` followed by at least two labels
 * (`*.example.com`, never `*`, `*.com` or `a*.example.com`), or a bracketed IPv6 address. Nothing else, so no
 * entry can carry `;` or a space into the Content-Security-Policy header.
 */
const EMBED_HOST = /^(?:(?:\*\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)+|[a-z0-9_-]+|\[[0-9a-f:.]+\])$/

/**
 * GLOSSARY_EMBED_ANCESTORS split into origins (`https://host[:port]`, http too for loopback and development,
 * `https://*.example.com[:port]` for every subdomain, as CSP's host-source reads it) and the entries that are
 * not one (a path, another scheme, a bare `*`, a typo). Blank entries (`a,,b`, a lone `,`) are skipped.
 */
export function parseEmbedAncestors(value: string | undefined): { origins: string[]; invalid: string[] } {
  const origins: string[] = []
  const invalid: string[] = []
  for (const item of (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const origin = embedAncestor(item)
    if (origin) origins.push(origin)
    else invalid.push(item)
  }
  return { origins, invalid }
}

function embedAncestor(item: string): string | undefined {
  // CSP's wildcard is a leading `*.` label; the rest must be an origin by the rule of GLOSSARY_ALLOWED_ORIGINS.
  const wildcard = /^https?:\/\/\*\./.test(item)
  const parsed = originList('GLOSSARY_EMBED_ANCESTORS').safeParse(wildcard ? item.replace('*', 'x') : item)
  if (!parsed.success || parsed.data.length !== 1) return undefined
  const url = new URL(parsed.data[0]!)
  const host = wildcard ? `*${url.hostname.slice(1)}` : url.hostname
  if (!EMBED_HOST.test(host)) return undefined
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`
}

/**
 * Whether GLOSSARY_EMBED_ANCESTORS is set to a list with no entry at all (`,`, ` , `): it is then read as
 * unset — every origin may frame /embed — which whoever wrote it hardly meant; the web process warns at start.
 */
export function embedAncestorsListNothing(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '' && value.split(',').every((item) => item.trim() === '')
}

/**
 * GLOSSARY_EMBED_ANCESTORS as it is now: read from the environment on every call (every /embed request), so
 * a changed value applies without a restart (spec part 9).
 */
export function readEmbedAncestors(): { origins: string[]; invalid: string[]; listsNothing: boolean } {
  const value = process.env.GLOSSARY_EMBED_ANCESTORS
  return { ...parseEmbedAncestors(value), listsNothing: embedAncestorsListNothing(value) }
}
