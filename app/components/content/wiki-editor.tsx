import { Form, Link } from '@remix-run/react'
import { useRef } from 'react'
import { ClassificationEmpty } from '#app/components/classification-hint.tsx'
import { Field, FieldError, FormError, fieldError } from '#app/components/forms.tsx'
import { TermAdder, TermOption, type PickerTerm } from '#app/components/term-picker.tsx'
import { className, useLang, type ClassItem } from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'

export interface WikiFormValues {
  title: string
  slug?: string
  content: string
  summary: string
  sourceUrl: string
  /** Domain keys of the classification scheme (checkboxes). */
  domain: string[]
  /** The linked terms as typed: names, notations or addresses, one per line or separated by commas. */
  termSlugs: string
  status: string
  /** Readers see the uses of glossary terms linked, with their definitions. */
  termLinks: boolean
}

/** An entry of the linked terms that named several terms, as the server offers it (a radio group). */
export interface LinkedTermChoice {
  entry: string
  field: string
  options: PickerTerm[]
}

/**
 * The wiki editor, for new pages and edits. "Preview" posts the form and renders the Markdown on the server
 * (the same sanitizing renderer the page uses), so it works with JavaScript off and shows exactly what will be
 * published. Domains are chosen from the classification scheme, as terms' are; linked terms are typed by name
 * (with JavaScript, a box with suggestions adds them to the list).
 */
export function WikiEditor(props: {
  values: WikiFormValues
  statuses: readonly string[]
  /** The scheme's domains. */
  domains: readonly ClassItem[]
  result: unknown
  choices?: readonly LinkedTermChoice[]
  preview?: string
  baseRevision?: number
  isNew: boolean
  cancelTo: string
}) {
  const t = useT()
  const { values, result } = props
  const error = (name: string) => fieldError(result, name)
  return (
    <Form method="post" className="stack wide wiki-editor">
      <FormError result={result} />
      {props.baseRevision ? <input type="hidden" name="baseRevision" value={props.baseRevision} /> : null}
      <Field
        id="wiki-title"
        name="title"
        label={t('wiki.pageTitle')}
        defaultValue={values.title}
        error={error('title')}
        required
      />
      {props.isNew ? (
        <Field
          id="wiki-slug"
          name="slug"
          label={t('wiki.slug')}
          defaultValue={values.slug ?? ''}
          error={error('slug')}
        />
      ) : null}
      <label htmlFor="wiki-content">
        {t('wiki.content')}
        <textarea
          id="wiki-content"
          name="content"
          rows={16}
          defaultValue={values.content}
          required
          aria-invalid={error('content') ? true : undefined}
          aria-describedby={error('content') ? 'wiki-content-error' : undefined}
        />
        <FieldError id="wiki-content" message={error('content')} />
      </label>
      {props.preview !== undefined ? (
        <div
          className="notice markdown"
          data-testid="wiki-preview"
          dangerouslySetInnerHTML={{ __html: props.preview }}
        />
      ) : null}
      <Field
        id="wiki-summary"
        name="summary"
        label={t('wiki.summary')}
        defaultValue={values.summary}
        error={error('summary')}
      />
      <Field
        id="wiki-sourceUrl"
        name="sourceUrl"
        type="url"
        label={t('wiki.sourceUrl')}
        defaultValue={values.sourceUrl}
        error={error('sourceUrl')}
      />
      <DomainsField domains={props.domains} checked={values.domain} error={error('domain')} />
      <LinkedTermsField value={values.termSlugs} error={error('termSlugs')} choices={props.choices ?? []} />
      <label htmlFor="wiki-status">
        {t('wiki.status')}
        <select id="wiki-status" name="status" defaultValue={values.status}>
          {props.statuses.map((status) => (
            <option key={status} value={status}>
              {t(`wiki.status.${status}` as MessageKey)}
            </option>
          ))}
        </select>
      </label>
      <label className="inline-check">
        <input type="checkbox" name="termLinks" defaultChecked={values.termLinks} />
        {t('wiki.termLinks')}
      </label>
      <div className="actions">
        <button type="submit" name="intent" value="preview" className="secondary">
          {t('wiki.preview')}
        </button>{' '}
        <button type="submit" name="intent" value="save">
          {t('wiki.save')}
        </button>{' '}
        <Link to={props.cancelTo}>{t('common.cancel')}</Link>
      </div>
    </Form>
  )
}

/**
 * The classification scheme's domains as checkboxes (the term editor's way). A key the page carries that the
 * scheme does not list (pages written before the wiki used the scheme) stays checked, marked, until removed.
 */
function DomainsField(props: { domains: readonly ClassItem[]; checked: readonly string[]; error?: string }) {
  const t = useT()
  const lang = useLang()
  const legacy = props.checked.filter((key) => !props.domains.some((domain) => domain.key === key))
  return (
    <fieldset
      className="wiki-domains"
      aria-describedby={['wiki-domain-hint', props.error ? 'wiki-domain-error' : '']
        .filter(Boolean)
        .join(' ')}
    >
      <legend>{t('picker.domainsOf')}</legend>
      <p id="wiki-domain-hint" className="muted small">
        {props.domains.length === 0 && legacy.length === 0 ? (
          <ClassificationEmpty />
        ) : (
          t('picker.domainsHint')
        )}
      </p>
      {props.domains.map((domain) => (
        <label key={domain.key} className="inline-check">
          <input
            type="checkbox"
            name="domain"
            value={domain.key}
            defaultChecked={props.checked.includes(domain.key)}
          />
          {className(props.domains, domain.key, lang)}
        </label>
      ))}
      {legacy.map((key) => (
        <label key={key} className="inline-check">
          <input type="checkbox" name="domain" value={key} defaultChecked />
          {fill(t('picker.domainLegacy'), { key })}
        </label>
      ))}
      <FieldError id="wiki-domain" message={props.error} />
    </fieldset>
  )
}

/**
 * The linked terms: a text of names, notations or addresses (works without JavaScript; the server resolves
 * it), the server's choice for an entry that names several terms, and — with JavaScript — a box whose
 * suggestions add a term's address to the list.
 */
function LinkedTermsField(props: { value: string; error?: string; choices: readonly LinkedTermChoice[] }) {
  const t = useT()
  const list = useRef<HTMLTextAreaElement>(null)
  const describedBy = ['wiki-termSlugs-hint', props.error ? 'wiki-termSlugs-error' : '']
    .filter(Boolean)
    .join(' ')
  return (
    <div className="wiki-linked-terms">
      <label htmlFor="wiki-termSlugs">
        {t('wiki.linkedTerms')}
        <textarea
          ref={list}
          id="wiki-termSlugs"
          name="termSlugs"
          rows={3}
          defaultValue={props.value}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={describedBy}
        />
      </label>
      <p id="wiki-termSlugs-hint" className="muted small">
        {t('picker.linkedHint')}
      </p>
      {props.error ? (
        <span id="wiki-termSlugs-error" className="error">
          {props.error} <Link to="/terms">{t('picker.searchList')}</Link>
        </span>
      ) : null}
      {props.choices.map((choice) => (
        <fieldset key={choice.entry} className="picker-choice">
          <legend>{fill(t('picker.severalEntry'), { name: choice.entry })}</legend>
          {choice.options.map((term) => (
            <TermOption key={term.id} name={choice.field} term={term} />
          ))}
        </fieldset>
      ))}
      <TermAdder
        label={t('picker.addLinked')}
        onPick={(term) => {
          const box = list.current
          if (!box) return
          const entries = box.value.split(/[,\n\r]/).map((entry) => entry.trim())
          if (!entries.includes(term.slug)) {
            const kept = box.value.replace(/[\s,]+$/, '')
            box.value = kept ? `${kept}\n${term.slug}` : term.slug
          }
        }}
      />
    </div>
  )
}
