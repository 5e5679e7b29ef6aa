import { Form } from '@remix-run/react'
import type { ReactNode } from 'react'
import { Field, FormError } from '#app/components/forms.tsx'
import { fill } from '#app/lib/i18n.ts'
import type { FormFailure } from '#app/pages/forms.server.ts'
import { useT } from '#app/root.tsx'
import { RAG_LIMITS } from '#domain/rag.ts'

/**
 * The form pieces every provider settings page shares (the search settings' embedding and reranker endpoints,
 * the chat's AI provider): the model picker with its "Load models" button, the write-only API key, and the
 * write-only custom header rows. Each takes the form's field prefix (`embedding`, `reranker`, `llm`), so the
 * fields are `<prefix>Model`, `<prefix>ApiKey`, `<prefix>Headers.<i>.name|value|stored|remove`. Secrets are never
 * put back into the form: the page says whether one is stored, never what it is.
 */

/** At most this many empty rows for new custom headers are offered at a time (the form grows after a save). */
export const NEW_HEADER_ROWS = 2

/** A custom header row as the form shows it: a stored one by name only, a new one as typed (never its value). */
export interface HeaderRow {
  name: string
  stored: boolean
}

/** One prefix's header rows from the form: `<prefix>Headers.<i>.name|value|stored|remove`. */
export function headerRowsOf(form: FormData, prefix: string) {
  const rows: { name: string; value: string; stored: boolean; remove: boolean }[] = []
  for (let i = 0; i < RAG_LIMITS.customHeadersMax + NEW_HEADER_ROWS; i++) {
    const key = `${prefix}Headers.${i}`
    if (!form.has(`${key}.name`)) continue
    rows.push({
      name: String(form.get(`${key}.name`) ?? '').trim(),
      value: String(form.get(`${key}.value`) ?? ''),
      stored: form.get(`${key}.stored`) === '1',
      remove: form.get(`${key}.remove`) === 'on',
    })
  }
  // A blank new row is no header; a removed row leaves the list, which deletes it (rule 5).
  return rows.filter((r) => !r.remove && (r.stored || r.name !== '' || r.value !== ''))
}

/** `""` keeps the stored key, `null` deletes it (spec PATCH rule 5). */
export const keyOf = (form: FormData, prefix: string) =>
  form.get(`${prefix}ApiKeyRemove`) === 'on' ? null : String(form.get(`${prefix}ApiKey`) ?? '')

/** A number field: empty keeps the stored value; anything else is checked by the schema. */
export const numberOf = (value: string) => (value.trim() === '' ? undefined : Number(value))

/** The first problem at a field or below it (a header row's problems name the row: `embeddingCustomHeaders.1.name`). */
export function errorAt(errors: Record<string, string>, name: string): string | undefined {
  return errors[name] ?? Object.entries(errors).find(([path]) => path.startsWith(`${name}.`))?.[1]
}

/** The model: a select of the provider's models once listed (with "other"), and the free-text field. */
export function ModelField(props: {
  prefix: string
  value: string
  models: string[]
  error?: string
  /** The answer of this prefix's "Load models": how many were listed, or why not. */
  listed?: number
  listFailure?: FormFailure | null
  /** What the list holds and which key goes along (the search settings' wording when omitted). */
  hint?: string
}) {
  const t = useT()
  const { prefix, value, models } = props
  const listed = models.includes(value)
  return (
    <>
      {models.length ? (
        <label htmlFor={`${prefix}-model`}>
          {t('searchSettings.model')}
          <select id={`${prefix}-model`} name={`${prefix}Model`} defaultValue={listed ? value : ''}>
            {models.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
            <option value="">{t('searchSettings.modelOther')}</option>
          </select>
        </label>
      ) : null}
      {models.map((id) => (
        <input key={id} type="hidden" name={`${prefix}KnownModel`} value={id} />
      ))}
      <Field
        label={models.length ? t('searchSettings.modelOtherField') : t('searchSettings.model')}
        name={models.length ? `${prefix}ModelOther` : `${prefix}Model`}
        defaultValue={listed ? '' : value}
        error={props.error}
      />
      <div className="settings-action" id={`${prefix}-models`}>
        <button type="submit" name="intent" value={`models-${prefix}`} formNoValidate className="secondary">
          {t('searchSettings.loadModels')}
        </button>
        {props.listed !== undefined ? (
          <p role="status" className="notice">
            {fill(t('searchSettings.modelsListed'), { n: props.listed })}
          </p>
        ) : null}
        <FormError result={props.listFailure} />
        <p className="muted small">{props.hint ?? t('searchSettings.modelsHint')}</p>
      </div>
    </>
  )
}

/** The write-only API key: whether one is stored, a field that replaces it (empty keeps) and a removal box. */
export function ApiKeyField(props: { prefix: string; stored: boolean; error?: string }) {
  const t = useT()
  return (
    <>
      <Field
        label={t('searchSettings.apiKey')}
        name={`${props.prefix}ApiKey`}
        type="password"
        autoComplete="new-password"
        error={props.error}
      />
      <p className="muted small" data-testid={`${props.prefix}-key-state`}>
        {t(props.stored ? 'searchSettings.configured' : 'searchSettings.notConfigured')}
      </p>
      {props.stored ? (
        <label className="inline-check">
          <input type="checkbox" name={`${props.prefix}ApiKeyRemove`} /> {t('searchSettings.apiKeyRemove')}
        </label>
      ) : null}
    </>
  )
}

/**
 * Custom headers, write-only: stored rows by name with "configured" (or "not configured" once a changed base
 * URL cleared the value; `stored` is what the settings now hold), a value field that replaces, a removal box.
 * Folded away while there are none (most providers need none), open when some are stored or refused.
 */
export function HeaderRows(props: {
  prefix: string
  rows: HeaderRow[]
  stored: readonly { name: string; configured: boolean }[]
  error?: string
}) {
  const t = useT()
  const configured = (name: string) => props.stored.some((h) => h.name === name && h.configured)
  const free = Math.max(0, Math.min(NEW_HEADER_ROWS, RAG_LIMITS.customHeadersMax - props.rows.length))
  const rows = [...props.rows, ...Array.from({ length: free }, () => ({ name: '', stored: false }))]
  return (
    <details
      className="settings-fold"
      data-testid={`${props.prefix}-headers`}
      open={props.rows.length > 0 || Boolean(props.error)}
    >
      <summary>
        {t('searchSettings.headers')}
        {props.rows.length ? <span className="muted small"> ({props.rows.length})</span> : null}
      </summary>
      <p className="muted small">
        {fill(t('searchSettings.headersHint'), { max: RAG_LIMITS.customHeadersMax })}
      </p>
      {rows.map((row, i) => {
        const key = `${props.prefix}Headers.${i}`
        return (
          <div className="header-row" key={`${key}-${row.name}`}>
            {row.stored ? (
              <>
                <input type="hidden" name={`${key}.name`} value={row.name} />
                <input type="hidden" name={`${key}.stored`} value="1" />
                <code>{row.name}</code>{' '}
                <span className="muted small">
                  {t(configured(row.name) ? 'searchSettings.configured' : 'searchSettings.notConfigured')}
                </span>
              </>
            ) : (
              <input
                name={`${key}.name`}
                defaultValue={row.name}
                placeholder={t('searchSettings.headerName')}
                aria-label={t('searchSettings.headerName')}
              />
            )}
            <input
              name={`${key}.value`}
              type="password"
              autoComplete="off"
              placeholder={t(
                row.stored && configured(row.name)
                  ? 'searchSettings.headerKeep'
                  : 'searchSettings.headerValue',
              )}
              aria-label={
                row.stored
                  ? `${t('searchSettings.headerValue')} ${row.name}`
                  : t('searchSettings.headerValue')
              }
            />
            {row.stored || row.name ? (
              <label className="inline-check">
                <input type="checkbox" name={`${key}.remove`} /> {t('searchSettings.headerRemove')}
              </label>
            ) : null}
          </div>
        )
      })}
      {props.error ? <p className="error">{props.error}</p> : null}
    </details>
  )
}

/** A provider failure as the settings pages show it: the failure class in the reader's language, then why. */
export function ProviderFailure(props: { failure: FormFailure; title: string }) {
  const t = useT()
  const failureClass = props.failure.details?.failureClass
  return (
    <div role="alert" className="notice error" data-testid="test-result" data-ok="false">
      <p>
        <strong>{props.title}</strong>
        {typeof failureClass === 'string' ? (
          <>
            {' '}
            {t('ai.failureClass')}:{' '}
            <span data-testid="failure-class">{t(`ai.failure.${failureClass}` as 'ai.failure.timeout')}</span>
          </>
        ) : null}
      </p>
      <p className="muted small">{props.failure.formError}</p>
      {Object.values(props.failure.fieldErrors ?? {}).map((message) => (
        <p key={message} className="error">
          {message}
        </p>
      ))}
    </div>
  )
}

/**
 * The save button at the form's end, at `anchor` (the form's address ends in it, so a refused save opens there
 * without JavaScript), with the refusal and the reminder to type secrets again (they are never sent back).
 */
export function SaveSettings(props: {
  anchor: string
  failure: FormFailure | null
  busy: boolean
  hint?: string
}) {
  const t = useT()
  return (
    <div className="settings-action" id={props.anchor}>
      {props.hint ? <p className="muted small">{props.hint}</p> : null}
      <FormError result={props.failure} />
      {props.failure ? <p className="muted small">{t('searchSettings.retypeSecrets')}</p> : null}
      <div>
        <button type="submit" name="intent" value="save" disabled={props.busy}>
          {t('searchSettings.save')}
        </button>
      </div>
    </div>
  )
}

/**
 * The connection test: its own small form posting `intent=test` to the page at `anchor`, and its answer there
 * (`passed`, what the page says of a passed test, or the provider failure).
 */
export function ConnectionTest(props: {
  page: string
  anchor: string
  hint: string
  busy: boolean
  passed: ReactNode | null
  failure: FormFailure | null
}) {
  const t = useT()
  const heading = `${props.anchor}-title`
  return (
    <section className="settings-section" id={props.anchor} aria-labelledby={heading}>
      <h2 id={heading}>{t('searchSettings.test')}</h2>
      <p className="muted small">{props.hint}</p>
      <Form method="post" action={`${props.page}#${props.anchor}`}>
        <button type="submit" name="intent" value="test" disabled={props.busy}>
          {t('searchSettings.testButton')}
        </button>
      </Form>
      {props.passed ? (
        <p role="status" className="notice" data-testid="test-result" data-ok="true">
          {props.passed}
        </p>
      ) : null}
      {props.failure ? (
        <ProviderFailure failure={props.failure} title={t('searchSettings.testFailed')} />
      ) : null}
    </section>
  )
}
