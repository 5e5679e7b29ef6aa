import { fill } from '#app/lib/i18n.ts'
import { redirect, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { DiffView } from '#app/components/terms/diff-view.tsx'
import { loadTermOr404 } from '#app/pages/term-page.server.ts'
import { formatDate, termHref } from '#app/components/terms/ui.tsx'
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
  const defaultTo = diff?.to.revision ?? revisions[0]?.revision ?? 1
  const defaultFrom = diff?.from.revision ?? revisions[1]?.revision ?? defaultTo
  return (
    <section>
      <p className="muted">
        <Link to={termHref(term.slug)}>← {term.name}</Link>
      </p>
      <h1>{fill(t('history.title'), { name: term.name })}</h1>

      {diff ? (
        <>
          <h2>{fill(t('history.diffTitle'), { from: diff.from.revision, to: diff.to.revision })}</h2>
          <p className="muted">
            {fill(t('history.diffMeta'), {
              from: diff.from.revision,
              fromWho: diff.from.author?.name ?? '—',
              fromWhen: formatDate(diff.from.createdAt),
              to: diff.to.revision,
              toWho: diff.to.author?.name ?? '—',
              toWhen: formatDate(diff.to.createdAt),
            })}
          </p>
          <DiffView fields={diff.fields} />
        </>
      ) : null}

      <h2>{t('history.revisions')}</h2>
      {/* A GET form: pick two revisions and compare (works without JavaScript). */}
      <Form method="get">
        <table>
          <thead>
            <tr>
              <th>{t('history.from')}</th>
              <th>{t('history.to')}</th>
              <th>{t('history.revision')}</th>
              <th>{t('history.author')}</th>
              <th>{t('history.time')}</th>
              <th>{t('history.note')}</th>
            </tr>
          </thead>
          <tbody>
            {revisions.map((r) => (
              <tr key={r.revision} data-revision={r.revision}>
                <td>
                  <input
                    type="radio"
                    name="from"
                    value={r.revision}
                    defaultChecked={r.revision === defaultFrom}
                    aria-label={`${t('history.from')} ${r.revision}`}
                  />
                </td>
                <td>
                  <input
                    type="radio"
                    name="to"
                    value={r.revision}
                    defaultChecked={r.revision === defaultTo}
                    aria-label={`${t('history.to')} ${r.revision}`}
                  />
                </td>
                <td>
                  {r.revision}
                  {r.revision === term.revision ? (
                    <span className="muted small"> ({t('history.current')})</span>
                  ) : null}
                </td>
                <td>{r.author?.name ?? '—'}</td>
                <td className="small">{formatDate(r.createdAt)}</td>
                <td>
                  {r.note}
                  {r.revision > 1 ? (
                    <>
                      {' '}
                      <Link to={`?from=${r.revision - 1}&to=${r.revision}`} className="small">
                        {t('history.changes')}
                      </Link>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {revisions.length > 1 ? <button type="submit">{t('history.compare')}</button> : null}
      </Form>
    </section>
  )
}
