import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENDPOINTS, openApiDocument } from '#app/api/registry.server.ts'
import type { Access } from '#app/lib/auth-gate.server.ts'
import { createSession, SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { em } from '#db/orm.ts'
import type { Role, Scope } from '#domain/identity.ts'
import { createApiKey, createTerm, createUser, TEST_ORIGIN, type TestUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * The role and scope matrix (issue 26: "keep the role matrix in the suite"). Every operation of the OpenAPI
 * document, read from the document as a client would, is called by every kind of caller: nobody, a viewer,
 * an editor and an admin session, and API keys holding only `read`, only `write`, only `validate`, or all
 * three (owned by an admin, so a key never borrows its owner's role). What each caller may do is derived from
 * the `access` the endpoint table declares (the auth gate's rule, app/lib/auth-gate.server.ts), never from
 * what the service answers:
 *
 * - a caller the access refuses gets 401 (nobody) or 403 (anyone else) in the error envelope, never 2xx, and
 *   the database is unchanged afterwards (every table compared, less the use stamps authentication writes);
 * - a caller the access admits never gets 401 or 403, nor a 5xx.
 *
 * The input is harmless: a body that no operation's schema accepts (a JSON string), ids that name nothing,
 * so an admitted caller ends at 400 or 404, or at a read. The number of checked cells is printed.
 */

useTestDb()
const server = useApiServer()

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 }

type Caller =
  | { name: string; kind: 'anonymous' }
  | { name: string; kind: 'session'; role: Role; user: TestUser }
  | { name: string; kind: 'key'; scopes: Scope[]; headers: Record<string, string> }

interface Operation {
  method: string
  path: string
  operationId: string
  security: Json[]
  requiredScopes: string[] | undefined
  description: string
  pathParams: string[]
  jsonBody: boolean
  rawBody: boolean
  access: Access
}

const callers: Caller[] = []
let cells = 0

function operations(): Operation[] {
  const doc = openApiDocument() as Json
  const byId = new Map(ENDPOINTS.map((e) => [e.operationId, e]))
  const out: Operation[] = []
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const declared = byId.get(op.operationId)
      if (!declared) throw new Error(`${op.operationId} is in the document but not in the endpoint table`)
      const params: Json[] = op.parameters ?? []
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        security: op.security,
        requiredScopes: op['x-required-scopes'],
        description: op.description ?? '',
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        jsonBody: Boolean(op.requestBody?.content?.['application/json']),
        rawBody: Boolean(op.requestBody) && !op.requestBody?.content?.['application/json'],
        access: declared.access,
      })
    }
  }
  return out
}

/** What the declared access says of a caller: admitted, or the status of its refusal. */
function expected(access: Access, caller: Caller): 'admitted' | 401 | 403 {
  if (access.kind === 'public') return 'admitted'
  if (caller.kind === 'anonymous') return 401
  if (caller.kind === 'key') {
    if (access.kind === 'session') return 403
    return caller.scopes.includes(access.scope) ? 'admitted' : 403
  }
  return RANK[caller.role] >= RANK[access.minRole ?? 'viewer'] ? 'admitted' : 403
}

/** A value for a path parameter that names nothing: an unknown UUID, revision 1, or an unknown key. */
function paramValue(name: string): string {
  if (/^(revision|from|to)$/.test(name)) return '1'
  if (/id$/i.test(name) && name !== 'idOrSlug') return crypto.randomUUID()
  return 'role-matrix-nothing'
}

/**
 * Columns that authentication itself writes on any call, by table (a key's last use, a session's sliding
 * expiry); every other column of every table must be unchanged by a refused call.
 */
const USE_STAMPS: Record<string, string[]> = { api_keys: ['last_used_at'], sessions: ['expires_at'] }

/** One fingerprint per table of the database: a digest of all its rows, less the use stamps. */
async function snapshot(): Promise<Record<string, string>> {
  const tables = await em().execute<{ name: string }[]>(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  )
  const rows = await em().execute<{ name: string; digest: string | null }[]>(
    tables
      .map(({ name }) => {
        const row = `(to_jsonb(t) - '{${(USE_STAMPS[name] ?? []).join(',')}}'::text[])::text`
        return `select '${name}' as name, md5(string_agg(${row}, '|' order by ${row})) as digest from "${name}" t`
      })
      .join(' union all '),
  )
  return Object.fromEntries(rows.map((r) => [r.name, r.digest ?? '']))
}

async function headersOf(caller: Caller, op: Operation): Promise<Record<string, string>> {
  if (caller.kind === 'anonymous') return {}
  if (caller.kind === 'key') return caller.headers
  // Signing out ends the session it is sent with: sign out a session of the same account made for it.
  if (op.operationId === 'logout') {
    const { token } = await createSession(caller.user.user.id)
    return { cookie: `${SESSION_COOKIE}=${token}`, origin: TEST_ORIGIN }
  }
  return caller.user.sessionHeaders
}

async function call(op: Operation, caller: Caller) {
  let url = op.path
  for (const name of op.pathParams) url = url.replace(`{${name}}`, encodeURIComponent(paramValue(name)))
  const headers = { ...(await headersOf(caller, op)) }
  let body: string | undefined
  if (op.jsonBody) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify('not what any operation accepts')
  } else if (op.rawBody) {
    headers['content-type'] = 'application/octet-stream'
    body = ''
  }
  cells++
  const res = await fetch(`${server.url()}/api/v1${url}`, { method: op.method, headers, body })
  const text = await res.text() // exports stream: read to the end
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text }
}

beforeAll(async () => {
  // Accounts linked to single sign-on, with OIDC configured, so `POST /account/sso-refresh` admits them as the
  // harmless call it is (a password account is refused by that operation's own rule, not by the gate).
  const viewer = await createUser({ role: 'viewer', authType: 'sso' })
  const editor = await createUser({ role: 'editor', authType: 'sso' })
  const admin = await createUser({ role: 'admin', authType: 'sso' })
  const sso = await fetch(`${server.url()}/api/v1/sso`, {
    method: 'PUT',
    headers: { ...admin.sessionHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({
      mode: 'oidc',
      issuer: 'https://idp.role-matrix.test',
      clientId: 'glossary',
      authorizationEndpoint: 'https://idp.role-matrix.test/auth',
      tokenEndpoint: 'https://idp.role-matrix.test/token',
      jwksUri: 'https://idp.role-matrix.test/jwks',
    }),
  })
  expect(sso.status, await sso.text()).toBe(200)
  callers.push(
    { name: 'anonymous', kind: 'anonymous' },
    { name: 'viewer session', kind: 'session', role: 'viewer', user: viewer },
    { name: 'editor session', kind: 'session', role: 'editor', user: editor },
    { name: 'admin session', kind: 'session', role: 'admin', user: admin },
  )
  for (const scopes of [['read'], ['write'], ['validate'], ['read', 'write', 'validate']] as Scope[][]) {
    callers.push({
      name: `key ${scopes.join('+')}`,
      kind: 'key',
      scopes,
      headers: await createApiKey(admin.user.id, scopes),
    })
  }
})

afterAll(() => {
  console.log(`Role matrix: ${cells} cells (${operations().length} operations × ${callers.length} callers)`)
})

describe('role and scope matrix', () => {
  it('the document and the endpoint table agree on every operation and on who may call it', () => {
    const ops = operations()
    expect(ops.length).toBe(ENDPOINTS.length)
    for (const op of ops) {
      const label = `${op.method} ${op.path}`
      const { access } = op
      if (access.kind === 'public') {
        expect(op.security, label).toEqual([])
      } else if (access.kind === 'session') {
        expect(op.security, label).toEqual([{ cookieSession: [] }])
        expect(op.requiredScopes, label).toBeUndefined()
        if (access.minRole) expect(op.description, label).toContain(`role ${access.minRole} or higher`)
      } else {
        expect(op.security, label).toEqual([{ cookieSession: [] }, { apiKey: [] }])
        expect(op.requiredScopes, label).toEqual([access.scope])
      }
    }
  })

  it('refuses every caller the declared access refuses (401/403, no effect) and admits every other', async () => {
    // The fingerprint sees writes: a term saved between two snapshots changes its tables.
    const empty = await snapshot()
    await createTerm({ name: 'Role Matrix' })
    const withTerm = await snapshot()
    expect(Object.keys(withTerm).filter((table) => withTerm[table] !== empty[table])).toContain('terms')

    const failures: string[] = []
    for (const op of operations()) {
      const admitted: Caller[] = []
      const before = await snapshot()
      for (const caller of callers) {
        const outcome = expected(op.access, caller)
        if (outcome === 'admitted') {
          admitted.push(caller)
          continue
        }
        const answer = await call(op, caller)
        const label = `${op.method} ${op.path} as ${caller.name}`
        const code = outcome === 401 ? 'unauthorized' : 'forbidden'
        if (answer.status !== outcome) failures.push(`${label}: ${answer.status}, expected ${outcome}`)
        else if (
          !answer.contentType.startsWith('application/json') ||
          JSON.parse(answer.text).error?.code !== code
        )
          failures.push(`${label}: not the ${code} envelope: ${answer.text.slice(0, 200)}`)
      }
      const after = await snapshot()
      const changed = Object.keys(after).filter((table) => after[table] !== before[table])
      if (changed.length)
        failures.push(`${op.method} ${op.path}: refused calls changed ${changed.join(', ')}`)
      for (const caller of admitted) {
        const answer = await call(op, caller)
        const label = `${op.method} ${op.path} as ${caller.name}`
        if (answer.status === 401 || answer.status === 403 || answer.status >= 500) {
          failures.push(
            `${label}: admitted by its access, answered ${answer.status}: ${answer.text.slice(0, 200)}`,
          )
        }
      }
    }
    expect(failures).toEqual([])
    expect(cells).toBe(operations().length * callers.length)
  }, 60_000)
})
