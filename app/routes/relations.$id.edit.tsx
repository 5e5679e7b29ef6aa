import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { FormError } from '#app/components/forms.tsx'
import { EvidenceField, RelationTypeSelect } from '#app/components/content/relation-fields.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, orErrorPage, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { PatchRelationSchema } from '#app/schemas/relations.ts'
import { getRelation } from '#app/services/relations/read.server.ts'
import { patchRelation } from '#app/services/relations/write.server.ts'

export const meta: MetaFunction = () => [{ title: 'Edit relation · Glossary' }]

function load(id: string) {
  return orErrorPage(() => getRelation({ id }))
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  return { relation: await load(params.id!) }
}

/**
 * Edit returns the relation to `proposed` with a new type, evidence and revisions (the terms stay fixed).
 * "Record the current revisions" is how a reviewer resolves a revision conflict before approving.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await request.formData()
  const current = await load(params.id!)
  const useCurrent = form.get('useCurrent') === 'on'
  const parsed = parseForm(PatchRelationSchema, {
    action: 'edit',
    version: form.get('version'),
    relationType: form.get('relationType'),
    evidenceMd: form.get('evidenceMd') ?? '',
    sourceRevision: useCurrent ? current.source.revision : current.sourceRevision,
    targetRevision: useCurrent ? current.target.revision : current.targetRevision,
  })
  if (!parsed.ok) return invalidForm(parsed)
  return formAction(async () => {
    await patchRelation({
      id: params.id!,
      input: parsed.data,
      actor: { id: actor.user.id, role: actor.user.role },
    })
    return redirectWithFlash(
      '/relations?status=proposed',
      {
        kind: 'success',
        message: 'flash.relationEdited',
        values: { source: current.source.name, target: current.target.name },
      },
      context,
    )
  })
}

export default function EditRelationPage() {
  const t = useT()
  const { relation } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  return (
    <section>
      <h1>
        {t('relations.edit')}: {relation.source.name} —{t(`type.${relation.relationType}` as MessageKey)}→{' '}
        {relation.target.name}
      </h1>
      <Form method="post" className="stack wide">
        <FormError result={result} />
        <input type="hidden" name="version" value={relation.version} />
        <RelationTypeSelect name="relationType" defaultValue={relation.relationType} />
        <EvidenceField result={result} rows={6} defaultValue={relation.evidenceMd} />
        <label className="inline-check">
          <input type="checkbox" name="useCurrent" defaultChecked /> {t('relations.useCurrent')} (r
          {relation.sourceRevision}→r
          {relation.source.revision}, r{relation.targetRevision}→r{relation.target.revision})
        </label>
        <button type="submit">{t('common.save')}</button>
        <Link to="/relations">{t('common.cancel')}</Link>
      </Form>
    </section>
  )
}
