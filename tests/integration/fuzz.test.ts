import path from 'node:path'
import { Writable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '#app/api/registry.server.ts'
import { STATUS } from '#app/lib/errors.server.ts'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { createApiKey, createTerm, createUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * A bounded, seeded fuzz of the whole API (issue 9): every operation of the OpenAPI document, read from the
 * document as a third-party client would, is driven with malformed path segments, query values and bodies
 * under five kinds of caller. Every answer must be below 500, every error must be the spec's envelope with
 * the status of its code, no body may hold a stack trace or a source path, and no body or log line may hold
 * a password, a password hash, a session token or an API key token of the callers.
 *
 * Seeded and bounded: RUNS_PER_OPERATION inputs per operation, the same ones on every run; a failure prints
 * the shrunk input and the seed. The number of requests it sends is printed.
 */

useTestDb()
const server = useApiServer()

const SEED = 20261123
const RUNS_PER_OPERATION = 30
const ROOT = path.resolve(import.meta.dirname, '../..')

interface Operation {
  method: string
  path: string
  operationId: string
  pathParams: string[]
  queryParams: string[]
  bodySchema: Json | undefined
  example: Json | undefined
  rawBody: boolean
}
interface Caller {
  name: string
  headers: Record<string, string>
}

const logLines: string[] = []
const secrets: string[] = []
const callers: Caller[] = []
let known: string[] = []
let requests = 0

function operations(): Operation[] {
  const doc = openApiDocument() as Json
  const out: Operation[] = []
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const params: Json[] = op.parameters ?? []
      const json = op.requestBody?.content?.['application/json']
      out.push({
        method: method.toUpperCase(),
        path: template,
        operationId: op.operationId,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: json?.schema,
        example: json?.schema?.example ?? json?.example,
        rawBody: Boolean(op.requestBody) && !json,
      })
    }
  }
  return out
}

beforeAll(async () => {
  setLogDestination(
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean))
        done()
      },
    }),
  )
  const viewer = await createUser({ role: 'viewer', password: 'viewer-fuzz-password' })
  const editor = await createUser({ role: 'editor', password: 'editor-fuzz-password' })
  const admin = await createUser({ role: 'admin', password: 'admin-fuzz-password' })
  const writeKey = await createApiKey(editor.user.id, ['read', 'write', 'validate'])
  const readKey = await createApiKey(viewer.user.id, ['read'])
  callers.push(
    { name: 'anonymous', headers: {} },
    { name: 'viewer session', headers: viewer.sessionHeaders },
    { name: 'admin session', headers: admin.sessionHeaders },
    { name: 'editor write key', headers: writeKey },
    { name: 'viewer read key', headers: readKey },
  )
  for (const user of [viewer, editor, admin]) {
    secrets.push(user.password, user.sessionHeaders.cookie!.split('=')[1]!)
  }
  secrets.push(writeKey.authorization!.slice(7), readKey.authorization!.slice(7))
  const term = await createTerm({
    name: 'Fuzz Target',
    notations: [{ text: 'fuzz-t', kind: 'deprecated', lang: null }],
  })
  // Real identifiers among the generated values, so some requests get past "not found" into the services.
  known = [term.id, term.slug, admin.user.id, viewer.user.id, '1', '2']
})

afterAll(() => {
  setLogDestination(undefined)
  console.log(
    `API fuzz: ${requests} requests over ${operations().length} operations × ${callers.length} callers`,
  )
})

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '%',
  '%zz',
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '${7*7}',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  '2026-13-45',
  '00000000-0000-0000-0000-000000000000',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﬁ ＡＰＩ',
  '용어\u200b',
  'x'.repeat(5000),
]

const text = () =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.constantFrom(...ODD_STRINGS),
    // Read at generation time: `known` is filled once the database has rows.
    fc.nat({ max: 5 }).map((i) => known[i] ?? ''),
  )

const jsonValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text(), tie('value'), { maxKeys: 3 }),
  ),
})).value

/** Percent-encodes a generated value; lone surrogates become the bytes of an invalid UTF-8 sequence. */
function encode(value: string): string {
  if (value.startsWith('%')) return value // already "encoded", possibly malformed: sent as it is
  let out = ''
  for (const ch of value) {
    out += ch.isWellFormed() ? encodeURIComponent(ch) : '%ED%A0%80'
  }
  return out
}

type BodyPlan =
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; text: string; contentType: string | undefined }
  | { kind: 'none' }

function bodyPlan(op: Operation): fc.Arbitrary<BodyPlan> {
  const props: string[] = Object.keys(op.bodySchema?.properties ?? {})
  const fromSchema = fc
    .tuple(
      ...props.map(() => fc.option(jsonValue, { freq: 2 })),
      fc.dictionary(text(), jsonValue, { maxKeys: 2 }),
    )
    .map((values) => {
      const extra = values.pop() as Record<string, unknown>
      const body: Record<string, unknown> = { ...extra }
      props.forEach((p, i) => {
        if (values[i] !== null) body[p] = values[i]
      })
      return { kind: 'json', value: body } as BodyPlan
    })
  const mutatedExample =
    op.example && typeof op.example === 'object'
      ? fc
          .tuple(fc.constantFrom(...Object.keys(op.example)), jsonValue)
          .map(([key, value]) => ({ kind: 'json', value: { ...op.example, [key]: value } }) as BodyPlan)
      : fromSchema
  const raw = fc.record({
    kind: fc.constant('raw' as const),
    text: fc.oneof(fc.constantFrom('{', '{"a":', 'nul\u0000', '[]', '"just a string"', '\uFEFF{}'), text()),
    contentType: fc.constantFrom(
      undefined,
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'image/png',
    ),
  })
  return fc.oneof(
    { arbitrary: fromSchema, weight: 4 },
    { arbitrary: mutatedExample, weight: 4 },
    { arbitrary: jsonValue.map((value) => ({ kind: 'json', value }) as BodyPlan), weight: 1 },
    { arbitrary: raw, weight: 2 },
    { arbitrary: fc.constant({ kind: 'none' } as BodyPlan), weight: 1 },
  )
}

async function send(
  op: Operation,
  caller: Caller,
  pathValues: string[],
  query: [string, string][],
  plan: BodyPlan,
) {
  let url = op.path
  op.pathParams.forEach((name, i) => (url = url.replace(`{${name}}`, encode(pathValues[i]!))))
  const search = query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')
  const headers: Record<string, string> = { ...caller.headers }
  let body: string | undefined
  if (plan.kind === 'json') {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(plan.value)
  } else if (plan.kind === 'raw') {
    if (plan.contentType) headers['content-type'] = plan.contentType
    body = plan.text
  }
  requests++
  const res = await fetch(`${server.url()}/api/v1${url}${search ? `?${search}` : ''}`, {
    method: op.method,
    headers,
    body: op.method === 'GET' ? undefined : body,
  })
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() }
}

function checkAnswer(answer: { status: number; contentType: string; text: string }, label: string): void {
  expect(answer.status, `${label}: ${answer.text.slice(0, 300)}`).toBeLessThan(500)
  if (answer.status >= 400) {
    expect(answer.contentType, label).toMatch(/^application\/json/)
    const error = JSON.parse(answer.text).error
    expect(typeof error?.code, label).toBe('string')
    expect(typeof error?.message, label).toBe('string')
    expect(STATUS[error.code as keyof typeof STATUS], `${label}: code ${error.code}`).toBe(answer.status)
  }
  expect(answer.text, label).not.toMatch(/\n\s+at \S+ \(|node_modules|\.ts:\d+|\.js:\d+:\d+/)
  expect(answer.text, label).not.toContain(ROOT)
  expect(answer.text, label).not.toContain('$argon2')
  for (const secret of secrets) expect(answer.text.includes(secret), `${label}: holds a secret`).toBe(false)
}

describe('API fuzz', () => {
  it('answers every malformed request to every operation below 500, in the envelope, without leaks', async () => {
    const ops = operations()
    expect(ops.length).toBeGreaterThan(50)
    for (const [index, op] of ops.entries()) {
      const property = fc.asyncProperty(
        fc.constantFrom(...callers),
        fc.array(text(), { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
        fc.array(fc.tuple(fc.oneof(fc.constantFrom(...op.queryParams, 'q'), text()), text()), {
          maxLength: 4,
        }),
        bodyPlan(op),
        async (caller, pathValues, query, plan) => {
          // Signing out would turn the session callers anonymous for the rest of the run.
          if (op.operationId === 'logout' && caller.name.includes('session')) return
          const answer = await send(op, caller, pathValues, query, plan)
          checkAnswer(answer, `${op.method} ${op.path} as ${caller.name}`)
        },
      )
      await fc.assert(property, { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true })
    }
    const log = logLines.join('\n')
    expect(log).not.toContain('$argon2')
    for (const secret of secrets) expect(log.includes(secret), 'a secret reached the log').toBe(false)
  }, 240_000)
})
