import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import {
  WikiEditor,
  type LinkedTermChoice,
  type WikiFormValues,
} from '#app/components/content/wiki-editor.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { formAction, invalidForm, orErrorPage, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { formLang } from '#app/pages/term-choice.server.ts'
import { prepareWikiForm, readWikiForm, wikiBody, wikiDomains } from '#app/pages/wiki-form.server.ts'
import { useT } from '#app/root.tsx'
import { UpdateWikiPageSchema } from '#app/schemas/wiki.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { getWikiPage } from '#app/services/wiki/read.server.ts'
import { updateWikiPage } from '#app/services/wiki/write.server.ts'
import { WIKI_STATUSES } from '#domain/content.ts'

export const meta: MetaFunction = () => [{ title: 'Edit wiki page · Glossary' }]

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const [page, domains] = await Promise.all([
    orErrorPage(() => getWikiPage({ slug: params.slug! })),
    wikiDomains(),
  ])
  return { page, domains }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await request.formData()
  const values = readWikiForm(form)
  const baseRevision = Number(form.get('baseRevision'))
  if (form.get('intent') === 'preview') {
    return { ok: true as const, values, baseRevision, preview: renderMarkdown(values.content) }
  }
  // A domain the page already carries stays allowed even when the scheme no longer lists it.
  const current = await orErrorPage(() => getWikiPage({ slug: params.slug! }))
  const prepared = await prepareWikiForm(form, values, {
    lang: formLang(request),
    keptDomains: current.domain,
  })
  if (!prepared.ok) return invalidForm({ ...prepared, values, baseRevision })
  const parsed = parseForm(UpdateWikiPageSchema, { ...wikiBody(values, prepared), baseRevision })
  if (!parsed.ok) return invalidForm({ ...parsed, values, baseRevision })
  return formAction(
    async () => {
      const page = await updateWikiPage({
        slug: params.slug!,
        input: parsed.data,
        actor: { id: actor.user.id, name: actor.user.name },
      })
      return redirectWithFlash(
        `/wiki/${encodeURIComponent(page.slug)}`,
        { kind: 'success', message: 'flash.wikiSaved', values: { title: page.title } },
        context,
      )
    },
    { values, baseRevision },
  )
}

export default function EditWikiPage() {
  const t = useT()
  const { page, domains } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as
    | {
        values?: WikiFormValues
        preview?: string
        code?: string
        baseRevision?: number
        choices?: LinkedTermChoice[]
      }
    | undefined
  const values: WikiFormValues = result?.values ?? {
    title: page.title,
    content: page.content,
    summary: page.summary ?? '',
    sourceUrl: page.sourceUrl ?? '',
    domain: page.domain,
    termSlugs: page.termSlugs.join('\n'),
    status: page.status,
    termLinks: page.termLinks,
  }
  const conflict = result?.code === 'revision_conflict'
  // After a conflict the next save is based on the revision now current (the user has seen the warning).
  const baseRevision = conflict ? page.revision : (result?.baseRevision ?? page.revision)
  return (
    <section>
      <h1>
        {t('wiki.edit')}: {page.title}
      </h1>
      {conflict ? (
        <p role="alert" className="notice warning">
          {t('wiki.conflict')}{' '}
          <Link to={`/wiki/${page.slug}/history?from=${result?.baseRevision}&to=${page.revision}`}>
            {t('wiki.compare')}
          </Link>
        </p>
      ) : null}
      <WikiEditor
        values={values}
        statuses={WIKI_STATUSES}
        domains={domains}
        result={conflict ? undefined : result}
        choices={conflict ? undefined : result?.choices}
        preview={result?.preview}
        baseRevision={baseRevision}
        isNew={false}
        cancelTo={`/wiki/${page.slug}`}
      />
    </section>
  )
}
