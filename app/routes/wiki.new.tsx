import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { useActionData } from '@remix-run/react'
import { WikiEditor } from '#app/components/content/wiki-editor.tsx'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { readWikiForm, wikiBody } from '#app/pages/wiki-form.server.ts'
import { useT } from '#app/root.tsx'
import { CreateWikiPageSchema } from '#app/schemas/wiki.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { createWikiPage } from '#app/services/wiki/write.server.ts'
import { WIKI_STATUSES } from '#domain/content.ts'

export const meta: MetaFunction = () => [{ title: 'New wiki page · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  return null
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await request.formData()
  const values = readWikiForm(form)
  if (form.get('intent') === 'preview')
    return { ok: true as const, values, preview: renderMarkdown(values.content) }
  const parsed = parseForm(CreateWikiPageSchema, { ...wikiBody(values), slug: values.slug || undefined })
  if (!parsed.ok) return invalidForm({ ...parsed, values })
  return formAction(
    async () => {
      const page = await createWikiPage({
        input: parsed.data,
        actor: { id: actor.user.id, name: actor.user.name },
      })
      return redirect(`/wiki/${encodeURIComponent(page.slug)}`)
    },
    { values },
  )
}

export default function NewWikiPage() {
  const t = useT()
  const result = useActionData<typeof action>() as
    { values?: ReturnType<typeof readWikiForm>; preview?: string } | undefined
  const values = result?.values ?? {
    title: '',
    content: '',
    summary: '',
    sourceUrl: '',
    domain: '',
    termSlugs: '',
    status: 'draft',
  }
  return (
    <section>
      <h1>{t('wiki.new')}</h1>
      <WikiEditor
        values={values}
        statuses={WIKI_STATUSES}
        result={result}
        preview={result?.preview}
        isNew
        cancelTo="/wiki"
      />
    </section>
  )
}
