import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { RevisionDiff, RevisionList } from '#app/components/history-list.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { diffWikiRevisions, listWikiRevisions } from '#app/services/wiki/read.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.history.items[0]?.title ?? 'Wiki page'} · History · Glossary` },
]

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request)
  const url = new URL(request.url)
  return orErrorPage(async () => {
    const history = await listWikiRevisions({ slug: params.slug! })
    const from = Number(url.searchParams.get('from'))
    const to = Number(url.searchParams.get('to'))
    const diff = from > 0 && to > 0 ? await diffWikiRevisions({ slug: params.slug!, from, to }) : null
    return { history, diff }
  })
}

export default function WikiHistoryPage() {
  const t = useT()
  const { history, diff } = useLoaderData<typeof loader>()
  const latest = history.items[0]
  const to = diff?.to.revision ?? latest?.revision ?? 1
  const from = diff?.from.revision ?? history.items[1]?.revision ?? to
  const pageHref = `/wiki/${encodeURIComponent(history.slug)}`
  const status = (value: unknown) => t(`wiki.status.${String(value)}` as MessageKey)
  return (
    <section>
      <p className="muted">
        <Link to={pageHref}>← {latest?.title ?? history.slug}</Link>
      </p>
      <h1>{fill(t('history.title'), { name: latest?.title ?? history.slug })}</h1>
      {diff ? (
        <RevisionDiff
          diff={diff}
          labelOf={(field) => t(`history.field.${field}` as MessageKey)}
          formatValue={(field, value) => (field === 'status' ? status(value) : undefined)}
        />
      ) : null}
      <h2>{t('history.revisions')}</h2>
      <RevisionList
        entries={history.items.map((item) => ({
          revision: item.revision,
          createdAt: item.createdAt,
          author: item.author?.name ?? null,
          summary: (
            <>
              {item.title} <span className={`badge status-${item.status}`}>{status(item.status)}</span>
            </>
          ),
        }))}
        current={latest?.revision ?? 1}
        historyHref={`${pageHref}/history`}
        pick={{ from, to }}
      />
    </section>
  )
}
