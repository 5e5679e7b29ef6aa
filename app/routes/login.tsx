import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { Field, FormError } from '#app/components/forms.tsx'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import {
  clientOfPage,
  getSessionActor,
  isHttpsPage,
  requireSameOrigin,
  safeRedirect,
} from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { LoginSchema } from '#app/schemas/identity.ts'
import { loginWithPassword } from '#app/services/auth/accounts.server.ts'
import { sessionCookie } from '#app/services/auth/sessions.server.ts'
import { getPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { isSetupDone } from '#app/services/users/setup-state.server.ts'

export const meta: MetaFunction = () => [{ title: 'Sign in · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await isSetupDone())) throw redirect('/setup')
  const url = new URL(request.url)
  if (await getSessionActor(request)) throw redirect(safeRedirect(url.searchParams.get('redirectTo')))
  return { passwordLoginEnabled: await getPasswordLoginEnabled(), ssoFailed: url.searchParams.has('sso') }
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireSameOrigin(request, false)
  const form = await request.formData()
  // Any malformed input gets the same answer as wrong credentials: login gives no hint.
  const parsed = parseForm(LoginSchema, {
    email: form.get('email') ?? '',
    password: form.get('password') ?? '',
  })
  if (!parsed.ok)
    return invalidForm({ ok: false as const, formError: 'The email or password is incorrect.' }, 401)
  return formAction(async () => {
    const { token } = await loginWithPassword({ ...parsed.data, client: clientOfPage(request, context) })
    return redirect(safeRedirect(form.get('redirectTo')), {
      headers: { 'Set-Cookie': sessionCookie(token, { secure: isHttpsPage(context) }) },
    })
  })
}

export default function LoginPage() {
  const t = useT()
  const { passwordLoginEnabled, ssoFailed } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const [params] = useSearchParams()
  return (
    <section>
      <h1>{t('login.title')}</h1>
      {ssoFailed ? <p className="error">{t('login.sso')}</p> : null}
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
      ) : (
        <p className="notice">{t('login.disabled')}</p>
      )}
    </section>
  )
}
