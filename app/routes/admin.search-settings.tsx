import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { Field } from '#app/components/forms.tsx'
import {
  ApiKeyField,
  ConnectionTest,
  errorAt,
  HeaderRows,
  headerRowsOf,
  keyOf,
  ModelField,
  numberOf,
  SaveSettings,
  type HeaderRow,
} from '#app/components/provider-fields.tsx'
import { useCount, useNumber } from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import {
  formAction,
  invalidForm,
  parseForm,
  renameFieldErrors,
  type FormFailure,
} from '#app/pages/forms.server.ts'
import { savedSettings } from '#app/pages/provider-settings.server.ts'
import { pageAudit, requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ListModelsSchema, UpdateRagConfigSchema, type RagConfigDto } from '#app/schemas/rag.ts'
import { listProviderModels, testConnection } from '#app/services/search/provider-check.server.ts'
import { getRagConfig, updateRagConfig } from '#app/services/search/rag-config.server.ts'
import { EMBEDDING_PROVIDERS, MODEL_ENDPOINTS, RAG_LIMITS, RERANKER_PROVIDERS } from '#domain/rag.ts'
import type { ModelEndpoint } from '#domain/rag.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'searchSettings.title') }]

/**
 * The administrator's "Search and AI" page (issue 12): the search configuration's fields, the provider's model
 * list, the connection test and why search cannot run — the same services as `GET`/`PATCH /admin/rag-config`,
 * `POST /admin/rag-config/models` and `/test`. Secrets are write-only: the page says whether a key or a header
 * value is stored, never what it is, and a refused save or a model list never sends typed secrets back (they
 * are typed again). Works without JavaScript: "Load models" is a submit button answering the form with the
 * submitted values and the list.
 *
 * Short sections (issue 27, item 11): the switch, the embedding provider's address and model, its key and
 * headers; the reranker, custom headers and chunking fold away until used. Each answer is shown next to the
 * button that asked for it (a model list at its "Load models", a refused save at "Save", the connection test
 * at its button), and a form's address ends in that place's anchor, so a browser without JavaScript opens the
 * answer there. A save ends in a redirect with a flash message. The switch section holds `chatEnabled` too (the
 * chat's switch; its model is set on the AI provider page, `/admin/ai-provider`).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  return { config: await getRagConfig() }
}

const PAGE = '/admin/search-settings'
/** The anchors of the places answers are shown at (see the module's comment). */
const SAVE_ANCHOR = 'save-settings'
const TEST_ANCHOR = 'test-connection'

/**
 * The submitted settings as the form shows them again after a model list or a refused save: every field but
 * the secrets (API keys and header values), which are never sent back to the browser.
 */
function formValues(form: FormData) {
  const text = (name: string) => String(form.get(name) ?? '')
  // the model select when the provider's list is shown, else (or with "other") the free-text field
  const model = (prefix: ModelEndpoint) => text(`${prefix}Model`) || text(`${prefix}ModelOther`)
  const headers = (prefix: ModelEndpoint): HeaderRow[] =>
    headerRowsOf(form, prefix).map((r) => ({ name: r.name, stored: r.stored }))
  const known = (prefix: ModelEndpoint) => form.getAll(`${prefix}KnownModel`).map(String)
  return {
    enabled: form.get('enabled') === 'on',
    chatEnabled: form.get('chatEnabled') === 'on',
    embeddingProvider: text('embeddingProvider'),
    embeddingBaseUrl: text('embeddingBaseUrl'),
    embeddingModel: model('embedding'),
    embeddingHeaders: headers('embedding'),
    rerankerEnabled: form.get('rerankerEnabled') === 'on',
    rerankerProvider: text('rerankerProvider'),
    rerankerBaseUrl: text('rerankerBaseUrl'),
    rerankerModel: model('reranker'),
    rerankerHeaders: headers('reranker'),
    chunkSize: text('chunkSize'),
    chunkOverlap: text('chunkOverlap'),
    topK: text('topK'),
    models: { embedding: known('embedding'), reranker: known('reranker') },
  }
}
type FormValues = ReturnType<typeof formValues>

/** The whole form as a PATCH body: the header lists are always sent, since the form shows the full lists. */
function patchOf(form: FormData, values: FormValues) {
  const headers = (prefix: ModelEndpoint) =>
    headerRowsOf(form, prefix).map((r) => ({ name: r.name, value: r.value }))
  return {
    enabled: values.enabled,
    chatEnabled: values.chatEnabled,
    embeddingProvider: values.embeddingProvider,
    embeddingBaseUrl: values.embeddingBaseUrl,
    embeddingModel: values.embeddingModel,
    embeddingApiKey: keyOf(form, 'embedding'),
    embeddingCustomHeaders: headers('embedding'),
    rerankerEnabled: values.rerankerEnabled,
    rerankerProvider: values.rerankerProvider,
    rerankerBaseUrl: values.rerankerBaseUrl,
    rerankerModel: values.rerankerModel,
    rerankerApiKey: keyOf(form, 'reranker'),
    rerankerCustomHeaders: headers('reranker'),
    chunkSize: numberOf(values.chunkSize),
    chunkOverlap: numberOf(values.chunkOverlap),
    topK: numberOf(values.topK),
  }
}

/** Problems of the model list name `baseUrl`; on this page that is the endpoint's own base URL field. */
const atBaseUrl = (failure: FormFailure, endpoint: ModelEndpoint): FormFailure =>
  renameFieldErrors(failure, (path) => (path === 'baseUrl' ? `${endpoint}BaseUrl` : path))

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const intent = String(form.get('intent') ?? '')
  if (intent === 'test') {
    return formAction(async () => ({ ok: true as const, test: await testConnection() }))
  }
  const values = formValues(form)
  const endpoint = MODEL_ENDPOINTS.find((e) => intent === `models-${e}`)
  if (endpoint) {
    const parsed = parseForm(ListModelsSchema, { baseUrl: values[`${endpoint}BaseUrl`], endpoint })
    if (!parsed.ok) return invalidForm({ ...atBaseUrl(parsed, endpoint), values, listing: endpoint })
    return formAction(
      async () => {
        const { models } = await listProviderModels(parsed.data)
        const listed = { ...values.models, [endpoint]: models.map((m) => m.id) }
        return { ok: true as const, listed: endpoint, values: { ...values, models: listed } }
      },
      { values, listing: endpoint },
    )
  }
  const parsed = parseForm(UpdateRagConfigSchema, patchOf(form, values))
  if (!parsed.ok) return invalidForm({ ...parsed, values })
  return formAction(
    async () => {
      const saved = await updateRagConfig({
        input: parsed.data,
        actorId: actor.user.id,
        audit: pageAudit(actor, request, context),
      })
      return savedSettings(
        PAGE,
        saved,
        { saved: 'searchSettings.saved', secretsCleared: 'searchSettings.savedSecretsCleared' },
        context,
      )
    },
    { values },
  )
}

/** The stored settings in the form's shape. */
function storedValues(config: RagConfigDto): FormValues {
  const rows = (headers: RagConfigDto['embeddingCustomHeaders']) =>
    headers.map((h) => ({ name: h.name, stored: true }))
  return {
    enabled: config.enabled,
    chatEnabled: config.chatEnabled,
    embeddingProvider: config.embeddingProvider,
    embeddingBaseUrl: config.embeddingBaseUrl,
    embeddingModel: config.embeddingModel,
    embeddingHeaders: rows(config.embeddingCustomHeaders),
    rerankerEnabled: config.rerankerEnabled,
    rerankerProvider: config.rerankerProvider,
    rerankerBaseUrl: config.rerankerBaseUrl,
    rerankerModel: config.rerankerModel,
    rerankerHeaders: rows(config.rerankerCustomHeaders),
    chunkSize: String(config.chunkSize),
    chunkOverlap: String(config.chunkOverlap),
    topK: String(config.topK),
    models: { embedding: [], reranker: [] },
  }
}

/** A provider's settings: kind, address and model, then its key and headers. */
function EndpointFields(props: {
  endpoint: ModelEndpoint
  providers: readonly string[]
  shown: FormValues
  storedKey: boolean
  storedHeaders: RagConfigDto['embeddingCustomHeaders']
  error: (name: string) => string | undefined
  listed?: number
  listFailure?: FormFailure | null
}) {
  const t = useT()
  const { endpoint, shown, error } = props
  return (
    <>
      <h3>{t('searchSettings.addressModel')}</h3>
      <label htmlFor={`${endpoint}-provider`}>
        {t('searchSettings.provider')}
        <select
          id={`${endpoint}-provider`}
          name={`${endpoint}Provider`}
          defaultValue={shown[`${endpoint}Provider`]}
          aria-invalid={error(`${endpoint}Provider`) ? true : undefined}
          aria-describedby={error(`${endpoint}Provider`) ? `${endpoint}-provider-error` : undefined}
        >
          {props.providers.map((kind) => (
            <option key={kind} value={kind}>
              {t(`searchSettings.provider.${kind}` as MessageKey)}
            </option>
          ))}
        </select>
        {error(`${endpoint}Provider`) ? (
          <span id={`${endpoint}-provider-error`} className="error">
            {error(`${endpoint}Provider`)}
          </span>
        ) : null}
      </label>
      <Field
        label={t('searchSettings.baseUrl')}
        name={`${endpoint}BaseUrl`}
        defaultValue={shown[`${endpoint}BaseUrl`]}
        error={error(`${endpoint}BaseUrl`)}
      />
      <ModelField
        prefix={endpoint}
        value={shown[`${endpoint}Model`]}
        models={shown.models[endpoint]}
        error={error(`${endpoint}Model`)}
        listed={props.listed}
        listFailure={props.listFailure}
      />
      <h3>{t('searchSettings.keyHeaders')}</h3>
      <ApiKeyField prefix={endpoint} stored={props.storedKey} error={error(`${endpoint}ApiKey`)} />
      <HeaderRows
        prefix={endpoint}
        rows={shown[`${endpoint}Headers`]}
        stored={props.storedHeaders}
        error={error(`${endpoint}CustomHeaders`)}
      />
    </>
  )
}

const CHUNK_FIELDS = ['chunkSize', 'chunkOverlap', 'topK'] as const
const RERANKER_FIELDS = [
  'rerankerEnabled',
  'rerankerProvider',
  'rerankerBaseUrl',
  'rerankerModel',
  'rerankerApiKey',
]

export default function AdminSearchSettingsPage() {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  const { config } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  const failure = result && result.ok === false ? (result as FormFailure & { listing?: ModelEndpoint }) : null
  // after a model list or a refused save the form shows what was submitted, else what is stored
  const shown: FormValues =
    result && 'values' in result ? (result.values as FormValues) : storedValues(config)
  const errors = failure?.fieldErrors ?? {}
  const error = (name: string) => errorAt(errors, name)
  const test = result && 'test' in result ? result.test : null
  const testFailure = failure && !('values' in failure) ? failure : null
  // a refused model list is shown at its button, a refused save at "Save"
  const listFailure = (endpoint: ModelEndpoint) => (failure?.listing === endpoint ? failure : null)
  const saveFailure = failure && 'values' in failure && !failure.listing ? failure : null
  const listed = (endpoint: ModelEndpoint) =>
    result && 'listed' in result && result.listed === endpoint
      ? result.values.models[endpoint].length
      : undefined
  const rerankerOpen =
    shown.rerankerEnabled ||
    shown.rerankerBaseUrl !== '' ||
    RERANKER_FIELDS.some((name) => error(name)) ||
    Boolean(error('rerankerCustomHeaders')) ||
    failure?.listing === 'reranker' ||
    listed('reranker') !== undefined
  // new default values (a model list, a save) need new inputs: React keeps an uncontrolled field's value,
  // and a typed secret must not stay in the form after it was saved
  const formKey = JSON.stringify(shown.models) + config.updatedAt
  return (
    <section className="settings-page">
      <h1>{t('searchSettings.title')}</h1>
      {!config.secretsReadable ? (
        <div role="alert" className="notice error" data-testid="secrets-unreadable">
          <p>
            <strong>{t('searchSettings.unreadable')}</strong>
          </p>
          <p>{t('searchSettings.unreadableFix')}</p>
        </div>
      ) : null}
      <p data-testid="search-state">
        {t(config.enabled ? 'searchSettings.stateOn' : 'searchSettings.stateOff')} ·{' '}
        {fill(t('searchSettings.indexed'), {
          indexed: number(config.indexedTerms),
          terms: count('count.term', config.totalTerms),
        })}{' '}
        · <Link to="/admin/search-index">{t('nav.searchIndex')}</Link>
      </p>

      <Form method="post" action={`${PAGE}#${SAVE_ANCHOR}`} className="settings-form" key={formKey}>
        {/* Enter in a field submits with the form's first submit button: let that be "save", not a model list. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden="true" />

        <section className="settings-section" aria-labelledby="settings-switch">
          <h2 id="settings-switch">{t('searchSettings.switch')}</h2>
          <label className="inline-check">
            <input type="checkbox" name="enabled" defaultChecked={shown.enabled} />
            {t('searchSettings.enabled')}
          </label>
          {error('enabled') ? <p className="error">{error('enabled')}</p> : null}
          <p className="muted small">{t('searchSettings.enabledHint')}</p>
          <label className="inline-check">
            <input type="checkbox" name="chatEnabled" defaultChecked={shown.chatEnabled} />
            {t('searchSettings.chatEnabled')}
          </label>
          {error('chatEnabled') ? <p className="error">{error('chatEnabled')}</p> : null}
          <p className="muted small">
            {t('searchSettings.chatEnabledHint')} <Link to="/admin/ai-provider">{t('aiProvider.title')}</Link>
          </p>
        </section>

        <section className="settings-section" aria-labelledby="settings-embedding">
          <h2 id="settings-embedding">{t('searchSettings.embedding')}</h2>
          <p className="muted small">{t('searchSettings.embeddingHint')}</p>
          <EndpointFields
            endpoint="embedding"
            providers={EMBEDDING_PROVIDERS}
            shown={shown}
            storedKey={config.hasApiKey}
            storedHeaders={config.embeddingCustomHeaders}
            error={error}
            listed={listed('embedding')}
            listFailure={listFailure('embedding')}
          />
        </section>

        <details className="settings-section settings-fold" open={rerankerOpen}>
          <summary>
            <h2>{t('searchSettings.rerankerOptional')}</h2>
          </summary>
          <p className="muted small">{t('searchSettings.rerankerHint')}</p>
          <label className="inline-check">
            <input type="checkbox" name="rerankerEnabled" defaultChecked={shown.rerankerEnabled} />
            {t('searchSettings.rerankerEnabled')}
          </label>
          {error('rerankerEnabled') ? <p className="error">{error('rerankerEnabled')}</p> : null}
          <EndpointFields
            endpoint="reranker"
            providers={RERANKER_PROVIDERS}
            shown={shown}
            storedKey={config.rerankerHasApiKey}
            storedHeaders={config.rerankerCustomHeaders}
            error={error}
            listed={listed('reranker')}
            listFailure={listFailure('reranker')}
          />
        </details>

        <details className="settings-section settings-fold" open={CHUNK_FIELDS.some((name) => error(name))}>
          <summary>
            <h2>{t('searchSettings.chunking')}</h2>
          </summary>
          <p className="muted small">{t('searchSettings.chunkingHint')}</p>
          <Field
            label={fill(t('searchSettings.chunkSize'), {
              min: RAG_LIMITS.chunkSizeMin,
              max: RAG_LIMITS.chunkSizeMax,
            })}
            name="chunkSize"
            type="number"
            defaultValue={shown.chunkSize}
            error={error('chunkSize')}
          />
          <Field
            label={t('searchSettings.chunkOverlap')}
            name="chunkOverlap"
            type="number"
            defaultValue={shown.chunkOverlap}
            error={error('chunkOverlap')}
          />
          <Field
            label={fill(t('searchSettings.topK'), { min: RAG_LIMITS.topKMin, max: RAG_LIMITS.topKMax })}
            name="topK"
            type="number"
            defaultValue={shown.topK}
            error={error('topK')}
          />
        </details>

        <SaveSettings
          anchor={SAVE_ANCHOR}
          failure={saveFailure}
          busy={busy}
          hint={t('searchSettings.reindexHint')}
        />
      </Form>

      <ConnectionTest
        page={PAGE}
        anchor={TEST_ANCHOR}
        hint={t('searchSettings.testHint')}
        busy={busy}
        passed={
          test ? (
            <>
              {t('searchSettings.testOk')} {t('searchSettings.embedding')}: {t('searchSettings.ok')} ·{' '}
              {t('searchSettings.reranker')}:{' '}
              {t(test.reranker ? 'searchSettings.ok' : 'searchSettings.rerankerOff')}
            </>
          ) : null
        }
        failure={testFailure}
      />
    </section>
  )
}
