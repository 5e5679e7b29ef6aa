import { Form } from '@remix-run/react'
import { useState, type ReactNode } from 'react'
import type { FormFailure } from '#app/pages/forms.server.ts'

/** A labelled input with its error message, wired for screen readers. */
export function Field(props: {
  label: string
  name: string
  /** The input's id; give one when two forms of a page share a field name (ids must be unique per page). */
  id?: string
  type?: string
  defaultValue?: string
  error?: string
  required?: boolean
  autoComplete?: string
  minLength?: number
  /** A short help text under the input (the format a key must have). */
  hint?: string
}) {
  const id = props.id ?? `field-${props.name}`
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ')
  return (
    <label htmlFor={id}>
      {props.label}
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        defaultValue={props.defaultValue}
        required={props.required}
        autoComplete={props.autoComplete}
        minLength={props.minLength}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {props.hint ? (
        <span id={`${id}-hint`} className="muted small">
          {props.hint}
        </span>
      ) : null}
      <FieldError id={id} message={props.error} />
    </label>
  )
}

/**
 * The message of a refused field, for inputs a page renders itself: put it next to the input (inside its
 * label or fieldset) and give the input `errorProps(id, message)`, so a screen reader reads it with the input.
 */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null
  return (
    <span id={`${id}-error`} className="error">
      {message}
    </span>
  )
}

/** The ARIA attributes of an input whose message `FieldError` shows (none when the field was accepted). */
export function errorProps(id: string, message: string | undefined) {
  return message ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {}
}

/** The form-level message of a failed action, if any. */
export function FormError({ result }: { result: unknown }) {
  const failure = result as FormFailure | undefined
  if (!failure || failure.ok !== false || !failure.formError) return null
  return (
    <p role="alert" className="error">
      {failure.formError}
    </p>
  )
}

/**
 * The message of the field `name` in a failed action's answer; a problem of one of its items (`scopes.1`,
 * `domains.0`) is the field's when the field itself has none, since the page shows the list as one field.
 */
export function fieldError(result: unknown, name: string): string | undefined {
  const failure = result as FormFailure | undefined
  if (!failure || failure.ok !== false || !failure.fieldErrors) return undefined
  const errors = failure.fieldErrors
  if (errors[name] !== undefined) return errors[name]
  const item = Object.keys(errors).find(
    (path) => path.startsWith(`${name}.`) && /^\d+(\.|$)/.test(path.slice(name.length + 1)),
  )
  return item === undefined ? undefined : errors[item]
}

/** A secret shown once: selectable text (works without JavaScript) and a copy button (with JavaScript). */
export function OneTimeToken(props: {
  token: string
  notice: string
  copyLabel: string
  copiedLabel: string
}) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="notice" role="status">
      <p>{props.notice}</p>
      <code className="token" data-testid="one-time-token">
        {props.token}
      </code>{' '}
      <button
        type="button"
        className="secondary"
        onClick={() => {
          void navigator.clipboard?.writeText(props.token).then(() => setCopied(true))
        }}
      >
        {copied ? props.copiedLabel : props.copyLabel}
      </button>
    </div>
  )
}

/**
 * A form of one button acting on one item (rotate, revoke, dismiss…): posts `intent` and the hidden fields that
 * name the item, so it works without JavaScript.
 */
export function IntentButton(props: {
  intent: string
  fields: Record<string, string>
  className?: string
  disabled?: boolean
  children: ReactNode
}) {
  return (
    <Form method="post" className="inline">
      <input type="hidden" name="intent" value={props.intent} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={props.className} disabled={props.disabled}>
        {props.children}
      </button>
    </Form>
  )
}
