import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import type { ReactNode } from 'react'
import { pageTitle } from '#app/lib/page-title.ts'
import { FormError } from '#app/components/forms.tsx'
import { formatDate, StatusBadge, termHref, useCount } from '#app/components/terms/ui.tsx'
import { highlightParts } from '#app/lib/highlight.ts'
import { passageHref } from '#app/lib/passage.ts'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm, type FormFailure } from '#app/pages/forms.server.ts'
import { findTermsByName, type NameMatch } from '#app/pages/home.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useOptionalUser, useT } from '#app/root.tsx'
import { MeetingSearchRequestSchema, SearchRequestSchema } from '#app/schemas/rag.ts'
import { retrievalReadiness } from '#app/services/search/retrieval.server.ts'
import { searchMeetings, searchTerms, searchWiki } from '#app/services/search/search.server.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { RAG_LIMITS } from '#domain/rag.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'search.title') }]

/** The three searches by meaning, one tab each (spec "Vector search"). */
const TABS = ['terms', 'wiki', 'meetings'] as const
type Tab = (typeof TABS)[number]

/** The search form as the address carries it: a plain GET form, so it works without JavaScript. */
function formOf(params: URLSearchParams) {
  const text = (name: string) => params.get(name) ?? ''
  const tab = TABS.find((t) => t === params.get('tab')) ?? 'terms'
  return { q: text('q'), tab, domain: text('domain'), team: text('team'), from: text('from'), to: text('to') }
}
type SearchForm = ReturnType<typeof formOf>

/** A date without a time means the whole day: `to` is inclusive, so it ends at the day's last moment (UTC). */
const endOfDay = (date: string) => (/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T23:59:59.999Z` : date)
const optional = (value: string) => (value.trim() === '' ? undefined : value)

/** How many terms the name search lists when search by meaning cannot run (the rest are on `/terms`). */
const NAME_SEARCH_LIMIT = 20

/**
 * `/search` for every signed-in user: runs the chosen tab's search when the address has a query. When search
 * by meaning cannot run (`retrievalReadiness`: switched off, no provider, a secret unreadable), the terms tab
 * searches names and notations instead (the term list's search) and says so (issue 27 item 3); the other tabs,
 * and a provider failing (`rag_provider_error`), are this page with its message (status 200: the page worked,
 * formAction). A query the API would refuse is this page with the problem at its field (400) — never the
 * error page.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const form = formOf(new URL(request.url).searchParams)
  const domains = (await listClassification({ kind: 'domain' })).items.map((d) => d.key)
  const extra = { form, domains }
  if (form.q.trim() === '') return { ...extra, ok: true as const, search: null }
  // Whether search by meaning can run is the retrieval service's one decision; the searches below reuse it.
  const readiness = await retrievalReadiness()
  if (form.tab === 'terms') {
    if (!readiness.ready) {
      const found = await findTermsByName(form.q, { limit: NAME_SEARCH_LIMIT, domain: optional(form.domain) })
      return { ...extra, ok: true as const, search: null, byName: { reason: readiness.reason, ...found } }
    }
  }
  const common = { query: form.q, domain: optional(form.domain) }
  if (form.tab === 'meetings') {
    const parsed = parseForm(MeetingSearchRequestSchema, {
      ...common,
      team: optional(form.team),
      from: optional(form.from),
      to: optional(form.to) && endOfDay(form.to),
    })
    if (!parsed.ok) return invalidForm({ ...extra, ...parsed })
    return formAction(
      async () => ({
        ...extra,
        ok: true as const,
        search: { tab: 'meetings' as const, result: await searchMeetings(parsed.data, readiness) },
      }),
      extra,
    )
  }
  const parsed = parseForm(SearchRequestSchema, common)
  if (!parsed.ok) return invalidForm({ ...extra, ...parsed })
  if (form.tab === 'wiki') {
    return formAction(
      async () => ({
        ...extra,
        ok: true as const,
        search: { tab: 'wiki' as const, result: await searchWiki(parsed.data, readiness) },
      }),
      extra,
    )
  }
  return formAction(
    async () => ({
      ...extra,
      ok: true as const,
      search: { tab: 'terms' as const, result: await searchTerms(parsed.data, readiness) },
    }),
    extra,
  )
}

/** A chunk's text with the query's words marked; every part is rendered as text, never as HTML. */
function Chunk({ text, query }: { text: string; query: string }) {
  return (
    <blockquote className="chunk" data-testid="search-chunk">
      {highlightParts(text, query).map((part, i) =>
        part.hit ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>,
      )}
    </blockquote>
  )
}

function Score({ score, rerankScore }: { score: number; rerankScore?: number }) {
  const t = useT()
  return (
    <span className="muted small">
      {t('search.score')} {score.toFixed(3)}
      {rerankScore === undefined ? null : ` · ${t('search.rerankScore')} ${rerankScore.toFixed(3)}`}
    </span>
  )
}

/**
 * One result of any tab: the link to its source, what the tab knows of it (`children`), its scores and the
 * matched chunk with the query's words marked.
 */
function Result({
  href,
  item,
  query,
  children,
}: {
  href: string
  item: { title: string; score: number; rerankScore?: number; content: string }
  query: string
  children: ReactNode
}) {
  return (
    <li data-testid="search-result">
      <Link to={href}>{item.title}</Link> {children}
      <Score score={item.score} rerankScore={item.rerankScore} />
      <Chunk text={item.content} query={query} />
    </li>
  )
}

/** Why the search did not run: in the page, in the reader's language, with the way on for an admin. */
function Problem({ failure }: { failure: FormFailure }) {
  const t = useT()
  const user = useOptionalUser()
  if (failure.code === 'rag_not_ready' || failure.code === 'rag_provider_error') {
    const reason = failure.details?.reason
    const failureClass = failure.details?.failureClass
    return (
      <div role="status" className="notice warning" data-testid="search-problem" data-code={failure.code}>
        <p>
          <strong>{t(failure.code === 'rag_not_ready' ? 'search.notReady' : 'search.providerError')}</strong>
        </p>
        {typeof reason === 'string' ? <p>{t(`search.reason.${reason}` as MessageKey)}</p> : null}
        {typeof failureClass === 'string' ? (
          <p>
            {t('ai.failureClass')}: {t(`ai.failure.${failureClass}` as MessageKey)}
          </p>
        ) : null}
        {user?.role === 'admin' ? (
          <p>
            <Link to="/admin/search-settings">{t('search.toSettings')}</Link>
          </p>
        ) : (
          <p className="muted small">{t('search.askAdmin')}</p>
        )}
      </div>
    )
  }
  return <FormError result={failure} />
}

/**
 * The terms whose name or notation matches, when search by meaning cannot run: the sentence that says so (and
 * why, unless an administrator simply switched it off), then the terms with their notation and status.
 */
function NameResults({
  form,
  byName,
}: {
  form: SearchForm
  byName: { reason: string; items: NameMatch[]; total: number }
}) {
  const t = useT()
  const count = useCount()
  const user = useOptionalUser()
  return (
    <>
      <div
        role="status"
        className="notice name-search-notice"
        data-testid="search-fallback"
        data-reason={byName.reason}
      >
        <p>{t(byName.reason === 'off' ? 'home.fallback.off' : 'home.fallback.notReady')}</p>
        {byName.reason === 'off' ? null : (
          <p className="muted small">{t(`search.reason.${byName.reason}` as MessageKey)}</p>
        )}
        {user?.role === 'admin' ? (
          <p className="small">
            <Link to="/admin/search-settings">{t('search.toSettings')}</Link>
          </p>
        ) : null}
      </div>
      <p className="muted" data-testid="search-count">
        {count('count.term', byName.total)}
      </p>
      {byName.total === 0 ? <p>{t('search.none')}</p> : null}
      <ol className="search-results name-results">
        {byName.items.map((term) => (
          <li key={term.id} data-testid="search-result">
            <Link to={termHref(term.slug)}>{term.name}</Link>{' '}
            {term.notation ? <span className="notation">{term.notation}</span> : null}{' '}
            <StatusBadge status={term.status} />
            {term.definition ? <p className="muted small clamp">{term.definition}</p> : null}
          </li>
        ))}
      </ol>
      {byName.total > byName.items.length ? (
        <p>
          <Link
            to={`/terms?${new URLSearchParams({ q: form.q, ...(form.domain ? { domain: form.domain } : {}) })}`}
          >
            {fill(t('home.fallback.more'), { n: byName.total })}
          </Link>
        </p>
      ) : null}
    </>
  )
}

export default function SearchPage() {
  const t = useT()
  const data = useLoaderData<typeof loader>()
  // every answer carries the form and the domains (a failure has them as formAction's `extra`)
  const { form, domains } = data as unknown as { form: SearchForm; domains: string[] }
  const failure = data.ok === false ? (data as FormFailure) : null
  const errors = failure?.fieldErrors ?? {}
  const search = 'search' in data ? data.search : null
  const byName = 'byName' in data ? data.byName : null
  const tabHref = (tab: Tab) => {
    const params = new URLSearchParams({ tab })
    if (form.q) params.set('q', form.q)
    if (form.domain) params.set('domain', form.domain)
    return `/search?${params}`
  }
  return (
    <section>
      <h1>{t('search.title')}</h1>
      <nav className="tabs" aria-label={t('search.tabs')}>
        {TABS.map((tab) => (
          <Link
            key={tab}
            to={tabHref(tab)}
            aria-current={tab === form.tab ? 'page' : undefined}
            className={tab === form.tab ? 'tab current' : 'tab'}
          >
            {t(`search.tab.${tab}` as MessageKey)}
          </Link>
        ))}
      </nav>
      {/* A new key per tab: the fields of another tab start from the address, not from the last tab. */}
      <Form method="get" className="filters" key={form.tab}>
        <input type="hidden" name="tab" value={form.tab} />
        <label>
          {t('search.query')}
          <input
            type="search"
            name="q"
            defaultValue={form.q}
            required
            maxLength={RAG_LIMITS.queryMax}
            aria-invalid={errors.query ? true : undefined}
          />
          {errors.query ? <span className="error">{errors.query}</span> : null}
        </label>
        <label>
          {t('search.domain')}
          <input name="domain" defaultValue={form.domain} list="search-domains" />
          {errors.domain ? <span className="error">{errors.domain}</span> : null}
        </label>
        <datalist id="search-domains">
          {domains.map((d) => (
            <option key={d} value={d} />
          ))}
        </datalist>
        {form.tab === 'meetings' ? (
          <>
            <label>
              {t('search.team')}
              <input name="team" defaultValue={form.team} />
              {errors.team ? <span className="error">{errors.team}</span> : null}
            </label>
            <label>
              {t('search.from')}
              <input type="date" name="from" defaultValue={form.from} />
              {errors.from ? <span className="error">{errors.from}</span> : null}
            </label>
            <label>
              {t('search.to')}
              <input type="date" name="to" defaultValue={form.to} />
              {errors.to ? <span className="error">{errors.to}</span> : null}
            </label>
          </>
        ) : null}
        <button type="submit">{t('search.submit')}</button>
      </Form>
      {failure ? <Problem failure={failure} /> : null}
      {byName ? <NameResults form={form} byName={byName} /> : null}
      {search ? (
        <>
          <p className="muted" data-testid="search-count">
            {fill(t('search.count'), { n: search.result.total })}
            {search.result.reranked ? ` · ${t('search.reranked')}` : ''}
          </p>
          {search.result.total === 0 ? <p>{t('search.none')}</p> : null}
          <ol className="search-results">
            {search.tab === 'terms'
              ? search.result.items.map((item) => (
                  <Result key={item.id} href={termHref(item.slug)} item={item} query={form.q}>
                    <span className="muted small">
                      {[item.nameEn, item.nameKo].filter((n) => n && n !== item.title).join(' · ')}
                    </span>{' '}
                    <span className="muted small">
                      {t(`status.${item.status}` as MessageKey)} · {t('search.field')}{' '}
                      {t(`search.field.${item.sourceField}` as MessageKey)} ·{' '}
                    </span>
                  </Result>
                ))
              : null}
            {search.tab === 'wiki'
              ? search.result.items.map((item) => (
                  <Result
                    key={item.id}
                    href={passageHref(`/wiki/${encodeURIComponent(item.slug)}`, item)}
                    item={item}
                    query={form.q}
                  >
                    <span className="muted small">
                      {fill(t('search.offsets'), { start: item.startOffset, end: item.endOffset })} ·{' '}
                    </span>
                  </Result>
                ))
              : null}
            {search.tab === 'meetings'
              ? search.result.items.map((item) => (
                  <Result
                    key={item.id}
                    href={passageHref(`/meetings/${item.meetingId}`, item)}
                    item={item}
                    query={form.q}
                  >
                    <span className="muted small">
                      {formatDate(item.meetingDate)}
                      {item.team ? ` · ${item.team}` : ''} ·{' '}
                      {fill(t('search.offsets'), { start: item.startOffset, end: item.endOffset })} ·{' '}
                    </span>
                  </Result>
                ))
              : null}
          </ol>
        </>
      ) : null}
    </section>
  )
}
