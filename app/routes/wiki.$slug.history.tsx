import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { diffWikiRevisions, listWikiRevisions } from '#app/services/wiki/read.server.ts'

export const meta: MetaFunction = () => [{ title: 'Wiki history · Glossary' }]

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

function show(value: unknown): string {
  if (value === null || value === undefined) return '—'
  return Array.isArray(value) ? value.join(', ') : String(value)
}

export default function WikiHistoryPage() {
  const t = useT()
  const { history, diff } = useLoaderData<typeof loader>()
  const latest = history.items[0]?.revision ?? 1
  return (
    <section>
      <h1>
        {t('wiki.history')}:{' '}
        <Link to={`/wiki/${history.slug}`}>{history.items[0]?.title ?? history.slug}</Link>
      </h1>
      <Form method="get" className="filters">
        <label>
          {t('audit.from')}
          <input type="number" name="from" min={1} max={latest} defaultValue={Math.max(1, latest - 1)} />
        </label>
        <label>
          {t('audit.to')}
          <input type="number" name="to" min={1} max={latest} defaultValue={latest} />
        </label>
        <button type="submit">{t('wiki.compare')}</button>
      </Form>
      {diff ? (
        <div className="diff" data-testid="wiki-diff">
          {diff.fields
            .filter((field) => field.changed)
            .map((field) => (
              <div key={field.field}>
                <h3>{field.field}</h3>
                {field.changes ? (
                  <pre className="original">
                    {field.changes.map((part, index) =>
                      part.added ? (
                        <ins key={index}>{part.value}</ins>
                      ) : part.removed ? (
                        <del key={index}>{part.value}</del>
                      ) : (
                        <span key={index}>{part.value}</span>
                      ),
                    )}
                  </pre>
                ) : (
                  <p>
                    <del>{show(field.before)}</del> → <ins>{show(field.after)}</ins>
                  </p>
                )}
              </div>
            ))}
        </div>
      ) : null}
      <table>
        <thead>
          <tr>
            <th>{t('wiki.revision')}</th>
            <th>{t('wiki.pageTitle')}</th>
            <th>{t('wiki.status')}</th>
            <th>{t('audit.actor')}</th>
            <th>{t('audit.at')}</th>
          </tr>
        </thead>
        <tbody>
          {history.items.map((item) => (
            <tr key={item.revision}>
              <td>
                {item.revision > 1 ? (
                  <Link to={`?from=${item.revision - 1}&to=${item.revision}`}>r{item.revision}</Link>
                ) : (
                  `r${item.revision}`
                )}
              </td>
              <td>{item.title}</td>
              <td>{item.status}</td>
              <td>{item.author?.name ?? '—'}</td>
              <td>{item.createdAt.replace('T', ' ').slice(0, 16)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
