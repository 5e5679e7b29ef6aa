import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { useActionData } from '@remix-run/react'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { SignUpForm } from '#app/components/sign-up-form.tsx'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { clientOfPage, isHttpsPage, requireSameOrigin } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { SignUpSchema } from '#app/schemas/identity.ts'
import { setupFirstAdmin } from '#app/services/auth/accounts.server.ts'
import { sessionCookie } from '#app/services/auth/sessions.server.ts'
import { isSetupDone } from '#app/services/users/setup-state.server.ts'

export const meta: MetaFunction = () => [{ title: 'Setup · Glossary' }]

export async function loader(_: LoaderFunctionArgs) {
  if (await isSetupDone()) throw redirect('/login')
  return null
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireSameOrigin(request, false)
  const parsed = parseForm(SignUpSchema, Object.fromEntries(await request.formData()))
  if (!parsed.ok) return invalidForm(parsed)
  return formAction(async () => {
    const { token } = await setupFirstAdmin({ ...parsed.data, client: clientOfPage(request, context) })
    return redirectWithFlash('/', { kind: 'success', message: 'flash.setupDone' }, context, {
      headers: { 'Set-Cookie': sessionCookie(token, { secure: isHttpsPage(context) }) },
    })
  })
}

export default function SetupPage() {
  const t = useT()
  const result = useActionData<typeof action>()
  return (
    <section>
      <h1>{t('setup.title')}</h1>
      <p>{t('setup.intro')}</p>
      <SignUpForm result={result} submitLabel={t('setup.submit')} />
    </section>
  )
}
