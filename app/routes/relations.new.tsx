import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData, useSearchParams, useSubmit } from '@remix-run/react'
import { useRef } from 'react'
import { EvidenceField, RelationTypeSelect } from '#app/components/content/relation-fields.tsx'
import { FormError, fieldError } from '#app/components/forms.tsx'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ProposeRelationSchema } from '#app/schemas/relations.ts'
import { searchRelationTerms } from '#app/services/relations/read.server.ts'
import { proposeRelation } from '#app/services/relations/write.server.ts'

export const meta: MetaFunction = () => [{ title: 'Propose a relation · Glossary' }]

/** The term picker: two searches (`sq`, `tq`) whose candidates carry the id and current revision. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const params = new URL(request.url).searchParams
  const search = async (q: string | null) =>
    q ? (await searchRelationTerms({ q: q.slice(0, 200) })).items : []
  return { sources: await search(params.get('sq')), targets: await search(params.get('tq')) }
}

/** Any signed-in role may propose; the radio value is `<termId>:<revision>` as the picker showed it. */
export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request)
  const form = await request.formData()
  const [sourceTermId, sourceRevision] = String(form.get('source') ?? ':').split(':')
  const [targetTermId, targetRevision] = String(form.get('target') ?? ':').split(':')
  const parsed = parseForm(ProposeRelationSchema, {
    sourceTermId,
    targetTermId,
    sourceRevision,
    targetRevision,
    relationType: form.get('relationType'),
    evidenceMd: form.get('evidenceMd') ?? '',
  })
  if (!parsed.ok) return invalidForm(parsed)
  return formAction(async () => {
    await proposeRelation({ input: parsed.data, actor: { id: actor.user.id, role: actor.user.role } })
    return redirect('/relations?status=proposed')
  })
}

function Picker(props: {
  name: 'source' | 'target'
  query: string
  label: string
  items: { id: string; slug: string; name: string; revision: number; definition: string }[]
}) {
  const t = useT()
  const submit = useSubmit()
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  return (
    <fieldset>
      <legend>{props.label}</legend>
      <label>
        {t('relations.findTerm')}
        {/* Belongs to the GET form "picker": searching never submits the proposal. */}
        <input
          name={props.name === 'source' ? 'sq' : 'tq'}
          defaultValue={props.query}
          form="picker"
          onChange={(event) => {
            const form = event.currentTarget.form
            clearTimeout(timer.current)
            timer.current = setTimeout(
              () => form && submit(form, { replace: true, preventScrollReset: true }),
              250,
            )
          }}
        />
      </label>
      {props.items.map((term, index) => (
        <label key={term.id} className="inline-check picker-item">
          <input
            type="radio"
            name={props.name}
            value={`${term.id}:${term.revision}`}
            defaultChecked={index === 0}
            required
          />
          <strong>{term.name}</strong>{' '}
          <span className="muted">
            r{term.revision} · {term.definition.slice(0, 80)}
          </span>
        </label>
      ))}
    </fieldset>
  )
}

export default function ProposeRelationPage() {
  const t = useT()
  const { sources, targets } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const [params] = useSearchParams()
  return (
    <section>
      <h1>{t('relations.propose')}</h1>
      {/* The search form: typing searches as you go with JavaScript; Enter or the button without it. */}
      <Form method="get" id="picker" className="filters">
        <button type="submit" className="secondary">
          {t('relations.findTerm')}
        </button>
      </Form>
      <Form method="post" className="stack wide">
        <FormError result={result} />
        <Picker name="source" query={params.get('sq') ?? ''} label={t('relations.source')} items={sources} />
        <Picker name="target" query={params.get('tq') ?? ''} label={t('relations.target')} items={targets} />
        {fieldError(result, 'targetTermId') ? (
          <p className="error">{fieldError(result, 'targetTermId')}</p>
        ) : null}
        <RelationTypeSelect name="relationType" defaultValue="related_to" />
        <EvidenceField result={result} rows={5} />
        <button type="submit">{t('relations.submit')}</button>
      </Form>
    </section>
  )
}
