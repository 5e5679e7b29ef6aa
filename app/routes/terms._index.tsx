import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useNavigation, useSearchParams, useSubmit } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import {
  className,
  formatDate,
  KindBadge,
  StatusBadge,
  termHref,
  useCount,
  useLang,
} from '#app/components/terms/ui.tsx'
import { pageTitle } from '#app/lib/page-title.ts'
import { useDataTable } from '#app/components/data-table.tsx'
import { Pager } from '#app/components/pager.tsx'
import { ShareBuilder } from '#app/components/share/share-builder.tsx'
import { shareBuilderData } from '#app/pages/share.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useOptionalUser, useT } from '#app/root.tsx'
import { ListTermsQuerySchema } from '#app/schemas/terms.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { listTerms } from '#app/services/terms/read.server.ts'
import { TERM_STATUSES } from '#domain/terms.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'terms.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const url = new URL(request.url)
  const raw: Record<string, string | string[]> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key).filter((v) => v !== '')
    if (all.length) raw[key] = all.length === 1 ? all[0]! : all
  }
  const query = ListTermsQuerySchema.safeParse(raw)
  const [list, domains, categories] = await Promise.all([
    listTerms(query.success ? query.data : ListTermsQuerySchema.parse({})),
    listClassification({ kind: 'domain' }),
    listClassification({ kind: 'category' }),
  ])
  return {
    ...list,
    domains: domains.items,
    categories: categories.items,
    statuses: TERM_STATUSES,
    share: shareBuilderData(url),
  }
}

const SEARCH_DELAY_MS = 250

export default function TermsPage() {
  const t = useT()
  const lang = useLang()
  const count = useCount()
  const user = useOptionalUser()
  const { items, total, page, pageSize, domains, categories, statuses, share } =
    useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const submit = useSubmit()
  const navigation = useNavigation()
  const timer = useRef<ReturnType<typeof setTimeout>>()
  useEffect(() => () => clearTimeout(timer.current), [])
  const searching = navigation.state === 'loading' && navigation.location?.pathname === '/terms'
  const canEdit = user?.role === 'editor' || user?.role === 'admin'
  const table = useDataTable(
    {
      name: 'term.name',
      otherNames: 'terms.otherNames',
      notations: 'term.notations',
      status: 'term.status',
      domains: 'term.domains',
      updated: 'term.updated',
    },
    { className: 'terms-table' },
  )

  return (
    <section>
      <div className="title-row">
        <h1>{t('terms.title')}</h1>
        {canEdit ? (
          <Link to="/terms/new" className="button">
            {t('terms.new')}
          </Link>
        ) : null}
      </div>
      <Form
        method="get"
        className="filters"
        role="search"
        onChange={(event) => {
          // Search as you type: selects apply at once, the text box after a short pause.
          const form = event.currentTarget
          const isText = (event.target as HTMLElement).getAttribute('name') === 'q'
          clearTimeout(timer.current)
          timer.current = setTimeout(
            () => submit(form, { replace: true, preventScrollReset: true }),
            isText ? SEARCH_DELAY_MS : 0,
          )
        }}
      >
        <label>
          {t('common.search')}
          <input
            type="search"
            name="q"
            defaultValue={params.get('q') ?? ''}
            placeholder={t('terms.searchHint')}
            autoComplete="off"
            aria-describedby="terms-count"
          />
        </label>
        <label>
          {t('term.status')}
          <select name="status" defaultValue={params.get('status') ?? ''}>
            <option value="">{t('terms.statusLive')}</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        {domains.length ? (
          <label>
            {t('term.domain')}
            <select name="domain" defaultValue={params.get('domain') ?? ''}>
              <option value="">{t('common.all')}</option>
              {domains.map((d) => (
                <option key={d.key} value={d.key}>
                  {className(domains, d.key, lang)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {categories.length ? (
          <label>
            {t('term.category')}
            <select name="category" defaultValue={params.get('category') ?? ''}>
              <option value="">{t('common.all')}</option>
              {categories.map((c) => (
                <option key={c.key} value={c.key}>
                  {className(categories, c.key, lang)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          {t('term.tag')}
          <input name="tag" defaultValue={params.get('tag') ?? ''} size={10} />
        </label>
        <button type="submit">{t('common.search')}</button>
      </Form>

      <ShareBuilder key={JSON.stringify(share.options.filters)} data={share} />
      <p id="terms-count" className="muted" aria-live="polite">
        {searching ? t('terms.searching') : count('count.term', total)}
      </p>
      {items.length === 0 ? (
        <p className="muted">{t('terms.none')}</p>
      ) : (
        <table {...table.props}>
          {table.head}
          <tbody {...table.body}>
            {items.map((term) => (
              <tr {...table.row} key={term.id} data-term-slug={term.slug}>
                <td {...table.cell('name')}>
                  <Link to={termHref(term.slug)}>{term.name}</Link>
                  {term.definition ? <div className="muted small clamp">{term.definition}</div> : null}
                </td>
                <td {...table.cell('otherNames')}>
                  {[term.nameKo, term.nameEn, term.fullName].filter((n) => n && n !== term.name).join(' · ')}
                </td>
                <td {...table.cell('notations')}>
                  {term.notations.map((n) => (
                    <span key={n.text} className="notation">
                      {n.text} <KindBadge kind={n.kind} />
                    </span>
                  ))}
                </td>
                <td {...table.cell('status')}>
                  <StatusBadge status={term.status} />
                </td>
                <td {...table.cell('domains')}>
                  {term.domains.map((d) => className(domains, d, lang)).join(', ')}
                </td>
                <td {...table.cell('updated')} className="small">
                  {formatDate(term.updatedAt)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
