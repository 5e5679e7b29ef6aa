import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'
import { EvidenceField, RelationTypeSelect } from '#app/components/content/relation-fields.tsx'
import { FormError, fieldError } from '#app/components/forms.tsx'
import { TermPicker, type PickerTerm } from '#app/components/term-picker.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { fill, translate } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { chooseTerm, formLang, type TermChoice } from '#app/pages/term-choice.server.ts'
import { useT } from '#app/root.tsx'
import { ProposeRelationSchema } from '#app/schemas/relations.ts'
import { termsNamed } from '#app/services/relations/read.server.ts'
import { proposeRelation } from '#app/services/relations/write.server.ts'

export const meta: MetaFunction = () => [{ title: 'Propose a relation · Glossary' }]

/** The form's fields as posted, to fill it again when it is refused. */
interface ProposeValues {
  source: string
  target: string
  relationType: string
  evidenceMd: string
}

/**
 * The form, optionally with a term already in place (`?sourceId=…` from a term page's "Propose a relation",
 * or `?source=<name>` / `?target=<name>` typed elsewhere).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const params = new URL(request.url).searchParams
  const ids = ['sourceId', 'targetId'].map((name) => params.get(name) ?? '').filter(Boolean)
  const { byId } = await termsNamed({ texts: [], ids })
  const initial = (field: 'source' | 'target') => ({
    text: (params.get(field) ?? '').slice(0, 200),
    term: byId.get(params.get(`${field}Id`) ?? '') ?? null,
  })
  return { source: initial('source'), target: initial('target') }
}

/**
 * Any signed-in role may propose. Each term is taken by name (app/pages/term-choice.server.ts): the id the
 * picker chose with JavaScript, else the typed name resolved here, with a choice when it names several terms.
 * The relation records the terms' current revisions.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request)
  const form = await request.formData()
  const lang = formLang(request)
  const values: ProposeValues = {
    source: String(form.get('source') ?? ''),
    target: String(form.get('target') ?? ''),
    relationType: String(form.get('relationType') ?? ''),
    evidenceMd: String(form.get('evidenceMd') ?? ''),
  }
  const source = await chooseTerm(form, 'source', lang)
  const target = await chooseTerm(form, 'target', lang)
  const chosen = { source: termOf(source), target: termOf(target) }
  if (!source.ok || !target.ok) {
    const refused = (['source', 'target'] as const).filter((field) => !{ source, target }[field].ok)
    return invalidForm({
      ok: false as const,
      formError: fill(translate(lang, 'picker.formError'), {
        fields: refused.map((field) => translate(lang, `relations.${field}`)).join(', '),
      }),
      fieldErrors: Object.fromEntries(refused.map((field) => [field, messageOf({ source, target }[field])])),
      options: { source: optionsOf(source), target: optionsOf(target) },
      chosen,
      values,
    })
  }
  if (source.term.id === target.term.id) {
    return invalidForm({
      ok: false as const,
      formError: fill(translate(lang, 'picker.formError'), { fields: translate(lang, 'relations.target') }),
      fieldErrors: { target: translate(lang, 'picker.sameTerm') },
      chosen,
      values,
    })
  }
  const parsed = parseForm(ProposeRelationSchema, {
    sourceTermId: source.term.id,
    targetTermId: target.term.id,
    sourceRevision: source.term.revision,
    targetRevision: target.term.revision,
    relationType: values.relationType,
    evidenceMd: values.evidenceMd,
  })
  if (!parsed.ok) return invalidForm({ ...parsed, chosen, values })
  return formAction(
    async () => {
      await proposeRelation({ input: parsed.data, actor: { id: actor.user.id, role: actor.user.role } })
      return redirectWithFlash(
        '/relations?status=proposed',
        {
          kind: 'success',
          message: 'flash.relationProposed',
          values: { source: source.term.name, target: target.term.name },
        },
        context,
      )
    },
    { chosen, values },
  )
}

function termOf(choice: TermChoice): PickerTerm | null {
  return choice.ok ? choice.term : null
}
function messageOf(choice: TermChoice): string {
  return choice.ok ? '' : choice.message
}
function optionsOf(choice: TermChoice): PickerTerm[] | undefined {
  return choice.ok ? undefined : choice.options
}

/** What a refused post answers (the picker's choices and the values to fill the form again). */
interface Refused {
  ok?: false
  options?: { source?: PickerTerm[]; target?: PickerTerm[] }
  chosen?: { source: PickerTerm | null; target: PickerTerm | null }
  values?: ProposeValues
}

export default function ProposeRelationPage() {
  const t = useT()
  const initial = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as (Refused & Record<string, unknown>) | undefined
  const values = result?.values
  const picker = (field: 'source' | 'target') => (
    <TermPicker
      field={field}
      label={t(`relations.${field}`)}
      defaultText={values ? values[field] : initial[field].text}
      defaultTerm={result ? (result.chosen?.[field] ?? null) : initial[field].term}
      error={fieldError(result, field) ?? fieldError(result, `${field}TermId`)}
      options={result?.options?.[field]}
    />
  )
  return (
    <section>
      <h1>{t('relations.propose')}</h1>
      <Form method="post" className="stack wide">
        <FormError result={result} />
        {picker('source')}
        {picker('target')}
        <RelationTypeSelect name="relationType" defaultValue={values?.relationType || 'related_to'} />
        <EvidenceField result={result} rows={5} defaultValue={values?.evidenceMd} />
        <button type="submit">{t('relations.submit')}</button>
      </Form>
    </section>
  )
}
