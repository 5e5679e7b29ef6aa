import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { errorProps, fieldError, FieldError, FormError } from '#app/components/forms.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { pageAudit, requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { SEVERITY_VALUES, UpdateValidationConfigSchema } from '#app/schemas/validation.ts'
import { getValidationConfig, updateValidationConfig } from '#app/services/settings/settings.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'settings.admin.title') }]

/** Service-wide settings an administrator changes (today: how text validation reports letter case). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  return { validation: await getValidationConfig() }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const parsed = parseForm(UpdateValidationConfigSchema, { wrongCaseSeverity: form.get('wrongCaseSeverity') })
  if (!parsed.ok) return invalidForm(parsed)
  return formAction(async () => {
    await updateValidationConfig({
      input: parsed.data,
      audit: pageAudit(actor, request, context),
    })
    // post → redirect → get: the page shows the stored value and the confirmation, with or without JavaScript
    return redirectWithFlash(
      '/admin/settings',
      { kind: 'success', message: 'flash.serviceSettingsSaved' },
      context,
    )
  })
}

export default function AdminSettingsPage() {
  const t = useT()
  const { validation } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  return (
    <section>
      <h1>{t('settings.admin.title')}</h1>
      <Form method="post" className="stack">
        <FormError result={result} />
        <h2>{t('settings.admin.validation')}</h2>
        <label htmlFor="wrong-case-severity">
          {t('settings.admin.wrongCase')}
          <select
            id="wrong-case-severity"
            name="wrongCaseSeverity"
            defaultValue={validation.wrongCaseSeverity}
            {...errorProps('wrong-case-severity', fieldError(result, 'wrongCaseSeverity'))}
          >
            {SEVERITY_VALUES.map((severity) => (
              <option key={severity} value={severity}>
                {t(`severity.${severity}` as MessageKey)}
              </option>
            ))}
          </select>
          <FieldError id="wrong-case-severity" message={fieldError(result, 'wrongCaseSeverity')} />
        </label>
        <p className="muted small">{t('settings.admin.wrongCaseHint')}</p>
        <button type="submit" disabled={busy}>
          {t('settings.admin.save')}
        </button>
      </Form>
    </section>
  )
}
