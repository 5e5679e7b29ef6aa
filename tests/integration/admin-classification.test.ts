import { beforeAll, describe, expect, it } from 'vitest'
import { classificationEn, classificationKo } from '#app/lib/messages/classification.ts'
import * as classificationPage from '#app/routes/admin.classification.tsx'
import * as newTermPage from '#app/routes/terms.new.tsx'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { getTerm } from '#app/services/terms/read.server.ts'
import { em } from '#db/orm.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer, type PageAnswer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The classification page (issue 27, item 2) over real HTTP, as a browser without JavaScript uses it: plain
 * form posts, a redirect with a flash message after each action, refused input shown next to its field. And
 * the term editor's word when the scheme is empty.
 */

const pages = usePageServer({
  'routes/admin.classification': { path: 'admin/classification', module: classificationPage },
  'routes/terms.new': { path: 'terms/new', module: newTermPage },
})

const PAGE = '/admin/classification'

let admin: TestUser
let editor: TestUser
let viewer: TestUser

beforeAll(async () => {
  admin = await createUser({ role: 'admin', name: 'Ada Admin' })
  editor = await createUser({ role: 'editor' })
  viewer = await createUser({ role: 'viewer' })
})

/** The `name=value` pairs of an answer's Set-Cookie lines, as a browser sends them back. */
function cookiesOf(answer: PageAnswer): string {
  return answer.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
}

/** Follows a redirect as a browser does: the session and the cookies the answer set. */
async function follow(answer: PageAnswer, user: TestUser, extraCookie = ''): Promise<PageAnswer> {
  expect(answer.status, pageText(answer.html)).toBe(302)
  const cookie = [user.sessionHeaders.cookie, cookiesOf(answer), extraCookie].filter(Boolean).join('; ')
  return pages.get(answer.location!, { cookie })
}

const post = (fields: Record<string, string>, user: TestUser = admin) =>
  pages.post(PAGE, fields, user.sessionHeaders)

/** The message of the field with this id (the span the input's aria-describedby names). */
function errorOf(html: string, id: string): string | undefined {
  const input = new RegExp(`<input[^>]*id="${id}"[^>]*>`).exec(html)?.[0]
  expect(input, `no input #${id}`).toBeDefined()
  if (!/aria-invalid="true"/.test(input!)) return undefined
  expect(input).toMatch(new RegExp(`aria-describedby="[^"]*${id}-error`))
  return new RegExp(`<span id="${id}-error" class="error">([^<]*)</span>`).exec(html)?.[1]
}

const create = (kind: 'domain' | 'category', key: string, nameEn: string, nameKo: string, sort = '') =>
  post({ intent: 'create', kind, key, nameEn, nameKo, sort })

describe('who may use the page', () => {
  it('a visitor is sent to sign in; a viewer and an editor get 403 on the page and on its form', async () => {
    const anonymous = await pages.get(PAGE)
    expect(anonymous.status).toBe(302)
    expect(anonymous.location).toBe(`/login?redirectTo=${encodeURIComponent(PAGE)}`)
    for (const user of [viewer, editor]) {
      expect((await pages.get(PAGE, user.sessionHeaders)).status).toBe(403)
      const refused = await post(
        { intent: 'create', kind: 'domain', key: 'x', nameEn: 'X', nameKo: 'X' },
        user,
      )
      expect(refused.status).toBe(403)
    }
    expect((await listClassification({ kind: 'domain' })).items).toEqual([])
    const foreign = await pages.post(
      PAGE,
      { intent: 'create', kind: 'domain', key: 'x', nameEn: 'X', nameKo: 'X' },
      { ...admin.sessionHeaders, origin: 'https://evil.example' },
    )
    expect(foreign.status).toBe(403)
  })
})

describe('an empty scheme', () => {
  it('the page says there are none yet; the term editor links an admin to the page and tells others to ask', async () => {
    const page = await pages.get(PAGE, admin.sessionHeaders)
    expect(page.status).toBe(200)
    const text = pageText(page.html)
    expect(text).toContain(classificationEn['classification.title'])
    expect(text).toContain(classificationEn['classification.domain.none'])
    expect(text).toContain(classificationEn['classification.category.none'])

    const forAdmin = await pages.get('/terms/new', admin.sessionHeaders)
    expect(forAdmin.status).toBe(200)
    const hint = /<span class="muted" data-testid="classification-empty">[\s\S]*?<\/span>/.exec(forAdmin.html)
    expect(hint?.[0]).toMatch(
      new RegExp(`<a [^>]*href="${PAGE}">${classificationEn['classification.editorAdd']}</a>`),
    )

    const forEditor = await pages.get('/terms/new', editor.sessionHeaders)
    expect(forEditor.html).toContain('data-testid="classification-empty"')
    expect(forEditor.html).not.toContain(`href="${PAGE}"`)
    expect(pageText(forEditor.html)).toContain(classificationEn['classification.editorAsk'])
  })
})

describe('adding, editing and deleting without JavaScript', () => {
  it('adds a domain and a business category; each redirect shows a flash, in the reader’s language', async () => {
    const added = await create('domain', 'payments', 'Payments', '결제', '10')
    const page = await follow(added, admin)
    expect(page.status).toBe(200)
    expect(page.html).toMatch(/class="flash flash-success" role="status">Domain “Payments” added\./)
    const row = /<tr id="domain-payments"[^>]*>[\s\S]*?<\/tr>/.exec(page.html)?.[0]
    expect(pageText(row!)).toMatch(/Payments 결제 payments 10 0 terms/)

    const category = await create('category', 'retail', 'Retail banking', '소매 금융')
    const korean = await follow(category, admin, 'lang=ko')
    expect(pageText(korean.html)).toContain('업무 분류 “소매 금융”을(를) 추가했습니다.')
    expect(korean.html).toContain('<tr id="category-retail"')

    expect((await listClassification({ kind: 'domain' })).items).toMatchObject([
      { key: 'payments', nameEn: 'Payments', nameKo: '결제', sort: 10 },
    ])
    expect((await listClassification({ kind: 'category' })).items).toMatchObject([
      { key: 'retail', nameEn: 'Retail banking', nameKo: '소매 금융', sort: 0 },
    ])
  })

  it('refused input comes back with the message next to its field and the typed values kept', async () => {
    const empty = await create('domain', '', 'Platform', '플랫폼')
    expect(empty.status).toBe(400)
    expect(errorOf(empty.html, 'add-domain-key')).toBe(classificationEn['classification.keyRule'])
    expect(errorOf(empty.html, 'add-domain-nameEn')).toBeUndefined()
    expect(empty.html).toMatch(/id="add-domain-nameEn"[^>]*value="Platform"/)
    // the other kind's form is untouched
    expect(errorOf(empty.html, 'add-category-key')).toBeUndefined()

    const badKey = await create('domain', 'Not A Key', 'Platform', '플랫폼')
    expect(badKey.status).toBe(400)
    expect(errorOf(badKey.html, 'add-domain-key')).toBe(classificationEn['classification.keyRule'])
    expect(badKey.html).toMatch(/id="add-domain-key"[^>]*value="Not A Key"/)

    const noName = await create('category', 'ops', '', '운영')
    expect(noName.status).toBe(400)
    expect(errorOf(noName.html, 'add-category-nameEn')).toBeTruthy()
    expect(errorOf(noName.html, 'add-category-key')).toBeUndefined()

    const duplicate = await create('domain', 'payments', 'Payments again', '결제 2')
    expect(duplicate.status).toBe(409)
    expect(errorOf(duplicate.html, 'add-domain-key')).toBe(classificationEn['classification.keyTaken'])
    const duplicateKo = await pages.post(
      PAGE,
      { intent: 'create', kind: 'domain', key: 'payments', nameEn: 'P', nameKo: '결제' },
      { ...admin.sessionHeaders, cookie: `${admin.sessionHeaders.cookie}; lang=ko` },
    )
    expect(errorOf(duplicateKo.html, 'add-domain-key')).toBe(classificationKo['classification.keyTaken'])
    // the refused form's address ends in its anchor, so a browser without JavaScript shows the form
    expect(duplicate.html).toContain(`action="${PAGE}#add-domain"`)
    expect((await listClassification({ kind: 'domain' })).items.map((i) => i.key)).toEqual(['payments'])
  })

  it('edits a domain: "Edit" turns its row into a form; saving renames and re-sorts it, with a flash', async () => {
    const list = await pages.get(PAGE, admin.sessionHeaders)
    expect(list.html).toContain(`href="/admin/classification?edit=domain:payments#domain-payments"`)
    const form = await pages.get(`${PAGE}?edit=domain:payments`, admin.sessionHeaders)
    expect(form.html).toMatch(/id="domain-payments-nameEn"[^>]*value="Payments"/)
    expect(form.html).toMatch(/id="domain-payments-sort"[^>]*value="10"/)

    const refused = await pages.post(
      `${PAGE}?edit=domain:payments`,
      { intent: 'update', kind: 'domain', key: 'payments', nameEn: '  ', nameKo: '결제', sort: '10' },
      admin.sessionHeaders,
    )
    expect(refused.status).toBe(400)
    expect(errorOf(refused.html, 'domain-payments-nameEn')).toBeTruthy()
    expect(errorOf(refused.html, 'domain-payments-nameKo')).toBeUndefined()

    const saved = await pages.post(
      `${PAGE}?edit=domain:payments`,
      {
        intent: 'update',
        kind: 'domain',
        key: 'payments',
        nameEn: 'Payments and cards',
        nameKo: '결제·카드',
        sort: '5',
      },
      admin.sessionHeaders,
    )
    expect(saved.location).toBe(PAGE)
    const page = await follow(saved, admin)
    expect(pageText(page.html)).toContain('Domain “Payments and cards” saved.')
    expect(page.html).not.toContain('id="domain-payments-nameEn"') // back to the list
    expect((await listClassification({ kind: 'domain' })).items).toMatchObject([
      { key: 'payments', nameEn: 'Payments and cards', nameKo: '결제·카드', sort: 5 },
    ])
  })

  it('deletes an unused entry at once; one that terms carry only after confirming, with their number', async () => {
    expect((await create('domain', 'unused', 'Unused', '미사용')).status).toBe(302)
    const gone = await post({ intent: 'delete', kind: 'domain', key: 'unused' })
    expect(pageText((await follow(gone, admin)).html)).toContain('Domain “Unused” deleted.')

    const a = await createTerm({ name: 'Card Ledger', domains: ['payments'] })
    const b = await createTerm({ name: 'Card Limit', domains: ['payments'] })
    const asked = await post({ intent: 'delete', kind: 'domain', key: 'payments' })
    expect(asked.status).toBe(200)
    const text = pageText(asked.html)
    expect(text).toContain('“Payments and cards” is used by 2 terms.')
    expect(text).toContain('Delete it and remove it from 2 terms')
    expect(asked.html).toContain('name="confirm" value="yes"')
    expect((await listClassification({ kind: 'domain' })).items.map((i) => i.key)).toEqual(['payments'])
    // the term count links to the terms that carry it
    expect(asked.html).toContain('href="/terms?domain=payments"')

    const confirmed = await post({ intent: 'delete', kind: 'domain', key: 'payments', confirm: 'yes' })
    const page = await follow(confirmed, admin)
    expect(pageText(page.html)).toContain(
      'Domain “Payments and cards” deleted. Terms that carried it, each with a new revision without it: 2.',
    )
    expect(pageText(page.html)).toContain(classificationEn['classification.domain.none'])
    for (const term of [a, b]) {
      const now = await getTerm({ idOrSlug: term.id })
      expect(now.domains).toEqual([])
      expect(now.revision).toBe(term.revision + 1)
    }
  })

  it('an entry deleted meanwhile: the form says so in words, not a code', async () => {
    const res = await post({ intent: 'delete', kind: 'category', key: 'no-such' })
    expect(res.status).toBe(404)
    expect(pageText(res.html)).toContain(classificationEn['classification.gone'])
    const [{ n }] = await em().execute<{ n: string }[]>('select count(*) as n from business_categories')
    expect(Number(n)).toBe(1)
  })
})
