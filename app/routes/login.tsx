import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { Field, FormError } from '#app/components/forms.tsx'
import { formAction, invalidForm, pageMessage, parseForm } from '#app/pages/forms.server.ts'
import {
  clientOfPage,
  getSessionActor,
  isHttpsPage,
  requireSameOrigin,
  returnPathOf,
} from '#app/pages/session.server.ts'
import { orSsoFailure } from '#app/pages/sso-failure.server.ts'
import { useT } from '#app/root.tsx'
import { LoginSchema } from '#app/schemas/identity.ts'
import { loginWithPassword } from '#app/services/auth/accounts.server.ts'
import { sessionCookie } from '#app/services/auth/sessions.server.ts'
import { getPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { isSetupDone } from '#app/services/users/setup-state.server.ts'
import { SsoFailure } from '#app/services/sso/accounts.server.ts'
import {
  proxyIdentityBlocked,
  readProxyHeaders,
  signUpFromProxy,
  trustedProxyState,
} from '#app/services/sso/proxy.server.ts'
import { loadSsoState } from '#app/services/sso/settings.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { DEFAULT_SSO_BUTTON_LABEL, SSO_FAILURE_CODES } from '#domain/sso.ts'

export const meta: MetaFunction = () => [{ title: 'Sign in · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await isSetupDone())) throw redirect('/setup')
  const url = new URL(request.url)
  if (await getSessionActor(request)) throw redirect(returnPathOf(url.searchParams.get('redirectTo')))
  const sso = (await loadSsoState()).settings
  const proxyState = await trustedProxyState()
  const proxyHeaders = proxyState ? readProxyHeaders((name) => request.headers.get(name)) : undefined
  const code = url.searchParams.get('sso')
  return {
    passwordLoginEnabled: await getPasswordLoginEnabled(),
    ssoButton: sso.mode === 'oidc' || sso.mode === 'oauth2' ? sso.buttonLabel : null,
    // a known code gets its own text, any other code the generic one (spec: "Browser redirects")
    ssoCode:
      code === null ? null : (SSO_FAILURE_CODES as readonly string[]).includes(code) ? code : 'unknown',
    proxyBlocked: proxyHeaders?.email ? await proxyIdentityBlocked(proxyHeaders) : false,
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireSameOrigin(request, false)
  const form = await request.formData()
  if (form.get('intent') === 'proxy-signup') {
    // "Create a new account with the company account" (spec accounts rule 5): lifts the deletion block.
    throw await orSsoFailure('proxy sign-up', async () => {
      const proxyState = await trustedProxyState()
      if (!proxyState) throw new SsoFailure('disabled', 'oauth2-proxy sign-in is not enabled.')
      await signUpFromProxy(
        readProxyHeaders((name) => request.headers.get(name)),
        proxyState,
        clientOfPage(request, context),
      )
      return redirect('/')
    })
  }
  // Any malformed input gets the same answer as wrong credentials: login gives no hint.
  const parsed = parseForm(LoginSchema, {
    email: form.get('email') ?? '',
    password: form.get('password') ?? '',
  })
  if (!parsed.ok)
    return invalidForm({ ok: false as const, formError: pageMessage('formError.badCredentials') }, 401)
  return formAction(async () => {
    const { token } = await loginWithPassword({ ...parsed.data, client: clientOfPage(request, context) })
    return redirect(returnPathOf(form.get('redirectTo')), {
      headers: { 'Set-Cookie': sessionCookie(token, { secure: isHttpsPage(context) }) },
    })
  })
}

export default function LoginPage() {
  const t = useT()
  const { passwordLoginEnabled, ssoButton, ssoCode, proxyBlocked } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const [params] = useSearchParams()
  return (
    <section>
      <h1>{t('login.title')}</h1>
      {ssoCode ? (
        <p className="error" role="alert" data-sso-code={ssoCode}>
          {ssoCode === 'unknown' ? t('login.sso') : t(`login.sso.${ssoCode}` as MessageKey)}
        </p>
      ) : null}
      {ssoButton ? (
        <p>
          <a className="button" href="/auth/sso/start">
            {ssoButton === DEFAULT_SSO_BUTTON_LABEL ? t('login.ssoDefault') : ssoButton}
          </a>
        </p>
      ) : null}
      {proxyBlocked ? (
        <Form method="post">
          <p>{t('login.proxyBlocked')}</p>
          <input type="hidden" name="intent" value="proxy-signup" />
          <button type="submit">{t('login.proxySignup')}</button>
        </Form>
      ) : null}
      {passwordLoginEnabled ? (
        <Form method="post" className="stack">
          <FormError result={result} />
          <input type="hidden" name="redirectTo" value={params.get('redirectTo') ?? '/'} />
          <Field label={t('field.email')} name="email" type="email" required autoComplete="username" />
          <Field
            label={t('field.password')}
            name="password"
            type="password"
            required
            autoComplete="current-password"
          />
          <button type="submit">{t('login.submit')}</button>
          <p>
            {t('login.noAccount')} <Link to="/register">{t('nav.register')}</Link>
          </p>
        </Form>
      ) : ssoButton ? null : (
        <p className="notice">{t('login.disabled')}</p>
      )}
    </section>
  )
}
