import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { redirect, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { RevisionDiff, RevisionList } from '#app/components/history-list.tsx'
import { loadTermOr404 } from '#app/pages/term-page.server.ts'
import { termHref } from '#app/components/terms/ui.tsx'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { diffRevisions, listRevisions } from '#app/services/terms/read.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.term.name ?? 'Term'} · History · Glossary` },
]

const revisionParam = (value: string | null) => {
  const n = Number(value)
  return Number.isInteger(n) && n >= 1 ? n : null
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request)
  const term = await loadTermOr404(params.slug!)
  const url = new URL(request.url)
  if (term.slug !== params.slug) throw redirect(`${termHref(term.slug)}/history${url.search}`)
  const revisions = await listRevisions({ idOrSlug: term.id })
  const from = revisionParam(url.searchParams.get('from'))
  const to = revisionParam(url.searchParams.get('to'))
  const diff = from && to ? await orErrorPage(() => diffRevisions({ idOrSlug: term.id, from, to })) : null
  return {
    term: { slug: term.slug, name: term.name, revision: term.revision },
    revisions: revisions.items,
    diff,
  }
}

export default function HistoryPage() {
  const t = useT()
  const { term, revisions, diff } = useLoaderData<typeof loader>()
  const to = diff?.to.revision ?? revisions[0]?.revision ?? 1
  const from = diff?.from.revision ?? revisions[1]?.revision ?? to
  const historyHref = `${termHref(term.slug)}/history`
  return (
    <section>
      <p className="muted">
        <Link to={termHref(term.slug)}>← {term.name}</Link>
      </p>
      <h1>{fill(t('history.title'), { name: term.name })}</h1>
      {diff ? (
        <RevisionDiff
          diff={diff}
          labelOf={(field) => t(`term.${field}` as MessageKey)}
          formatValue={(field, value) =>
            field === 'status' ? t(`status.${String(value)}` as MessageKey) : undefined
          }
        />
      ) : null}
      <h2>{t('history.revisions')}</h2>
      <RevisionList
        entries={revisions.map((r) => ({
          revision: r.revision,
          createdAt: r.createdAt,
          author: r.author?.name ?? null,
          summary: r.note,
        }))}
        current={term.revision}
        historyHref={historyHref}
        pick={{ from, to }}
      />
    </section>
  )
}
