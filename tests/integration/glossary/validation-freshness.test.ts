import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { lookupTerms } from '#app/services/validation/lookup.server.ts'
import { FormStore, matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { em } from '#db/orm.ts'
import {
  createApiKey,
  createTerm,
  createUser,
  saveInAnotherProcess,
  type TestUser,
} from '#tests/factories.ts'
import { useApiServer } from '#tests/http.ts'
import { testEngine, useTestDb } from '#tests/setup/db.ts'

// A tool that saves a term and then validates must see it (issue 9, defect 8).
useTestDb()
const server = useApiServer()
const api = server.api

let editor: TestUser
let key: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  key = await createApiKey(editor.user.id, ['validate', 'read'])
  await createTerm({ name: 'Warmup Term' })
  await matcherCache.whenIdle()
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe('validation right after a save', () => {
  it('finds a term created by the request just before, and says which glossary version it used', async () => {
    const before = (await matcherCache.get()).version
    const created = await api('POST', '/terms', editor.sessionHeaders, {
      name: 'Quillon Frame',
      notations: [{ text: 'quill-frame', kind: 'deprecated', lang: null }],
    })
    expect(created.status).toBe(201)
    // No waiting here: the validation itself waits for the rebuild the save started.
    const res = await api('POST', '/validate', key, { text: 'Use the quill-frame.' })
    expect(res.status).toBe(200)
    expect(res.json.occurrences.map((o: { text: string }) => o.text)).toEqual(['quill-frame'])
    expect(res.json.glossary.version).toBeGreaterThan(before)
    expect(res.json.glossary.upToDate).toBe(true)

    const batch = await api('POST', '/validate/batch', key, { texts: [{ text: 'quill-frame' }] })
    expect(batch.json.results[0].occurrences).toHaveLength(1)
    expect(batch.json.glossary).toEqual(res.json.glossary)
    const sarif = await api('POST', '/validate/batch', key, {
      texts: [{ text: 'quill-frame' }],
      format: 'sarif',
    })
    expect(sarif.json.runs[0].results).toHaveLength(1)
    expect(sarif.json.runs[0].properties.glossary).toEqual(res.json.glossary)

    const lookup = await api('POST', '/terms/lookup', key, { texts: ['Quillon Frame'] })
    expect(lookup.json.results[0].found).toBe(true)
  })

  it('remembers a text the second time it is asked, frozen, and answers it from memory after that', async () => {
    await matcherCache.whenIdle()
    const ask = async () => (await lookupTerms({ texts: ['warmup term', 'nothing here'] })).results
    const [first, second, third] = [await ask(), await ask(), await ask()]
    expect(first.map((r) => Object.isFrozen(r))).toEqual([false, false])
    expect(second.map((r) => Object.isFrozen(r) && Object.isFrozen(r.matches))).toEqual([true, true])
    expect(third[0]).toBe(second[0])
    expect(third[1]).toBe(second[1])
    expect(first).toEqual(second)
    expect(first[0]!.found).toBe(true)
  })

  it("shares one frozen list of matches among the texts that find a notation's whole group", async () => {
    await matcherCache.whenIdle()
    const { results } = await lookupTerms({ texts: ['warmup term', 'WARMUP   TERM', 'Warmup Term'] })
    expect(results.map((r) => r.found)).toEqual([true, true, true])
    expect(results[1]!.matches).toBe(results[0]!.matches)
    expect(results[2]!.matches).toBe(results[0]!.matches)
    expect(Object.isFrozen(results[0]!.matches)).toBe(true)
  })

  it('never answers a lookup with a result remembered from before a change', async () => {
    const texts = ['Zephyr Gate', 'zephyr-gate', 'ZEPHYR GATE', 'Zephyr Gate']
    const lookup = async () => {
      const res = await api('POST', '/terms/lookup', key, { texts })
      expect(res.status).toBe(200)
      return res
    }
    const first = await lookup()
    expect(first.json.results.map((r: { found: boolean }) => r.found)).toEqual([false, false, false, false])
    // Asked again (remembered from the second time on): the same answer, byte for byte, with the text
    // repeated in place.
    expect((await lookup()).text).toBe(first.text)
    expect((await lookup()).text).toBe(first.text)

    const created = await api('POST', '/terms', editor.sessionHeaders, {
      name: 'Zephyr Gate',
      notations: [{ text: 'zephyr-gate', kind: 'deprecated', lang: null }],
    })
    expect(created.status).toBe(201)
    const found = await lookup()
    const findings = found.json.results.map((r: { matches: { finding: string; preferred: string }[] }) =>
      r.matches.map((m) => `${m.finding} → ${m.preferred}`),
    )
    expect(findings[0]).toEqual(['correct → Zephyr Gate'])
    expect(findings[1]).toEqual(['deprecated-notation → Zephyr Gate'])
    expect(findings[3]).toEqual(findings[0])
    expect(found.json.results[2].found).toBe(true)
    expect(JSON.parse((await lookup()).text)).toEqual(found.json)
    expect(JSON.parse((await lookup()).text)).toEqual(found.json)

    const admin = await createUser({ role: 'admin' })
    const removed = await api('DELETE', `/terms/${created.json.id}`, admin.sessionHeaders)
    expect(removed.status).toBe(204)
    expect((await lookup()).json.results.map((r: { found: boolean }) => r.found)).toEqual([
      false,
      false,
      false,
      false,
    ])
  })

  it("keeps a form's facts while its term is unchanged, and answers a renamed term with its new name", async () => {
    const created = await api('POST', '/terms', editor.sessionHeaders, {
      name: 'Orrery Mesh',
      notations: [{ text: 'orrery-mesh', kind: 'deprecated', lang: null }],
    })
    expect(created.status).toBe(201)
    const preferredOf = async () =>
      (await api('POST', '/terms/lookup', key, { texts: ['orrery-mesh'] })).json.results[0].matches[0]
        .preferred
    expect(await preferredOf()).toBe('Orrery Mesh')
    const before = await matcherCache.whenIdle()
    const facts = (await lookupTerms({ texts: ['orrery-mesh'] })).results[0]!.matches[0]

    // Another term's save: a new snapshot, the same payload and so the same (shared, frozen) facts.
    await createTerm({ name: 'Unrelated Save' })
    const after = await matcherCache.whenIdle()
    expect(after).not.toBe(before)
    expect(after!.byKey.get('orrery-mesh')![0]).toBe(before!.byKey.get('orrery-mesh')![0])
    expect((await lookupTerms({ texts: ['orrery-mesh'] })).results[0]!.matches[0]).toBe(facts)

    // Its own term renamed: new payloads, so the facts say the new name.
    const renamed = await api('PATCH', `/terms/${created.json.id}`, editor.sessionHeaders, {
      baseRevision: created.json.revision,
      name: 'Orrery Lattice',
    })
    expect(renamed.status).toBe(200)
    expect(await preferredOf()).toBe('Orrery Lattice')
  })

  it('waits at most the bound, then answers with the old matcher and says it is not up to date', async () => {
    const old = await matcherCache.whenIdle()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const build = FormStore.prototype.build
    // The next compile hangs until released, as a very large glossary's would.
    vi.spyOn(FormStore.prototype, 'build').mockImplementationOnce(async function (this: FormStore, ...args) {
      await gate
      return build.apply(this, args)
    })
    await createTerm({ name: 'Slowly Compiled' })
    const answer = await matcherCache.getFresh({ maxWaitMs: 100 })
    expect(answer.upToDate).toBe(false)
    expect(answer.snapshot.version).toBe(old!.version)
    release()
    const fresh = await matcherCache.getFresh({ maxWaitMs: 5000 })
    expect(fresh.upToDate).toBe(true)
    expect(fresh.snapshot.version).toBeGreaterThan(old!.version)
  })

  it('on a shared PostgreSQL, notices a save of another process at once through the glossary version', async () => {
    const before = await matcherCache.whenIdle()
    const [{ id }] = await em().execute<{ id: string }[]>(`select id from terms where name = 'Warmup Term'`)
    // Another process's save, played in SQL: no in-process event, only the version counter moves.
    await saveInAnotherProcess(id, 'Warmbit')
    const { snapshot, upToDate } = await matcherCache.getFresh({ sharedDatabase: true })
    expect(upToDate).toBe(true)
    expect(snapshot.version).toBeGreaterThan(before!.version)
    expect(snapshot.byKey.has('warmbit')).toBe(true)
  })

  // PostgreSQL delivers no commit notification to this process: there the test above is the rule.
  it.skipIf(testEngine() === 'postgres')(
    'on the embedded database, learns of a save made outside the app at its commit, without polling',
    async () => {
      const before = await matcherCache.whenIdle()
      await createTerm({ name: 'Notice Term' })
      await matcherCache.whenIdle()
      const [{ id }] = await em().execute<{ id: string }[]>(`select id from terms where name = 'Notice Term'`)
      // A save that bypasses the in-process event: only the trigger's `glossary_changed` notification tells.
      await saveInAnotherProcess(id, 'Noticebit')
      await matcherCache.get()
      const after = await matcherCache.whenIdle()
      expect(after!.version).toBeGreaterThan(before!.version)
      expect(after!.byKey.has('noticebit')).toBe(true)
    },
  )
})
