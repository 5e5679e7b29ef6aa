import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
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
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { pageTitle } from '#app/lib/page-title.ts'
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
import { ListAiModelsSchema, UpdateAiProviderSchema, type AiProviderDto } from '#app/schemas/ai-provider.ts'
import {
  getAiProvider,
  listAiProviderModels,
  testAiProvider,
  updateAiProviderSettings,
} from '#app/services/ai/ai-provider.server.ts'
import { LLM_LIMITS, LLM_PROVIDERS } from '#domain/rag.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'aiProvider.title') }]

/**
 * The administrator's AI provider page (issue 29): the chat's language model — provider kind, address, model
 * (picked from the provider's list), write-only key and custom headers, temperature and answer length — and a
 * one-token connection test. The same services as `GET`/`PATCH /admin/ai-provider`, `POST …/models` and
 * `POST …/test`, and the same form pieces and secret rules as the search settings page: a refused save or a
 * model list never sends typed secrets back. Works without JavaScript: every button is a form submit, each
 * answer is shown next to the button that asked for it (the form's address ends in that place's anchor), and a
 * save ends in a redirect with a flash message.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  return { config: await getAiProvider() }
}

const PAGE = '/admin/ai-provider'
const PREFIX = 'llm'
const SAVE_ANCHOR = 'save-settings'
const TEST_ANCHOR = 'test-connection'

/** The submitted settings as the form shows them again (never the secrets, which are typed again). */
function formValues(form: FormData) {
  const text = (name: string) => String(form.get(name) ?? '')
  return {
    provider: text('provider'),
    baseUrl: text('baseUrl'),
    model: text(`${PREFIX}Model`) || text(`${PREFIX}ModelOther`),
    headers: headerRowsOf(form, PREFIX).map((r): HeaderRow => ({ name: r.name, stored: r.stored })),
    temperature: text('temperature'),
    maxTokens: text('maxTokens'),
    models: form.getAll(`${PREFIX}KnownModel`).map(String),
  }
}
type FormValues = ReturnType<typeof formValues>

/** The form's header rows as the API sends them (the form shows the full list, so it is always sent). */
const headersOf = (form: FormData) =>
  headerRowsOf(form, PREFIX).map((r) => ({ name: r.name, value: r.value }))

/** The API's field names for the form's (`llm*` fields carry the prefix the shared form pieces use). */
const atApiNames = (failure: FormFailure): FormFailure =>
  renameFieldErrors(failure, (path) =>
    path === 'model'
      ? `${PREFIX}Model`
      : path === 'apiKey'
        ? `${PREFIX}ApiKey`
        : path.startsWith('customHeaders')
          ? `${PREFIX}CustomHeaders${path.slice('customHeaders'.length)}`
          : path,
  )

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const intent = String(form.get('intent') ?? '')
  if (intent === 'test') {
    return formAction(async () => ({ ok: true as const, test: await testAiProvider() }))
  }
  const values = formValues(form)
  if (intent === `models-${PREFIX}`) {
    const parsed = parseForm(ListAiModelsSchema, {
      baseUrl: values.baseUrl,
      apiKey: keyOf(form, PREFIX) ?? '',
      customHeaders: headersOf(form),
    })
    if (!parsed.ok) return invalidForm({ ...atApiNames(parsed), values, listing: true })
    return formAction(
      async () => {
        const { models } = await listAiProviderModels(parsed.data)
        return { ok: true as const, listed: true, values: { ...values, models: models.map((m) => m.id) } }
      },
      { values, listing: true },
    )
  }
  const parsed = parseForm(UpdateAiProviderSchema, {
    provider: values.provider,
    baseUrl: values.baseUrl,
    model: values.model,
    apiKey: keyOf(form, PREFIX),
    customHeaders: headersOf(form),
    temperature: numberOf(values.temperature),
    maxTokens: numberOf(values.maxTokens),
  })
  if (!parsed.ok) return invalidForm({ ...atApiNames(parsed), values })
  return formAction(
    async () => {
      const saved = await updateAiProviderSettings({
        input: parsed.data,
        actorId: actor.user.id,
        audit: pageAudit(actor, request, context),
      })
      return savedSettings(
        PAGE,
        saved,
        { saved: 'aiProvider.saved', secretsCleared: 'aiProvider.savedSecretsCleared' },
        context,
      )
    },
    { values },
  )
}

/** The stored settings in the form's shape. */
function storedValues(config: AiProviderDto): FormValues {
  return {
    provider: config.provider,
    baseUrl: config.baseUrl,
    model: config.model,
    headers: config.customHeaders.map((h) => ({ name: h.name, stored: true })),
    temperature: String(config.temperature),
    maxTokens: String(config.maxTokens),
    models: [],
  }
}

export default function AdminAiProviderPage() {
  const t = useT()
  const { config } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  const failure = result && result.ok === false ? (result as FormFailure & { listing?: boolean }) : null
  // after a model list or a refused save the form shows what was submitted, else what is stored
  const shown: FormValues =
    result && 'values' in result ? (result.values as FormValues) : storedValues(config)
  const errors = failure?.fieldErrors ?? {}
  const error = (name: string) => errorAt(errors, name)
  const test = result && 'test' in result ? result.test : null
  const testFailure = failure && !('values' in failure) ? failure : null
  const listFailure = failure?.listing ? failure : null
  const saveFailure = failure && 'values' in failure && !failure.listing ? failure : null
  const listed = result && 'listed' in result ? shown.models.length : undefined
  // new default values (a model list, a save) need new inputs, and a typed secret must not stay in the form
  const formKey = JSON.stringify(shown.models) + config.updatedAt
  return (
    <section className="settings-page">
      <h1>{t('aiProvider.title')}</h1>
      <p className="muted">{t('aiProvider.intro')}</p>
      {!config.secretsReadable ? (
        <div role="alert" className="notice error" data-testid="secrets-unreadable">
          <p>
            <strong>{t('aiProvider.unreadable')}</strong>
          </p>
          <p>{t('searchSettings.unreadableFix')}</p>
        </div>
      ) : null}
      <p data-testid="provider-state">
        {t(config.configured ? 'aiProvider.stateConfigured' : 'aiProvider.stateNotConfigured')} ·{' '}
        <Link to="/admin/search-settings">{t('aiProvider.chatSwitch')}</Link>
      </p>

      <Form method="post" action={`${PAGE}#${SAVE_ANCHOR}`} className="settings-form" key={formKey}>
        {/* Enter in a field submits with the form's first submit button: let that be "save", not a model list. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden="true" />

        <section className="settings-section" aria-labelledby="ai-address">
          <h2 id="ai-address">{t('searchSettings.addressModel')}</h2>
          <label htmlFor="ai-provider-kind">
            {t('searchSettings.provider')}
            <select id="ai-provider-kind" name="provider" defaultValue={shown.provider}>
              {LLM_PROVIDERS.map((kind) => (
                <option key={kind} value={kind}>
                  {t(`aiProvider.provider.${kind}` as MessageKey)}
                </option>
              ))}
            </select>
          </label>
          {error('provider') ? <p className="error">{error('provider')}</p> : null}
          <Field
            label={t('searchSettings.baseUrl')}
            name="baseUrl"
            defaultValue={shown.baseUrl}
            error={error('baseUrl')}
          />
          <h3>{t('searchSettings.keyHeaders')}</h3>
          <ApiKeyField prefix={PREFIX} stored={config.hasApiKey} error={error(`${PREFIX}ApiKey`)} />
          <HeaderRows
            prefix={PREFIX}
            rows={shown.headers}
            stored={config.customHeaders}
            error={error(`${PREFIX}CustomHeaders`)}
          />
          <ModelField
            prefix={PREFIX}
            value={shown.model}
            models={shown.models}
            error={error(`${PREFIX}Model`)}
            listed={listed}
            listFailure={listFailure}
            hint={t('aiProvider.modelsHint')}
          />
        </section>

        <section className="settings-section" aria-labelledby="ai-answers">
          <h2 id="ai-answers">{t('aiProvider.answers')}</h2>
          {/* text, not number: a number input's default step of 1 would refuse 0.2 in a browser */}
          <Field
            label={fill(t('aiProvider.temperature'), {
              min: LLM_LIMITS.temperatureMin,
              max: LLM_LIMITS.temperatureMax,
            })}
            name="temperature"
            defaultValue={shown.temperature}
            error={error('temperature')}
          />
          <Field
            label={fill(t('aiProvider.maxTokens'), {
              min: LLM_LIMITS.maxTokensMin,
              max: LLM_LIMITS.maxTokensMax,
            })}
            name="maxTokens"
            type="number"
            defaultValue={shown.maxTokens}
            error={error('maxTokens')}
          />
        </section>

        <SaveSettings anchor={SAVE_ANCHOR} failure={saveFailure} busy={busy} />
      </Form>

      <ConnectionTest
        page={PAGE}
        anchor={TEST_ANCHOR}
        hint={t('aiProvider.testHint')}
        busy={busy}
        passed={test ? fill(t('aiProvider.testOk'), { model: test.model, ms: test.latencyMs }) : null}
        failure={testFailure}
      />
    </section>
  )
}
