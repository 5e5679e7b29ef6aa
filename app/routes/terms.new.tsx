import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { EMPTY_VALUES, type EditorResult } from '#app/components/terms/editor-values.ts'
import { termEditorAction } from '#app/pages/term-editor.server.ts'
import { TermEditor } from '#app/components/terms/term-editor.tsx'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ATTACHMENT_MAX_BYTES } from '#app/services/attachments/attachments.server.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { EDITABLE_TERM_STATUSES } from '#domain/terms.ts'

export const meta: MetaFunction = () => [{ title: 'New term · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const [domains, categories] = await Promise.all([
    listClassification({ kind: 'domain' }),
    listClassification({ kind: 'category' }),
  ])
  return {
    domains: domains.items,
    categories: categories.items,
    statuses: EDITABLE_TERM_STATUSES,
    maxImageBytes: ATTACHMENT_MAX_BYTES,
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  return termEditorAction({ request, context })
}

export default function NewTermPage() {
  const t = useT()
  const data = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as EditorResult | undefined
  return (
    <section>
      <h1>{t('editor.newTitle')}</h1>
      <TermEditor
        key={result?.nonce ?? 'initial'}
        mode="create"
        values={result?.values ?? EMPTY_VALUES}
        result={result}
        statuses={data.statuses}
        domains={data.domains}
        categories={data.categories}
        maxImageBytes={data.maxImageBytes}
        cancelHref="/terms"
      />
    </section>
  )
}
