import { Form } from '@remix-run/react'
import type { ReactNode } from 'react'
import { Field, fieldError, FormError } from './forms.tsx'
import { useT } from '#app/root.tsx'

/** Email, name and password: the form of both setup and registration (they share one schema too). */
export function SignUpForm(props: { result: unknown; submitLabel: string; children?: ReactNode }) {
  const t = useT()
  const { result } = props
  return (
    <Form method="post" className="stack">
      <FormError result={result} />
      <Field
        label={t('field.email')}
        name="email"
        type="email"
        required
        autoComplete="username"
        error={fieldError(result, 'email')}
      />
      <Field label={t('field.name')} name="name" autoComplete="name" error={fieldError(result, 'name')} />
      <Field
        label={t('field.password')}
        name="password"
        type="password"
        required
        minLength={8}
        autoComplete="new-password"
        error={fieldError(result, 'password')}
      />
      <button type="submit">{props.submitLabel}</button>
      {props.children}
    </Form>
  )
}
