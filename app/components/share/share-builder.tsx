import { Form } from '@remix-run/react'
import { useState } from 'react'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { embedSnippet, sheetQueryString, type SheetLinkOptions } from '#app/lib/share-links.ts'
import { useT } from '#app/root.tsx'
import { SHEET_COLUMNS, SHEET_MAX_ROWS, type SheetColumn } from '#domain/share.ts'

export interface ShareBuilderData {
  /** The options last submitted (or the defaults), the current filters included. */
  options: SheetLinkOptions
  /** The page's origin, for the absolute links. */
  origin: string
  /** True once the form was submitted: the links are shown. */
  built: boolean
}

/**
 * "Share this view" on the term list: pick columns and options, preview, copy the `/sheet` link or the
 * `<iframe>` snippet of `/embed`. Without JavaScript the form is a GET of the list page that answers the links
 * (the loader builds them); with it, the links and the preview follow every change and a button copies them.
 */
export function ShareBuilder({ data }: { data: ShareBuilderData }) {
  const t = useT()
  const [options, setOptions] = useState(data.options)
  const [built, setBuilt] = useState(data.built)
  const [copied, setCopied] = useState<string | null>(null)
  const query = sheetQueryString(options)
  const sheetHref = `${data.origin}/sheet${query}`
  const snippet = embedSnippet(data.origin, options, t('sheet.title'))
  const toggleColumn = (column: SheetColumn, on: boolean) =>
    setOptions((o) => ({
      ...o,
      columns: SHEET_COLUMNS.filter((c) => (c === column ? on : o.columns.includes(c))),
    }))
  const copy = (what: string, text: string) => {
    void navigator.clipboard?.writeText(text).then(() => setCopied(what))
  }
  const f = options.filters
  return (
    <details className="share-builder" open={data.built}>
      <summary>{t('share.title')}</summary>
      <Form
        method="get"
        action="/terms"
        onChange={() => setBuilt(true)}
        onSubmit={(event) => {
          // With JavaScript everything is already on the page.
          event.preventDefault()
          setBuilt(true)
        }}
      >
        <input type="hidden" name="share" value="1" />
        {f.q ? <input type="hidden" name="q" value={f.q} /> : null}
        {f.status ? <input type="hidden" name="status" value={f.status} /> : null}
        {(f.domain ?? []).map((d) => (
          <input key={`d:${d}`} type="hidden" name="domain" value={d} />
        ))}
        {(f.category ?? []).map((c) => (
          <input key={`c:${c}`} type="hidden" name="category" value={c} />
        ))}
        {(f.tag ?? []).map((tag) => (
          <input key={`t:${tag}`} type="hidden" name="tag" value={tag} />
        ))}
        <fieldset>
          <legend>{t('share.columns')}</legend>
          {SHEET_COLUMNS.map((c) => (
            <label key={c}>
              <input
                type="checkbox"
                name="columns"
                value={c}
                checked={options.columns.includes(c)}
                onChange={(e) => toggleColumn(c, e.currentTarget.checked)}
              />{' '}
              {t(`sheet.col.${c}` as MessageKey)}
            </label>
          ))}
        </fieldset>
        <fieldset>
          {(['compact', 'links', 'border'] as const).map((key) => (
            <label key={key}>
              <input
                type="checkbox"
                name={key}
                value="1"
                checked={options[key]}
                onChange={(e) => {
                  const on = e.currentTarget.checked
                  setOptions((o) => ({ ...o, [key]: on }))
                }}
              />{' '}
              {t(`share.${key}` as MessageKey)}
            </label>
          ))}
        </fieldset>
        <p className="muted small">
          {t('share.statusNote')} {fill(t('share.capNote'), { max: SHEET_MAX_ROWS })}
        </p>
        <button type="submit">{t('share.build')}</button>
      </Form>
      {built ? (
        <div className="share-links">
          <label>
            {t('share.sheetLink')}
            <input readOnly value={sheetHref} name="sheetLink" />
          </label>
          <button type="button" onClick={() => copy('sheet', sheetHref)}>
            {copied === 'sheet' ? t('share.copied') : t('share.copy')}
          </button>{' '}
          <a href={`/sheet${query}`}>{t('share.preview')}</a>
          <label>
            {t('share.embedSnippet')}
            <textarea readOnly value={snippet} rows={3} name="embedSnippet" />
          </label>
          <button type="button" onClick={() => copy('embed', snippet)}>
            {copied === 'embed' ? t('share.copied') : t('share.copy')}
          </button>
          <iframe src={`/embed${query}`} title={t('share.preview')} />
        </div>
      ) : null}
    </details>
  )
}
