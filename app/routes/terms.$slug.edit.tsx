import { fill } from '#app/lib/i18n.ts'
import { useState } from 'react'
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { redirect } from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { valuesOfTerm, type EditorResult } from '#app/components/terms/editor-values.ts'
import { termEditorAction } from '#app/pages/term-editor.server.ts'
import { loadTermOr404 } from '#app/pages/term-page.server.ts'
import { TermEditor } from '#app/components/terms/term-editor.tsx'
import { termHref } from '#app/components/terms/ui.tsx'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ATTACHMENT_MAX_BYTES } from '#app/services/attachments/attachments.server.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { EDITABLE_TERM_STATUSES } from '#domain/terms.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.term.name ?? 'Term'} · Edit · Glossary` },
]

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const term = await loadTermOr404(params.slug!)
  // Old addresses lead to the current one.
  if (term.slug !== params.slug) throw redirect(`${termHref(term.slug)}/edit`)
  if (term.status === 'merged') throw redirect(termHref(term.slug))
  const [domains, categories] = await Promise.all([
    listClassification({ kind: 'domain' }),
    listClassification({ kind: 'category' }),
  ])
  return {
    term,
    domains: domains.items,
    categories: categories.items,
    statuses: EDITABLE_TERM_STATUSES,
    maxImageBytes: ATTACHMENT_MAX_BYTES,
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  return termEditorAction({ request, context, idOrSlug: params.slug! })
}

export default function EditTermPage() {
  const t = useT()
  const data = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as EditorResult | undefined
  const { term } = data
  // The revision this edit started from stays fixed while the page revalidates (a newer save is a conflict).
  const [loadedRevision] = useState(term.revision)
  const baseRevision = result?.baseRevision ?? loadedRevision
  return (
    <section>
      <p className="muted">
        <Link to={termHref(term.slug)}>← {term.name}</Link>
      </p>
      <h1>{fill(t('editor.editTitle'), { name: term.name })}</h1>
      <p className="muted">{fill(t('editor.basedOn'), { revision: baseRevision })}</p>
      <TermEditor
        key={result?.nonce ?? 'initial'}
        mode="edit"
        values={result?.values ?? valuesOfTerm(term)}
        result={result}
        baseRevision={baseRevision}
        statuses={data.statuses}
        domains={data.domains}
        categories={data.categories}
        maxImageBytes={data.maxImageBytes}
        cancelHref={termHref(term.slug)}
      />
    </section>
  )
}
