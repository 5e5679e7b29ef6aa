import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import {
  WikiEditor,
  type LinkedTermChoice,
  type WikiFormValues,
} from '#app/components/content/wiki-editor.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { formLang } from '#app/pages/term-choice.server.ts'
import { prepareWikiForm, readWikiForm, wikiBody, wikiDomains } from '#app/pages/wiki-form.server.ts'
import { useT } from '#app/root.tsx'
import { CreateWikiPageSchema } from '#app/schemas/wiki.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { createWikiPage } from '#app/services/wiki/write.server.ts'
import { WIKI_STATUSES } from '#domain/content.ts'

export const meta: MetaFunction = () => [{ title: 'New wiki page · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  return { domains: await wikiDomains() }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await request.formData()
  const values = readWikiForm(form)
  if (form.get('intent') === 'preview')
    return { ok: true as const, values, preview: renderMarkdown(values.content) }
  const prepared = await prepareWikiForm(form, values, { lang: formLang(request) })
  if (!prepared.ok) return invalidForm({ ...prepared, values })
  const parsed = parseForm(CreateWikiPageSchema, {
    ...wikiBody(values, prepared),
    slug: values.slug || undefined,
  })
  if (!parsed.ok) return invalidForm({ ...parsed, values })
  return formAction(
    async () => {
      const page = await createWikiPage({
        input: parsed.data,
        actor: { id: actor.user.id, name: actor.user.name },
      })
      return redirectWithFlash(
        `/wiki/${encodeURIComponent(page.slug)}`,
        { kind: 'success', message: 'flash.wikiCreated', values: { title: page.title } },
        context,
      )
    },
    { values },
  )
}

export default function NewWikiPage() {
  const t = useT()
  const { domains } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as
    { values?: WikiFormValues; preview?: string; choices?: LinkedTermChoice[] } | undefined
  const values = result?.values ?? {
    title: '',
    content: '',
    summary: '',
    sourceUrl: '',
    domain: [],
    termSlugs: '',
    status: 'draft',
    termLinks: true,
  }
  return (
    <section>
      <h1>{t('wiki.new')}</h1>
      <WikiEditor
        values={values}
        statuses={WIKI_STATUSES}
        domains={domains}
        result={result}
        choices={result?.choices}
        preview={result?.preview}
        isNew
        cancelTo="/wiki"
      />
    </section>
  )
}
