import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { askedPassage, passageFor } from '#app/lib/passage.ts'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { termLinkLabels } from '#app/pages/term-link-labels.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { wikiDomains } from '#app/pages/wiki-form.server.ts'
import { className, useLang } from '#app/components/terms/ui.tsx'
import { useOptionalUser, useT } from '#app/root.tsx'
import { getWikiPage } from '#app/services/wiki/read.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.page.title ?? 'Wiki'} · Glossary` },
]

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request)
  // A search result's passage (app/lib/passage.ts): the service marks the blocks that hold it.
  const asked = askedPassage(new URL(request.url).searchParams)
  const [page, domains] = await Promise.all([
    orErrorPage(() => getWikiPage({ slug: params.slug!, passage: asked, termLinks: termLinkLabels() })),
    wikiDomains(),
  ])
  const passage = passageFor(asked, page.content.length, page.revision)
  return { page, domains, stalePassage: passage.kind === 'stale' ? passage.revision : null }
}

export default function WikiPageView() {
  const t = useT()
  const user = useOptionalUser()
  const lang = useLang()
  const { page, domains, stalePassage } = useLoaderData<typeof loader>()
  return (
    <article>
      <h1>{page.title}</h1>
      <p className="muted">
        <span className={`badge status-${page.status}`}>{t(`wiki.status.${page.status}` as MessageKey)}</span>{' '}
        · {t('wiki.revision')} {page.revision}
        {page.updatedBy ? ` · ${page.updatedBy.name}` : ''} · {page.updatedAt.slice(0, 10)} ·{' '}
        <Link to={`/wiki/${page.slug}/history`}>{t('wiki.history')}</Link>
        {user && user.role !== 'viewer' ? (
          <>
            {' '}
            · <Link to={`/wiki/${page.slug}/edit`}>{t('wiki.edit')}</Link>
          </>
        ) : null}
      </p>
      {page.status === 'draft' ? <p className="notice warning">{t('wiki.draftNotice')}</p> : null}
      {page.status === 'archived' ? <p className="notice">{t('wiki.archivedNotice')}</p> : null}
      {stalePassage === null ? null : (
        <p className="notice">{fill(t('search.passageStale'), { revision: stalePassage })}</p>
      )}
      {page.domain.length ? (
        <p className="muted small" data-testid="wiki-domains">
          {`${t('picker.domainsOf')}: ${page.domain.map((key) => className(domains, key, lang)).join(', ')}`}
        </p>
      ) : null}
      {page.summary ? <p className="lead">{page.summary}</p> : null}
      {page.sourceUrl ? (
        <p className="muted small">
          <a href={page.sourceUrl} rel="noopener noreferrer nofollow">
            {page.sourceUrl}
          </a>
        </p>
      ) : null}
      {/* Rendered by the service: markdown-it with raw HTML off, term links (app/services/annotate/), then
          sanitize-html with an allow-list. */}
      <div className="markdown" dangerouslySetInnerHTML={{ __html: page.html }} />
      <h2>{t('wiki.linkedTerms')}</h2>
      <ul>
        {page.terms.map((term) => (
          <li key={term.id}>
            <Link to={`/terms/${term.slug}`}>{term.name}</Link>
          </li>
        ))}
      </ul>
    </article>
  )
}
