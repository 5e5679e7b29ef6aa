import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'
import { Field, FormError } from '#app/components/forms.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { formAction } from '#app/pages/forms.server.ts'
import { clientOfPage, isHttpsPage, requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { ssoRedirectUri } from '#app/lib/public-origin.server.ts'
import { useT } from '#app/root.tsx'
import { DiscoverSsoSchema, UpdateSsoSchema, type Discovery, type SsoDto } from '#app/schemas/sso.ts'
import { discoverProvider } from '#app/services/sso/discover.server.ts'
import { checkProxy, readProxyHeaders } from '#app/services/sso/proxy.server.ts'
import { getSso, updateSso } from '#app/services/sso/settings.server.ts'
import { PROXY_HEADERS, SSO_MODES } from '#domain/sso.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'sso.title') }]

/**
 * The administrator's sign-in page (issue 13): the password-login switch and the SSO settings, the same
 * services as `GET`/`PUT /sso`, `POST /sso/discover` and `GET /sso/proxy-check`. Works without JavaScript:
 * "Read settings from the issuer" is a submit button that answers the form filled with the discovered values.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  return {
    sso: await getSso(),
    redirectUri: ssoRedirectUri({ headers: request.headers, isHttps: isHttpsPage(context) }),
    proxy: await checkProxy(readProxyHeaders((name) => request.headers.get(name))),
  }
}

const list = (value: FormDataEntryValue | null) =>
  String(value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)

/**
 * The submitted settings as the form shows them again after a discovery or a refused save (without
 * JavaScript the page is rendered anew from these). The client secret is not among them: it is never sent
 * back to the browser (write-only), so a refused save asks for it again.
 */
function formValues(form: FormData) {
  const text = (name: string) => String(form.get(name) ?? '')
  return {
    mode: text('mode'),
    passwordLoginEnabled: form.get('passwordLoginEnabled') === 'on',
    buttonLabel: text('buttonLabel'),
    issuer: text('issuer'),
    authorizationEndpoint: text('authorizationEndpoint'),
    tokenEndpoint: text('tokenEndpoint'),
    userinfoEndpoint: text('userinfoEndpoint'),
    jwksUri: text('jwksUri'),
    clientId: text('clientId'),
    nameClaims: list(form.get('nameClaims')),
    groupClaims: list(form.get('groupClaims')),
    allowedGroups: list(form.get('allowedGroups')),
    adminGroups: list(form.get('adminGroups')),
    autoCreate: form.get('autoCreate') === 'on',
  }
}

/** `""` keeps the stored secret, `null` deletes it (spec PUT /sso rule 1). */
const clientSecretOf = (form: FormData) =>
  form.get('deleteClientSecret') === 'on' ? null : String(form.get('clientSecret') ?? '')

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const values = formValues(form)
  if (form.get('intent') === 'discover') {
    return formAction(
      async () => {
        const input = DiscoverSsoSchema.parse({
          issuer: values.issuer,
          protocol: values.mode === 'oauth2' ? 'oauth2' : 'oidc',
        })
        const discovery = await discoverProvider(input.issuer, input.protocol)
        return { ok: true as const, discovery, values }
      },
      { values },
    )
  }
  return formAction(
    async () => {
      const { sso, clearedSecrets } = await updateSso({
        input: UpdateSsoSchema.parse({ ...values, clientSecret: clientSecretOf(form) }),
        actor: { userId: actor.user.id, label: actor.user.email, email: actor.user.email },
        client: clientOfPage(request, context),
        proxyEmail: request.headers.get(PROXY_HEADERS.email),
      })
      // A save that cleared the client secret stays on its answer, which asks for the secret again; any other
      // save is post → redirect → get with a confirmation.
      if (clearedSecrets.length) return { ok: true as const, saved: sso, clearedSecrets }
      return redirectWithFlash('/admin/sso', { kind: 'success', message: 'flash.ssoSaved' }, context)
    },
    { values },
  )
}

export default function AdminSsoPage() {
  const t = useT()
  const { sso, redirectUri, proxy } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const discovery: Partial<Discovery> = result && 'discovery' in result ? result.discovery : {}
  // after a discovery or a refused save the form shows what was submitted, else what is stored
  const submitted = result && 'values' in result ? result.values : {}
  const shown: Omit<SsoDto, 'mode'> & { mode: string } =
    result && 'saved' in result ? result.saved : { ...sso, ...submitted }
  const field = (name: keyof Discovery & keyof SsoDto) => discovery[name] || shown[name]
  const errors = (result && 'fieldErrors' in result ? result.fieldErrors : {}) as Record<string, string>
  // a list's problems name their item (`allowedGroups.3`): shown at the list's field
  const errorOf = (name: string) =>
    errors[name] ?? Object.entries(errors).find(([path]) => path.startsWith(`${name}.`))?.[1]
  const yesNo = (value: boolean) => t(value ? 'sso.yes' : 'sso.no')
  // a discovery answer re-renders the form with new default values: a new key makes React apply them
  const formKey = JSON.stringify(discovery) + (result && 'saved' in result ? 'saved' : '')
  return (
    <section>
      <h1>{t('sso.title')}</h1>
      <Form method="post" className="stack" key={formKey}>
        <FormError result={result} />
        <label className="inline-check">
          <input type="checkbox" name="passwordLoginEnabled" defaultChecked={shown.passwordLoginEnabled} />{' '}
          {t('sso.passwordLogin')}
        </label>
        {errorOf('passwordLoginEnabled') ? <p className="error">{errorOf('passwordLoginEnabled')}</p> : null}
        <label htmlFor="sso-mode">
          {t('sso.mode')}
          <select id="sso-mode" name="mode" defaultValue={shown.mode}>
            {SSO_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {t(`sso.mode.${mode}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        {errorOf('mode') ? <p className="error">{errorOf('mode')}</p> : null}
        <Field
          label={t('sso.buttonLabel')}
          name="buttonLabel"
          defaultValue={shown.buttonLabel}
          error={errorOf('buttonLabel')}
        />
        <Field
          label={t('sso.issuer')}
          name="issuer"
          defaultValue={field('issuer')}
          error={errorOf('issuer')}
        />
        <button type="submit" name="intent" value="discover" formNoValidate>
          {t('sso.discover')}
        </button>
        {result && 'discovery' in result ? <p role="status">{t('sso.discovered')}</p> : null}
        <Field
          label={t('sso.authorizationEndpoint')}
          name="authorizationEndpoint"
          defaultValue={field('authorizationEndpoint')}
          error={errorOf('authorizationEndpoint')}
        />
        <Field
          label={t('sso.tokenEndpoint')}
          name="tokenEndpoint"
          defaultValue={field('tokenEndpoint')}
          error={errorOf('tokenEndpoint')}
        />
        <Field
          label={t('sso.userinfoEndpoint')}
          name="userinfoEndpoint"
          defaultValue={field('userinfoEndpoint')}
          error={errorOf('userinfoEndpoint')}
        />
        <Field
          label={t('sso.jwksUri')}
          name="jwksUri"
          defaultValue={field('jwksUri')}
          error={errorOf('jwksUri')}
        />
        <Field
          label={t('sso.clientId')}
          name="clientId"
          defaultValue={shown.clientId}
          error={errorOf('clientId')}
        />
        <Field
          label={t('sso.clientSecret')}
          name="clientSecret"
          type="password"
          autoComplete="new-password"
          error={errorOf('clientSecret')}
        />
        {shown.hasClientSecret ? (
          <label className="inline-check">
            <input type="checkbox" name="deleteClientSecret" /> {t('sso.clientSecretDelete')} (
            {t('sso.clientSecretStored')})
          </label>
        ) : null}
        <Field
          label={t('sso.nameClaims')}
          name="nameClaims"
          defaultValue={shown.nameClaims.join(', ')}
          error={errorOf('nameClaims')}
        />
        <Field
          label={t('sso.groupClaims')}
          name="groupClaims"
          defaultValue={shown.groupClaims.join(', ')}
          error={errorOf('groupClaims')}
        />
        <Field
          label={t('sso.allowedGroups')}
          name="allowedGroups"
          defaultValue={shown.allowedGroups.join(', ')}
          error={errorOf('allowedGroups')}
        />
        <Field
          label={t('sso.adminGroups')}
          name="adminGroups"
          defaultValue={shown.adminGroups.join(', ')}
          error={errorOf('adminGroups')}
        />
        <label className="inline-check">
          <input type="checkbox" name="autoCreate" defaultChecked={shown.autoCreate} /> {t('sso.autoCreate')}
        </label>
        <button type="submit" name="intent" value="save">
          {t('sso.save')}
        </button>
        {result && 'saved' in result ? (
          <p role="status" className="notice">
            {t('sso.saved')}
          </p>
        ) : null}
        {result && 'clearedSecrets' in result && result.clearedSecrets.length ? (
          <p role="status" className="notice error" data-testid="secrets-cleared">
            {t('sso.secretCleared')}
          </p>
        ) : null}
      </Form>
      <h2>{t('sso.redirectUri')}</h2>
      <p>
        <code id="sso-redirect-uri">{redirectUri}</code>{' '}
        <button type="button" onClick={() => void navigator.clipboard?.writeText(redirectUri)}>
          {t('sso.copy')}
        </button>
      </p>
      <h2>{t('sso.lastClaims')}</h2>
      <p>{shown.lastClaimKeys.length ? shown.lastClaimKeys.join(', ') : t('sso.never')}</p>
      {shown.lastLoginAt ? <p className="muted small">{shown.lastLoginAt}</p> : null}
      <h2>{t('sso.proxyCheck')}</h2>
      <dl>
        <dt>{t('sso.proxyAvailable')}</dt>
        <dd>{yesNo(proxy.proxyAvailable)}</dd>
        <dt>{t('sso.trusted')}</dt>
        <dd>{yesNo(proxy.trusted)}</dd>
        <dt>{t('sso.detected')}</dt>
        <dd>{yesNo(proxy.detected)}</dd>
        {proxy.detected ? (
          <>
            <dt>{PROXY_HEADERS.email}</dt>
            <dd>{proxy.identity.email}</dd>
            <dt>{PROXY_HEADERS.user}</dt>
            <dd>{proxy.identity.user ?? '—'}</dd>
            <dt>{PROXY_HEADERS.groups}</dt>
            <dd>{proxy.identity.groups.join(', ') || '—'}</dd>
          </>
        ) : null}
      </dl>
    </section>
  )
}
