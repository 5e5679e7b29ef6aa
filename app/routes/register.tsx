import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { SignUpForm } from '#app/components/sign-up-form.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { clientOfPage, getSessionActor, isHttpsPage, requireSameOrigin } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { SignUpSchema } from '#app/schemas/identity.ts'
import { registerUser } from '#app/services/auth/accounts.server.ts'
import { sessionCookie } from '#app/services/auth/sessions.server.ts'
import { getPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { isSetupDone } from '#app/services/users/setup-state.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'register.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await isSetupDone())) throw redirect('/setup')
  if (await getSessionActor(request)) throw redirect('/')
  return { passwordLoginEnabled: await getPasswordLoginEnabled() }
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireSameOrigin(request, false)
  const parsed = parseForm(SignUpSchema, Object.fromEntries(await request.formData()))
  if (!parsed.ok) return invalidForm(parsed)
  return formAction(async () => {
    const { token, user } = await registerUser({ ...parsed.data, client: clientOfPage(request, context) })
    return redirectWithFlash(
      '/',
      { kind: 'success', message: 'flash.registered', values: { name: user.name } },
      context,
      { headers: { 'Set-Cookie': sessionCookie(token, { secure: isHttpsPage(context) }) } },
    )
  })
}

export default function RegisterPage() {
  const t = useT()
  const { passwordLoginEnabled } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  if (!passwordLoginEnabled)
    return (
      <section>
        <h1>{t('register.title')}</h1>
        <p className="notice">{t('login.disabled')}</p>
      </section>
    )
  return (
    <section>
      <h1>{t('register.title')}</h1>
      <p>{t('register.intro')}</p>
      <SignUpForm result={result} submitLabel={t('register.submit')}>
        <p>
          {t('register.haveAccount')} <Link to="/login">{t('nav.login')}</Link>
        </p>
      </SignUpForm>
    </section>
  )
}
