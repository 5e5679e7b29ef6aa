import { Form, Link } from '@remix-run/react'
import { FormError, fieldError } from '#app/components/forms.tsx'
import type { MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'

export interface WikiFormValues {
  title: string
  slug?: string
  content: string
  summary: string
  sourceUrl: string
  domain: string
  termSlugs: string
  status: string
}

/**
 * The wiki editor, for new pages and edits. "Preview" posts the form and renders the Markdown on the server
 * (the same sanitizing renderer the page uses), so it works with JavaScript off and shows exactly what will be
 * published.
 */
export function WikiEditor(props: {
  values: WikiFormValues
  statuses: readonly string[]
  result: unknown
  preview?: string
  baseRevision?: number
  isNew: boolean
  cancelTo: string
}) {
  const t = useT()
  const { values, result } = props
  return (
    <Form method="post" className="stack wide">
      <FormError result={result} />
      {props.baseRevision ? <input type="hidden" name="baseRevision" value={props.baseRevision} /> : null}
      <label>
        {t('wiki.pageTitle')}
        <input name="title" defaultValue={values.title} required />
        {fieldError(result, 'title') ? <span className="error">{fieldError(result, 'title')}</span> : null}
      </label>
      {props.isNew ? (
        <label>
          {t('wiki.slug')}
          <input name="slug" defaultValue={values.slug ?? ''} />
          {fieldError(result, 'slug') ? <span className="error">{fieldError(result, 'slug')}</span> : null}
        </label>
      ) : null}
      <label>
        {t('wiki.content')}
        <textarea name="content" rows={16} defaultValue={values.content} required />
        {fieldError(result, 'content') ? (
          <span className="error">{fieldError(result, 'content')}</span>
        ) : null}
      </label>
      {props.preview !== undefined ? (
        <div
          className="notice markdown"
          data-testid="wiki-preview"
          dangerouslySetInnerHTML={{ __html: props.preview }}
        />
      ) : null}
      <label>
        {t('wiki.summary')}
        <input name="summary" defaultValue={values.summary} />
      </label>
      <label>
        {t('wiki.sourceUrl')}
        <input name="sourceUrl" type="url" defaultValue={values.sourceUrl} />
        {fieldError(result, 'sourceUrl') ? (
          <span className="error">{fieldError(result, 'sourceUrl')}</span>
        ) : null}
      </label>
      <label>
        {t('wiki.domain')}
        <input name="domain" defaultValue={values.domain} />
      </label>
      <label>
        {t('wiki.termSlugs')}
        <input name="termSlugs" defaultValue={values.termSlugs} />
        {fieldError(result, 'termSlugs') ? (
          <span className="error">{fieldError(result, 'termSlugs')}</span>
        ) : null}
      </label>
      <label>
        {t('wiki.status')}
        <select name="status" defaultValue={values.status}>
          {props.statuses.map((status) => (
            <option key={status} value={status}>
              {t(`wiki.status.${status}` as MessageKey)}
            </option>
          ))}
        </select>
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
