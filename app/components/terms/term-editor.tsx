import { useEffect, useRef, useState } from 'react'
import { Form, Link, useFetcher, useNavigation } from '@remix-run/react'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'
import { ClassificationEmpty } from '#app/components/classification-hint.tsx'
import { useDataTable } from '#app/components/data-table.tsx'
import { EMPTY_NOTATION, type EditorResult, type EditorValues, type NotationRow } from './editor-values.ts'
import { className, formatDate, termHref, useLang, type ClassItem } from './ui.tsx'
import { NOTATION_KINDS } from '#domain/terms.ts'

let rowCounter = 0
const withKey = (row: NotationRow) => ({ ...row, key: ++rowCounter })

/**
 * Inserts an image reference as a paragraph of its own at the textarea's cursor (at the end when the user
 * never placed the cursor in the body).
 */
function insertIntoBody(area: HTMLTextAreaElement, markdown: string, atCursor: boolean) {
  const start = atCursor ? area.selectionStart : area.value.length
  const end = atCursor ? area.selectionEnd : area.value.length
  const before = area.value.slice(0, start)
  const prefix = before === '' || before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n'
  area.setRangeText(`${prefix}${markdown}\n`, start, end, 'end')
}

function ErrorText({ id, message }: { id: string; message?: string }) {
  return message ? (
    <span id={id} className="error">
      {message}
    </span>
  ) : null
}

/**
 * The term editor of the new and edit pages. Works as one plain multipart form without JavaScript (the
 * notation rows, preview and image upload are submit buttons the action answers by re-rendering the form);
 * with JavaScript the rows are added and removed in place, the preview and the upload go through fetchers
 * and the image reference is inserted at the cursor.
 */
export function TermEditor(props: {
  mode: 'create' | 'edit'
  values: EditorValues
  result?: EditorResult
  baseRevision?: number
  statuses: readonly string[]
  domains: ClassItem[]
  categories: ClassItem[]
  maxImageBytes: number
  cancelHref: string
}) {
  const t = useT()
  const lang = useLang()
  const { values, result } = props
  const errors = result?.fieldErrors ?? {}
  const [rows, setRows] = useState(() => values.notations.map(withKey))
  const notationTable = useDataTable(
    { notation: 'term.notation', kind: 'term.kind', lang: 'term.lang', actions: 'common.actions' },
    { className: 'notation-rows' },
  )
  const bodyRef = useRef<HTMLTextAreaElement>(null)
  const fileRef = useRef<HTMLInputElement>(null)
  const altRef = useRef<HTMLInputElement>(null)
  const cursorPlaced = useRef(false)
  const preview = useFetcher<{ html: string }>()
  const upload = useFetcher<EditorResult>()
  const handledUpload = useRef<unknown>(null)
  const busy = useNavigation().state !== 'idle'

  useEffect(() => {
    const answer = upload.data
    if (upload.state !== 'idle' || !answer || handledUpload.current === answer) return
    handledUpload.current = answer
    if (answer.markdown && bodyRef.current) {
      insertIntoBody(bodyRef.current, answer.markdown, cursorPlaced.current)
      if (fileRef.current) fileRef.current.value = ''
      if (altRef.current) altRef.current.value = ''
    }
  }, [upload.state, upload.data])

  // A failed save re-mounts the editor: bring its message into view (the form may be long).
  const alertRef = useRef<HTMLDivElement & HTMLParagraphElement>(null)
  useEffect(() => {
    if (result && !result.ok && alertRef.current) {
      alertRef.current.scrollIntoView({ block: 'center' })
      alertRef.current.focus()
    }
  }, [result])

  const previewHtml = preview.data?.html ?? result?.previewHtml
  const uploadError = (upload.data?.fieldErrors ?? errors).image
  const conflict = result?.conflict
  const field = (
    name: keyof EditorValues,
    label: MessageKey,
    extra: { required?: boolean; hint?: string } = {},
  ) => (
    <label htmlFor={`term-${name}`}>
      {t(label)}
      <input
        id={`term-${name}`}
        name={name}
        defaultValue={values[name] as string}
        required={extra.required}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `term-${name}-error` : undefined}
      />
      {extra.hint ? <span className="muted small">{extra.hint}</span> : null}
      <ErrorText id={`term-${name}-error`} message={errors[name]} />
    </label>
  )
  const checkboxes = (name: 'domains' | 'categories', items: ClassItem[], label: MessageKey) => (
    <fieldset>
      <legend>{t(label)}</legend>
      {items.length === 0 ? <ClassificationEmpty /> : null}
      {items.map((item) => (
        <label key={item.key} className="inline-check">
          <input
            type="checkbox"
            name={name}
            value={item.key}
            defaultChecked={values[name].includes(item.key)}
          />
          {className(items, item.key, lang)}
        </label>
      ))}
      {/* Keys the scheme no longer lists stay on the term until removed here. */}
      {values[name]
        .filter((key) => !items.some((i) => i.key === key))
        .map((key) => (
          <label key={key} className="inline-check">
            <input type="checkbox" name={name} value={key} defaultChecked />
            {key}
          </label>
        ))}
      <ErrorText id={`term-${name}-error`} message={errors[name]} />
    </fieldset>
  )

  return (
    <Form method="post" encType="multipart/form-data" className="editor" aria-label={t('editor.form')}>
      {/* The first submit button is what Enter presses: make it Save, not a row button. */}
      <button type="submit" name="intent" value="save" className="visually-hidden" tabIndex={-1} aria-hidden>
        {t('common.save')}
      </button>
      {props.baseRevision ? <input type="hidden" name="baseRevision" value={props.baseRevision} /> : null}

      {conflict ? (
        <div role="alert" className="notice conflict" data-testid="conflict" ref={alertRef} tabIndex={-1}>
          <p>
            <strong>{t('editor.conflictTitle')}</strong>
          </p>
          <p>
            {fill(t('editor.conflictBody'), {
              who: conflict.savedBy ?? t('editor.someone'),
              when: formatDate(conflict.savedAt),
              current: conflict.currentRevision,
              base: conflict.baseRevision,
            })}
          </p>
          <p>
            <Link
              to={`${termHref(conflict.slug)}/history?from=${conflict.baseRevision}&to=${conflict.currentRevision}`}
              target="_blank"
              rel="noopener"
            >
              {fill(t('editor.conflictDiff'), {
                base: conflict.baseRevision,
                current: conflict.currentRevision,
              })}
            </Link>
          </p>
          <label className="inline-check">
            <input type="checkbox" name="rebase" value={conflict.currentRevision} />
            {fill(t('editor.conflictOverwrite'), { current: conflict.currentRevision })}
          </label>
        </div>
      ) : result?.formError ? (
        <p role="alert" className="error" ref={alertRef} tabIndex={-1}>
          {result.formError}
        </p>
      ) : null}

      <div className="editor-grid">
        {field('name', 'term.name', { required: true })}
        {field('slug', 'term.slug', { hint: props.mode === 'create' ? t('editor.slugHint') : undefined })}
        {field('fullName', 'term.fullName')}
        {field('nameEn', 'term.nameEn')}
        {field('nameKo', 'term.nameKo')}
        <label htmlFor="term-status">
          {t('term.status')}
          <select
            id="term-status"
            name="status"
            defaultValue={values.status}
            aria-invalid={errors.status ? true : undefined}
            aria-describedby={errors.status ? 'term-status-error' : undefined}
          >
            {props.mode === 'create' ? <option value="">{t('editor.statusAuto')}</option> : null}
            {props.statuses.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
          <ErrorText id="term-status-error" message={errors.status} />
        </label>
      </div>

      <fieldset className="notations">
        <legend>{t('term.notations')}</legend>
        <p className="muted small">{t('editor.notationsHint')}</p>
        <table {...notationTable.props}>
          {notationTable.head}
          <tbody {...notationTable.body}>
            {rows.map((row, i) => (
              <tr {...notationTable.row} key={row.key} data-notation-row={i}>
                <td {...notationTable.cell('notation')}>
                  <input
                    name="notationText"
                    defaultValue={row.text}
                    aria-label={`${t('term.notation')} ${i + 1}`}
                    aria-invalid={errors[`notations.${i}.text`] ? true : undefined}
                  />
                  <ErrorText id={`notation-${i}-error`} message={errors[`notations.${i}.text`]} />
                </td>
                <td {...notationTable.cell('kind')}>
                  <select
                    name="notationKind"
                    defaultValue={row.kind}
                    aria-label={`${t('term.kind')} ${i + 1}`}
                  >
                    {NOTATION_KINDS.map((k) => (
                      <option key={k} value={k}>
                        {t(`kind.${k}`)}
                      </option>
                    ))}
                  </select>
                  <ErrorText id={`notation-${i}-kind-error`} message={errors[`notations.${i}.kind`]} />
                </td>
                <td {...notationTable.cell('lang')}>
                  <input
                    name="notationLang"
                    defaultValue={row.lang}
                    size={5}
                    placeholder="en, ko"
                    aria-label={`${t('term.lang')} ${i + 1}`}
                  />
                  <ErrorText id={`notation-${i}-lang-error`} message={errors[`notations.${i}.lang`]} />
                </td>
                <td {...notationTable.cell('actions')}>
                  <button
                    type="submit"
                    name="intent"
                    value={`remove-notation-${i}`}
                    formNoValidate
                    className="secondary"
                    onClick={(event) => {
                      event.preventDefault()
                      setRows((current) => current.filter((r) => r.key !== row.key))
                    }}
                  >
                    {t('editor.removeRow')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ErrorText id="term-notations-error" message={errors.notations} />
        <button
          type="submit"
          name="intent"
          value="add-notation"
          formNoValidate
          className="secondary"
          onClick={(event) => {
            event.preventDefault()
            setRows((current) => [...current, withKey({ ...EMPTY_NOTATION })])
          }}
        >
          {t('editor.addRow')}
        </button>
      </fieldset>

      {checkboxes('domains', props.domains, 'term.domains')}
      {checkboxes('categories', props.categories, 'term.categories')}
      {field('tags', 'term.tags', { hint: t('editor.tagsHint') })}

      <label htmlFor="term-definition">
        {t('term.definition')}
        <textarea id="term-definition" name="definition" rows={4} defaultValue={values.definition} />
        <ErrorText id="term-definition-error" message={errors.definition} />
      </label>

      <div className="body-editor">
        <label htmlFor="term-body">
          {t('term.body')}
          <textarea
            id="term-body"
            name="body"
            rows={12}
            ref={bodyRef}
            defaultValue={values.body}
            onSelect={() => (cursorPlaced.current = true)}
            onFocus={() => (cursorPlaced.current = true)}
          />
          <ErrorText id="term-body-error" message={errors.body} />
        </label>
        <div className="row-actions">
          <button
            type="submit"
            name="intent"
            value="preview"
            formNoValidate
            className="secondary"
            onClick={(event) => {
              event.preventDefault()
              preview.submit(
                { body: bodyRef.current?.value ?? '' },
                { method: 'post', action: '/markdown-preview' },
              )
            }}
          >
            {t('editor.preview')}
          </button>
        </div>
        {previewHtml !== undefined ? (
          <section className="preview" aria-label={t('editor.preview')} data-testid="preview">
            {/* Sanitized by the Markdown service (renderMarkdown). */}
            <div className="markdown" dangerouslySetInnerHTML={{ __html: previewHtml }} />
          </section>
        ) : null}
        <fieldset className="upload">
          <legend>{t('editor.image')}</legend>
          <label>
            {fill(t('editor.imageFile'), { mb: Math.round(props.maxImageBytes / 1024 / 1024) })}
            <input
              type="file"
              name="image"
              accept="image/png,image/jpeg,image/gif,image/webp"
              ref={fileRef}
            />
          </label>
          <label>
            {t('editor.imageAlt')}
            <input name="alt" ref={altRef} />
          </label>
          <button
            type="submit"
            name="intent"
            value="upload"
            formNoValidate
            className="secondary"
            disabled={upload.state !== 'idle'}
            onClick={(event) => {
              event.preventDefault()
              const file = fileRef.current?.files?.[0]
              const data = new FormData()
              data.set('intent', 'upload')
              data.set('alt', altRef.current?.value ?? '')
              if (file) data.set('image', file)
              upload.submit(data, { method: 'post', encType: 'multipart/form-data' })
            }}
          >
            {t('editor.upload')}
          </button>
          <ErrorText id="term-image-error" message={uploadError} />
          {upload.data?.markdown ? (
            <p role="status" className="muted small">
              {t('editor.uploaded')} <code>{upload.data.markdown}</code>
            </p>
          ) : result?.markdown ? (
            <p role="status" className="muted small">
              {t('editor.uploaded')} <code>{result.markdown}</code>
            </p>
          ) : null}
        </fieldset>
      </div>

      <label htmlFor="term-note">
        {t('term.note')}
        <input id="term-note" name="note" defaultValue={values.note} maxLength={500} />
        <ErrorText id="term-note-error" message={errors.note} />
      </label>

      <div className="row-actions">
        <button type="submit" name="intent" value="save" disabled={busy}>
          {t('common.save')}
        </button>
        <Link to={props.cancelHref}>{t('common.cancel')}</Link>
      </div>
    </Form>
  )
}
