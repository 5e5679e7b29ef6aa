import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { TermLinks } from '#app/components/content/term-links.tsx'
import { useDataTable } from '#app/components/data-table.tsx'
import { FormError } from '#app/components/forms.tsx'
import { RevisionList } from '#app/components/history-list.tsx'
import { loadTermLinks, loadTermOr404 } from '#app/pages/term-page.server.ts'
import {
  className,
  formatDate,
  KindBadge,
  StatusBadge,
  termHref,
  useCount,
  useLang,
} from '#app/components/terms/ui.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useOptionalUser, useT } from '#app/root.tsx'
import { MergeTermSchema } from '#app/schemas/terms.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { getTerm, listRevisions } from '#app/services/terms/read.server.ts'
import { deleteTerm, mergeTerm } from '#app/services/terms/write.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.term.name ?? 'Term'} · Glossary` },
]

const RECENT_REVISIONS = 5

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request)
  const term = await loadTermOr404(params.slug!)
  // An old address (or the UUID) leads to the current one.
  if (term.slug !== params.slug) {
    const url = new URL(request.url)
    throw redirect(`${termHref(term.slug)}${url.search}`)
  }
  const [revisions, links, domains, categories] = await Promise.all([
    listRevisions({ idOrSlug: term.id }),
    loadTermLinks(term.id),
    listClassification({ kind: 'domain' }),
    listClassification({ kind: 'category' }),
  ])
  return {
    term,
    citedRevision: citedRevision(new URL(request.url).searchParams.get('revision'), term.revision),
    bodyHtml: term.body ? renderMarkdown(term.body) : '',
    revisions: revisions.items.slice(0, RECENT_REVISIONS),
    revisionCount: revisions.total,
    links,
    domains: domains.items,
    categories: categories.items,
  }
}

/**
 * The revision a citation named (`?revision=N`: the chat's term citations, issue 29) when the term has changed
 * since; the page then says so and links to the changes. Anything else (absent, malformed, current) is ignored.
 */
function citedRevision(param: string | null, current: number): number | null {
  if (!param || !/^[1-9]\d{0,8}$/.test(param)) return null
  const cited = Number(param)
  return cited < current ? cited : null
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const form = await request.formData()
  const intent = String(form.get('intent'))
  if (intent === 'delete') {
    const actor = await requireUserAction(request, 'admin')
    return formAction(async () => {
      const term = await getTerm({ idOrSlug: params.slug! })
      await deleteTerm({ idOrSlug: term.id, actorId: actor.user.id })
      return redirectWithFlash(
        '/terms',
        { kind: 'success', message: 'flash.termDeleted', values: { name: term.name } },
        context,
      )
    })
  }
  if (intent === 'merge') {
    const actor = await requireUserAction(request, 'editor')
    const parsed = parseForm(MergeTermSchema, {
      into: String(form.get('into') ?? '').trim(),
      note: form.get('note') ?? '',
    })
    if (!parsed.ok) return invalidForm({ ...parsed, intent })
    return formAction(async () => {
      const result = await mergeTerm({ idOrSlug: params.slug!, input: parsed.data, actorId: actor.user.id })
      return redirectWithFlash(
        termHref(result.into.slug),
        {
          kind: 'success',
          message: 'flash.termMerged',
          values: { merged: result.merged.name, into: result.into.name },
        },
        context,
      )
    })
  }
  await requireUserAction(request)
  return invalidForm({ ok: false as const, formError: 'Unknown action.' })
}

export default function TermPage() {
  const t = useT()
  const lang = useLang()
  const user = useOptionalUser()
  const data = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  const count = useCount()
  const notationsTable = useDataTable(
    { notation: 'term.notation', kind: 'term.kind', lang: 'term.lang' },
    { className: 'notations-table' },
  )
  const { term } = data
  const canEdit = (user?.role === 'editor' || user?.role === 'admin') && term.status !== 'merged'
  const names: [MessageKey, string | null][] = [
    ['term.fullName', term.fullName],
    ['term.nameEn', term.nameEn],
    ['term.nameKo', term.nameKo],
  ]

  return (
    <article className="term">
      <p className="muted">
        <Link to="/terms">← {t('terms.title')}</Link>
      </p>
      <div className="title-row">
        <h1>{term.name}</h1>
        <StatusBadge status={term.status} />
        {canEdit ? (
          <Link to={`${termHref(term.slug)}/edit`} className="button">
            {t('term.edit')}
          </Link>
        ) : null}
      </div>
      {data.citedRevision ? (
        <p className="notice" data-testid="cited-revision">
          {fill(t('term.citedRevision'), { cited: data.citedRevision, current: term.revision })}{' '}
          <Link to={`${termHref(term.slug)}/history?from=${data.citedRevision}&to=${term.revision}`}>
            {fill(t('term.citedRevisionCompare'), { cited: data.citedRevision })}
          </Link>
        </p>
      ) : null}
      {term.mergedInto ? (
        <p className="notice">
          {t('term.mergedInto')} <Link to={termHref(term.mergedInto.slug)}>{term.mergedInto.name}</Link>
        </p>
      ) : null}

      <dl className="fields">
        {names.map(([label, value]) => (
          <div key={label}>
            <dt>{t(label)}</dt>
            <dd>{value || <span className="muted">—</span>}</dd>
          </div>
        ))}
        <div>
          <dt>{t('term.slug')}</dt>
          <dd>
            <code>{term.slug}</code>
            {term.oldSlugs.length ? (
              <span className="muted small">
                {' '}
                ({t('term.oldSlugs')}: {term.oldSlugs.join(', ')})
              </span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>{t('term.domains')}</dt>
          <dd>
            {term.domains.map((d) => className(data.domains, d, lang)).join(', ') || (
              <span className="muted">—</span>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('term.categories')}</dt>
          <dd>
            {term.categories.map((c) => className(data.categories, c, lang)).join(', ') || (
              <span className="muted">—</span>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('term.tags')}</dt>
          <dd>
            {term.tags.length ? (
              term.tags.map((tag) => (
                <Link key={tag} to={`/terms?tag=${encodeURIComponent(tag)}`} className="tag">
                  {tag}
                </Link>
              ))
            ) : (
              <span className="muted">—</span>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('term.created')}</dt>
          <dd>{formatDate(term.createdAt)}</dd>
        </div>
        <div>
          <dt>{t('term.updated')}</dt>
          <dd>
            {formatDate(term.updatedAt)}
            {term.updatedBy ? ` · ${term.updatedBy.name}` : ''} ·{' '}
            {fill(t('term.revisionN'), { revision: term.revision })}
          </dd>
        </div>
      </dl>

      <h2>{t('term.definition')}</h2>
      {term.definition ? (
        <p className="definition">{term.definition}</p>
      ) : (
        <p className="muted">{t('term.noDefinition')}</p>
      )}

      <h2>{t('term.notations')}</h2>
      {term.notations.length ? (
        <table {...notationsTable.props}>
          {notationsTable.head}
          <tbody {...notationsTable.body}>
            {term.notations.map((n) => (
              <tr {...notationsTable.row} key={n.text} data-notation={n.text}>
                <td {...notationsTable.cell('notation')}>
                  {n.kind === 'deprecated' ? <s>{n.text}</s> : n.text}
                </td>
                <td {...notationsTable.cell('kind')}>
                  <KindBadge kind={n.kind} />
                </td>
                <td {...notationsTable.cell('lang')}>{n.lang ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">{t('term.noNotations')}</p>
      )}

      {data.bodyHtml ? (
        <>
          <h2>{t('term.body')}</h2>
          {/* Sanitized by the Markdown service (renderMarkdown). */}
          <div className="markdown" dangerouslySetInnerHTML={{ __html: data.bodyHtml }} />
        </>
      ) : null}

      <TermLinks
        termId={data.term.id}
        relations={data.links.relations}
        proposedCount={data.links.proposedCount}
        wikiPages={data.links.wikiPages}
      />

      <h2>{t('term.history')}</h2>
      <RevisionList
        entries={data.revisions.map((r) => ({
          revision: r.revision,
          createdAt: r.createdAt,
          author: r.author?.name ?? null,
          summary: r.note,
        }))}
        current={term.revision}
        historyHref={`${termHref(term.slug)}/history`}
      />
      <p>
        <Link to={`${termHref(term.slug)}/history`}>
          {fill(t('term.allRevisions'), { revisions: count('count.revision', data.revisionCount) })}
        </Link>
      </p>

      {canEdit ? (
        <details className="danger-zone">
          <summary>{t('term.more')}</summary>
          <Form method="post" className="stack">
            <input type="hidden" name="intent" value="merge" />
            <h3>{t('term.merge')}</h3>
            <p className="muted small">{t('term.mergeIntro')}</p>
            {result && 'intent' in result && result.intent === 'merge' ? <FormError result={result} /> : null}
            <label>
              {t('term.mergeInto')}
              <input name="into" required placeholder="slug" />
            </label>
            <label>
              {t('term.note')}
              <input name="note" maxLength={500} />
            </label>
            <button type="submit" className="secondary" disabled={busy}>
              {t('term.mergeSubmit')}
            </button>
          </Form>
          {user?.role === 'admin' ? (
            <Form method="post" className="stack">
              <input type="hidden" name="intent" value="delete" />
              <h3>{t('term.delete')}</h3>
              <p className="muted small">{t('term.deleteIntro')}</p>
              <button type="submit" className="danger" disabled={busy}>
                {t('term.deleteSubmit')}
              </button>
            </Form>
          ) : null}
        </details>
      ) : null}
      {result && !('intent' in result) ? <FormError result={result} /> : null}
    </article>
  )
}
