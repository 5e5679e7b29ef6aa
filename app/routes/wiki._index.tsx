import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { wikiDomains } from '#app/pages/wiki-form.server.ts'
import { className, useLang } from '#app/components/terms/ui.tsx'
import { Pager } from '#app/components/pager.tsx'
import { useOptionalUser, useT } from '#app/root.tsx'
import { ListWikiQuerySchema } from '#app/schemas/wiki.ts'
import { listWikiPages } from '#app/services/wiki/read.server.ts'
import { WIKI_STATUSES } from '#domain/content.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'wiki.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const params = new URL(request.url).searchParams
  const parsed = ListWikiQuerySchema.safeParse({
    q: params.get('q') || undefined,
    status: params.get('status') || undefined,
    domain: params.getAll('domain').filter(Boolean),
    page: params.get('page') ?? undefined,
  })
  const [list, domains] = await Promise.all([
    listWikiPages(parsed.success ? parsed.data : ListWikiQuerySchema.parse({})),
    wikiDomains(),
  ])
  return { ...list, domains }
}

export default function WikiListPage() {
  const t = useT()
  const user = useOptionalUser()
  const lang = useLang()
  const { items, total, page, pageSize, domains } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  return (
    <section>
      <h1>{t('wiki.title')}</h1>
      {user && user.role !== 'viewer' ? (
        <p>
          <Link to="/wiki/new">{t('wiki.new')}</Link>
        </p>
      ) : null}
      <Form method="get" className="filters">
        <label>
          {t('common.search')}
          <input name="q" defaultValue={params.get('q') ?? ''} />
        </label>
        <label>
          {t('wiki.status')}
          <select name="status" defaultValue={params.get('status') ?? ''}>
            <option value="">{t('common.all')}</option>
            {WIKI_STATUSES.map((status) => (
              <option key={status} value={status}>
                {t(`wiki.status.${status}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        {/* The classification scheme's domains, as the wiki editor offers them. */}
        <label>
          {t('picker.domainsOf')}
          <select name="domain" defaultValue={params.get('domain') ?? ''}>
            <option value="">{t('picker.domainAll')}</option>
            {domains.map((domain) => (
              <option key={domain.key} value={domain.key}>
                {className(domains, domain.key, lang)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('common.filter')}</button>
      </Form>
      {items.length === 0 ? <p className="muted">{t('wiki.none')}</p> : null}
      <ul className="plain">
        {items.map((item) => (
          <li key={item.id}>
            <Link to={`/wiki/${item.slug}`}>{item.title}</Link>{' '}
            <span className={`badge status-${item.status}`}>
              {t(`wiki.status.${item.status}` as MessageKey)}
            </span>
            {item.summary ? <p className="muted small">{item.summary}</p> : null}
          </li>
        ))}
      </ul>
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
