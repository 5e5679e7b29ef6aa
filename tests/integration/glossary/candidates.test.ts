import { beforeAll, describe, expect, it } from 'vitest'
import { findCandidates, whenCandidatesIdle } from '#app/services/candidates/candidates.server.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()
const api = server.api

let editor: TestUser
let validateKey: Record<string, string>
let readKey: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  validateKey = await createApiKey(editor.user.id, ['validate'])
  readKey = await createApiKey(editor.user.id, ['read'])
  await createTerm({ name: 'API', notations: [{ text: 'REST API', kind: 'admitted', lang: null }] })
  await matcherCache.whenIdle()
})

const texts = (items: { text: string }[]) => items.map((c) => c.text)

describe('candidate gathering', () => {
  it('finds repeated acronyms and capitalized phrases, not known notations or one-off words', () => {
    const known = new Set(['api'])
    const found = findCandidates(
      [
        'The SLA covers the API. Our SLA는 99.9%. The Data Mesh Platform feeds Data Mesh Platform users.',
        'API API API. K8S2 once. The Big Thing and The Big Thing. OK',
      ],
      known,
    )
    expect(found.map((f) => [f.text, f.count])).toEqual([
      ['SLA', 2],
      ['Data Mesh Platform', 2],
      ['Big Thing', 2],
    ])
    expect(found[0]!.context).toContain('The SLA covers')
  })

  it('validated texts feed candidates with counts and sightings; dismiss hides them for good', async () => {
    const text = 'Our SLA is tight. The SLA는 중요하다. GDPR and GDPR again. API and REST API are terms.'
    await api('POST', '/validate', validateKey, { text })
    await api('POST', '/validate', validateKey, { text: 'SLA once more, SLA twice.' })
    await whenCandidatesIdle()
    const list = await api('GET', '/candidates', readKey)
    expect(list.status).toBe(200)
    expect(texts(list.json.items)).toEqual(['SLA', 'GDPR'])
    const sla = list.json.items[0]
    expect(sla.count).toBe(4)
    expect(sla.sightings).toHaveLength(2)
    expect(sla.sightings[0]).toMatchObject({ source: 'validate' })
    expect(sla.sightings[0].context).toContain('SLA twice')

    const gdpr = list.json.items[1]
    expect((await api('POST', `/candidates/${gdpr.id}/dismiss`, readKey)).status).toBe(403)
    const dismissed = await api('POST', `/candidates/${gdpr.id}/dismiss`, editor.sessionHeaders)
    expect(dismissed.json.status).toBe('dismissed')
    await api('POST', '/validate', validateKey, { text: 'GDPR GDPR GDPR' })
    await whenCandidatesIdle()
    expect(texts((await api('GET', '/candidates', readKey)).json.items)).toEqual(['SLA'])
    const hidden = await api('GET', '/candidates?status=dismissed', readKey)
    expect(hidden.json.items).toHaveLength(1)
    expect(hidden.json.items[0].count).toBe(2)
  })

  it('promote creates a needs_completion term, and the candidate leaves the open list', async () => {
    const sla = (await api('GET', '/candidates?q=sla', readKey)).json.items[0]
    const promoted = await api('POST', `/candidates/${sla.id}/promote`, editor.sessionHeaders, {
      definition: '',
    })
    expect(promoted.status).toBe(201)
    expect(promoted.json.term).toMatchObject({
      name: 'SLA',
      slug: 'sla',
      status: 'needs_completion',
      revision: 1,
    })
    expect(promoted.json.candidate).toMatchObject({
      status: 'promoted',
      promotedTermId: promoted.json.term.id,
    })
    expect((await api('GET', '/candidates', readKey)).json.items).toEqual([])
    const again = await api('POST', `/candidates/${sla.id}/promote`, editor.sessionHeaders)
    expect(again.status).toBe(409)
    // Now a term: validating finds it and no longer gathers it.
    await matcherCache.whenIdle()
    const res = await api('POST', '/validate', validateKey, { text: 'SLA SLA' })
    expect(res.json.occurrences.map((o: Json) => o.term.name)).toEqual(['SLA', 'SLA'])
    expect(
      (await api('POST', `/candidates/00000000-0000-4000-8000-000000000000/dismiss`, editor.sessionHeaders))
        .status,
    ).toBe(404)
  })
})
