import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { data } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { useDataTable } from '#app/components/data-table.tsx'
import { Field, fieldError, FormError } from '#app/components/forms.tsx'
import { useCount, useLang } from '#app/components/terms/ui.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm, type FormFailure } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ClassificationCreateSchema, ClassificationUpdateSchema } from '#app/schemas/terms.ts'
import {
  createClassification,
  deleteClassification,
  listClassification,
  updateClassification,
  type ClassificationDto,
  type ClassificationKind,
} from '#app/services/terms/classification.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'classification.title') }]

/**
 * The administrator's page of the classification scheme (issue 27, item 2): the domains and business
 * categories, added, renamed or re-sorted, and deleted, through the same services as the API's `/domains` and
 * `/categories`. Works without JavaScript: "Edit" is a link (`?edit=domain:payments`) that turns the row into
 * a form, and deleting an entry that terms carry first asks to confirm with their number. Every action ends
 * in a redirect with a flash message; a refused form comes back with the message next to its field, and its
 * address ends in the form's anchor, so a browser without JavaScript shows the form, not the page's top.
 */

const KINDS = ['domain', 'category'] as const satisfies readonly ClassificationKind[]
const PAGE = '/admin/classification'

const isKind = (value: unknown): value is ClassificationKind => (KINDS as readonly unknown[]).includes(value)

/** A number field: empty is no value (the default on create, the stored order on edit). */
const numberOf = (value: FormDataEntryValue | null) =>
  value === null || String(value).trim() === '' ? undefined : Number(value)

/** The columns of an entry's row; the table stacks into cards on a phone. */
const COLUMNS = {
  name: 'classification.name',
  key: 'classification.key',
  sort: 'classification.sort',
  terms: 'classification.terms',
  actions: 'common.actions',
} as const satisfies Record<string, MessageKey>
type Table = ReturnType<typeof useDataTable<keyof typeof COLUMNS>>

/** The anchor of an entry's row (its edit form and its delete confirmation). */
const rowId = (kind: ClassificationKind, key: string) => `${kind}-${key}`

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  const [domain, category] = await Promise.all(KINDS.map((kind) => listClassification({ kind })))
  return { domain: domain!.items, category: category!.items }
}

/** The typed values of a refused form, to fill it again. */
interface Values {
  key: string
  nameEn: string
  nameKo: string
  sort: string
}

const FLASH: Record<
  ClassificationKind,
  Record<'created' | 'updated' | 'deleted' | 'deletedFrom', MessageKey>
> = {
  domain: {
    created: 'flash.domainCreated',
    updated: 'flash.domainUpdated',
    deleted: 'flash.domainDeleted',
    deletedFrom: 'flash.domainDeletedFromTerms',
  },
  category: {
    created: 'flash.categoryCreated',
    updated: 'flash.categoryUpdated',
    deleted: 'flash.categoryDeleted',
    deletedFrom: 'flash.categoryDeletedFromTerms',
  },
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const intent = String(form.get('intent') ?? '')
  const kind = form.get('kind')
  if (!isKind(kind)) return invalidForm({ ok: false as const, formError: 'Unknown action.' })
  const text = (name: string) => String(form.get(name) ?? '')
  const values: Values = {
    key: text('key'),
    nameEn: text('nameEn'),
    nameKo: text('nameKo'),
    sort: text('sort'),
  }
  // Each language's flash label takes the name in its own language.
  const names = (entry: { nameEn: string; nameKo: string }) => ({
    nameEn: entry.nameEn,
    nameKo: entry.nameKo,
  })
  const answer = { intent, kind, key: values.key, values }

  switch (intent) {
    case 'create': {
      const parsed = parseForm(ClassificationCreateSchema, {
        key: values.key.trim(),
        nameEn: values.nameEn,
        nameKo: values.nameKo,
        sort: numberOf(form.get('sort')),
      })
      if (!parsed.ok) return invalidForm({ ...parsed, ...answer })
      return formAction(async () => {
        const created = await createClassification({ kind, input: parsed.data })
        return redirectWithFlash(
          PAGE,
          { kind: 'success', message: FLASH[kind].created, values: names(created) },
          context,
        )
      }, answer)
    }
    case 'update': {
      const parsed = parseForm(ClassificationUpdateSchema, {
        nameEn: values.nameEn,
        nameKo: values.nameKo,
        sort: numberOf(form.get('sort')),
      })
      if (!parsed.ok) return invalidForm({ ...parsed, ...answer })
      return formAction(async () => {
        const updated = await updateClassification({ kind, key: values.key, input: parsed.data })
        return redirectWithFlash(
          PAGE,
          { kind: 'success', message: FLASH[kind].updated, values: names(updated) },
          context,
        )
      }, answer)
    }
    case 'delete': {
      const { items } = await listClassification({ kind })
      const entry = items.find((item) => item.key === values.key)
      // Terms carry it: say how many and what deleting does, and delete only once confirmed.
      if (entry && entry.termCount > 0 && form.get('confirm') !== 'yes') {
        return data({ ok: false as const, ...answer, confirm: { termCount: entry.termCount } })
      }
      return formAction(async () => {
        const { affectedTerms } = await deleteClassification({
          kind,
          key: values.key,
          actorId: actor.user.id,
        })
        return redirectWithFlash(
          PAGE,
          {
            kind: 'success',
            message: affectedTerms ? FLASH[kind].deletedFrom : FLASH[kind].deleted,
            values: {
              ...names(entry ?? { nameEn: values.key, nameKo: values.key }),
              count: String(affectedTerms),
            },
          },
          context,
        )
      }, answer)
    }
    default:
      return invalidForm({ ok: false as const, formError: 'Unknown action.' })
  }
}

/** What the action answers when it does not redirect: a refused form, or a deletion waiting for its confirmation. */
type Answer = Partial<FormFailure> & {
  intent?: string
  kind?: ClassificationKind
  key?: string
  values?: Values
  confirm?: { termCount: number }
}

/** A labelled input with its hint and its error, both announced with the input. */
/** The answer's messages for one form: its field errors, and its form-level message in words. */
function useFormMessages(answer: Answer | undefined) {
  const t = useT()
  const failed = answer?.ok === false && !answer.confirm ? answer : undefined
  return {
    // A key has one rule, so a refused key says it (the shared message of a pattern is generic).
    field: (name: keyof Values) => {
      const message = fieldError(failed, name)
      if (name !== 'key' || !message) return message
      return t(failed?.code === 'conflict' ? 'classification.keyTaken' : 'classification.keyRule')
    },
    form: failed?.code === 'not_found' ? { ...failed, formError: t('classification.gone') } : failed,
  }
}

function EntryRow(props: {
  table: Table
  kind: ClassificationKind
  item: ClassificationDto
  confirm?: number
}) {
  const t = useT()
  const lang = useLang()
  const count = useCount()
  const busy = useNavigation().state !== 'idle'
  const { table, kind, item } = props
  const [name, other] = lang === 'ko' ? [item.nameKo, item.nameEn] : [item.nameEn, item.nameKo]
  const id = rowId(kind, item.key)
  const terms = count('count.term', props.confirm ?? item.termCount)
  return (
    <>
      <tr id={id} {...table.row}>
        <td {...table.cell('name')}>
          <strong>{name}</strong> <span className="muted small">{other}</span>
        </td>
        <td {...table.cell('key')}>
          <code>{item.key}</code>
        </td>
        <td {...table.cell('sort')} className="nowrap">
          {item.sort}
        </td>
        <td {...table.cell('terms')} className="nowrap">
          {item.termCount > 0 ? (
            <Link to={`/terms?${kind}=${encodeURIComponent(item.key)}`} title={t('classification.showTerms')}>
              {count('count.term', item.termCount)}
            </Link>
          ) : (
            <span className="muted">{count('count.term', 0)}</span>
          )}
        </td>
        <td {...table.cell('actions')} className="nowrap classification-actions">
          <div className="row-actions">
            <Link
              to={`?edit=${kind}:${encodeURIComponent(item.key)}#${id}`}
              aria-label={fill(t('classification.editOf'), { name })}
            >
              {t('classification.edit')}
            </Link>
            <Form method="post" action={`${PAGE}#${id}`} preventScrollReset className="inline">
              <input type="hidden" name="intent" value="delete" />
              <input type="hidden" name="kind" value={kind} />
              <input type="hidden" name="key" value={item.key} />
              <button
                type="submit"
                className="secondary"
                disabled={busy}
                aria-label={fill(t('classification.deleteOf'), { name })}
              >
                {t('classification.delete')}
              </button>
            </Form>
          </div>
        </td>
      </tr>
      {props.confirm ? (
        <tr className="classification-wide" {...table.row}>
          <td colSpan={5} role="cell">
            <div role="alert" className="notice">
              <p>{fill(t('classification.confirmDelete'), { name, terms })}</p>
              <div className="row-actions">
                <Form method="post" action={PAGE} className="inline">
                  <input type="hidden" name="intent" value="delete" />
                  <input type="hidden" name="kind" value={kind} />
                  <input type="hidden" name="key" value={item.key} />
                  <input type="hidden" name="confirm" value="yes" />
                  <button type="submit" className="danger" disabled={busy}>
                    {fill(t('classification.confirmDeleteButton'), { terms })}
                  </button>
                </Form>
                <Link to={`${PAGE}#${id}`}>{t('classification.keepIt')}</Link>
              </div>
            </div>
          </td>
        </tr>
      ) : null}
    </>
  )
}

function EditRow(props: {
  table: Table
  kind: ClassificationKind
  item: ClassificationDto
  answer?: Answer
}) {
  const t = useT()
  const lang = useLang()
  const busy = useNavigation().state !== 'idle'
  const { table, kind, item, answer } = props
  const messages = useFormMessages(answer)
  const shown = answer?.values ?? {
    key: item.key,
    nameEn: item.nameEn,
    nameKo: item.nameKo,
    sort: String(item.sort),
  }
  const id = rowId(kind, item.key)
  const title = fill(t('classification.editOf'), { name: lang === 'ko' ? item.nameKo : item.nameEn })
  return (
    <tr id={id} className="classification-wide" {...table.row}>
      <td colSpan={5} role="cell">
        <Form
          method="post"
          action={`${PAGE}?edit=${kind}:${encodeURIComponent(item.key)}#${id}`}
          preventScrollReset
          className="classification-form"
          aria-label={title}
        >
          <input type="hidden" name="intent" value="update" />
          <input type="hidden" name="kind" value={kind} />
          <input type="hidden" name="key" value={item.key} />
          <p className="classification-form-title">
            <strong>{title}</strong> · {t('classification.key')} <code>{item.key}</code>{' '}
            <span className="muted small">{t('classification.keyFixed')}</span>
          </p>
          <div className="classification-fields">
            <Field
              id={`${id}-nameEn`}
              name="nameEn"
              label={t('classification.nameEn')}
              defaultValue={shown.nameEn}
              error={messages.field('nameEn')}
              required
            />
            <Field
              id={`${id}-nameKo`}
              name="nameKo"
              label={t('classification.nameKo')}
              defaultValue={shown.nameKo}
              error={messages.field('nameKo')}
              required
            />
            <Field
              id={`${id}-sort`}
              name="sort"
              type="number"
              label={t('classification.sort')}
              hint={t('classification.sortHint')}
              defaultValue={shown.sort}
              error={messages.field('sort')}
            />
          </div>
          <FormError result={messages.form} />
          <div className="row-actions">
            <button type="submit" disabled={busy}>
              {t('common.save')}
            </button>
            <Link to={`${PAGE}#${id}`}>{t('common.cancel')}</Link>
          </div>
        </Form>
      </td>
    </tr>
  )
}

function CreateForm(props: { kind: ClassificationKind; answer?: Answer }) {
  const t = useT()
  const busy = useNavigation().state !== 'idle'
  const { kind, answer } = props
  const messages = useFormMessages(answer)
  const shown = answer?.values
  const id = `add-${kind}`
  return (
    <Form
      method="post"
      action={`${PAGE}#${id}`}
      preventScrollReset
      className="classification-form"
      aria-labelledby={`${id}-title`}
      id={id}
      // a refused form keeps what was typed; a new entry (another key) starts empty
      key={shown ? 'refused' : 'empty'}
    >
      <h3 id={`${id}-title`}>{t(`classification.${kind}.add`)}</h3>
      <input type="hidden" name="intent" value="create" />
      <input type="hidden" name="kind" value={kind} />
      <div className="classification-fields">
        <Field
          id={`${id}-key`}
          name="key"
          label={t('classification.key')}
          hint={t('classification.keyHint')}
          defaultValue={shown?.key}
          error={messages.field('key')}
          required
        />
        <Field
          id={`${id}-nameEn`}
          name="nameEn"
          label={t('classification.nameEn')}
          defaultValue={shown?.nameEn}
          error={messages.field('nameEn')}
          required
        />
        <Field
          id={`${id}-nameKo`}
          name="nameKo"
          label={t('classification.nameKo')}
          defaultValue={shown?.nameKo}
          error={messages.field('nameKo')}
          required
        />
        <Field
          id={`${id}-sort`}
          name="sort"
          type="number"
          label={t('classification.sort')}
          hint={t('classification.sortHint')}
          defaultValue={shown?.sort}
          error={messages.field('sort')}
        />
      </div>
      <FormError result={messages.form} />
      <div>
        <button type="submit" disabled={busy}>
          {t('classification.add')}
        </button>
      </div>
    </Form>
  )
}

function KindSection(props: { kind: ClassificationKind; items: ClassificationDto[]; answer?: Answer }) {
  const t = useT()
  const [params] = useSearchParams()
  const { kind, items, answer } = props
  const mine = answer?.kind === kind ? answer : undefined
  const editing = params.get('edit')
  const table = useDataTable(COLUMNS, { className: 'classification-table' })
  return (
    <section className="classification-kind" aria-labelledby={`${kind}-heading`}>
      <h2 id={`${kind}-heading`}>{t(`classification.${kind}.heading`)}</h2>
      <p className="muted">{t(`classification.${kind}.hint`)}</p>
      {mine && mine.intent !== 'create' && mine.code === 'not_found' ? (
        <p role="alert" className="error">
          {t('classification.gone')}
        </p>
      ) : null}
      {items.length === 0 ? (
        <p>{t(`classification.${kind}.none`)}</p>
      ) : (
        <table {...table.props}>
          {table.head}
          <tbody {...table.body}>
            {items.map((item) => {
              const about = mine?.key === item.key ? mine : undefined
              return editing === `${kind}:${item.key}` ? (
                <EditRow
                  key={item.key}
                  table={table}
                  kind={kind}
                  item={item}
                  answer={about?.intent === 'update' ? about : undefined}
                />
              ) : (
                <EntryRow
                  key={item.key}
                  table={table}
                  kind={kind}
                  item={item}
                  confirm={about?.intent === 'delete' ? about.confirm?.termCount : undefined}
                />
              )
            })}
          </tbody>
        </table>
      )}
      <CreateForm kind={kind} answer={mine?.intent === 'create' ? mine : undefined} />
    </section>
  )
}

export default function AdminClassificationPage() {
  const t = useT()
  const lists = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() as Answer | undefined
  return (
    <section>
      <h1>{t('classification.title')}</h1>
      <p className="muted">{t('classification.intro')}</p>
      {answer && !answer.kind ? <FormError result={answer} /> : null}
      {KINDS.map((kind) => (
        <KindSection key={kind} kind={kind} items={lists[kind]} answer={answer} />
      ))}
    </section>
  )
}
