import { diffArrays } from 'diff'
import type { MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'

export interface FieldDiffView {
  field: string
  changed: boolean
  before: unknown
  after: unknown
  changes?: { value: string; added: boolean; removed: boolean }[]
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—'
  if (Array.isArray(value))
    return value.length ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '—'
  return String(value)
}

interface NotationItem {
  text: string
  kind: string
  lang?: string | null
}

/**
 * The notations' item diff with their kinds in the page's language: the service's `changes` name the kind by
 * its API value (`API (preferred, en)`), so the page diffs the notations themselves (`before`/`after`), in
 * the same shape: `text (kind, lang)`.
 */
function notationChanges(f: FieldDiffView, t: (key: MessageKey) => string): FieldDiffView['changes'] {
  if (!Array.isArray(f.before) || !Array.isArray(f.after)) return f.changes
  const label = (n: NotationItem) =>
    `${n.text} (${[t(`kind.${n.kind}` as MessageKey), n.lang].filter(Boolean).join(', ')})`
  const items = (list: unknown[]) => (list as NotationItem[]).map(label)
  return diffArrays(items(f.before), items(f.after)).flatMap((p) =>
    p.value.map((value) => ({ value, added: !!p.added, removed: !!p.removed })),
  )
}

/**
 * The changed fields of a revision diff (a term's or a wiki page's): scalars as before → after, lists item by
 * item, long texts line by line (removed lines struck through, added ones underlined, so the diff reads without
 * colour). `labelOf` names a field in the page's language; `formatValue` may show a scalar in words (a status).
 */
export function DiffView({
  fields,
  labelOf,
  formatValue,
}: {
  fields: FieldDiffView[]
  labelOf: (field: string) => string
  formatValue?: (field: string, value: unknown) => string | undefined
}) {
  const t = useT()
  const scalar = (field: string, value: unknown) =>
    (value === null || value === undefined || value === '' ? undefined : formatValue?.(field, value)) ??
    show(value)
  const changed = fields.filter((f) => f.changed)
  if (changed.length === 0) return <p className="muted">{t('history.noChanges')}</p>
  return (
    <div className="diff" data-testid="diff">
      {changed.map((f) => {
        const changes = f.field === 'notations' ? notationChanges(f, t) : f.changes
        return (
          <section key={f.field} className="diff-field" data-field={f.field}>
            <h3>{labelOf(f.field)}</h3>
            {changes ? (
              <pre className="diff-lines">
                {changes.map((c, i) =>
                  c.added ? (
                    <ins key={i}>{lines(c.value, '+ ')}</ins>
                  ) : c.removed ? (
                    <del key={i}>{lines(c.value, '- ')}</del>
                  ) : (
                    <span key={i}>{lines(c.value, '  ')}</span>
                  ),
                )}
              </pre>
            ) : (
              <p>
                <del>{scalar(f.field, f.before)}</del> → <ins>{scalar(f.field, f.after)}</ins>
              </p>
            )}
          </section>
        )
      })}
    </div>
  )
}

/** One line per list item or text line, with a +/- marker in front. */
function lines(value: string, marker: string): string {
  const text = value.endsWith('\n') ? value.slice(0, -1) : value
  return `${text
    .split('\n')
    .map((line) => marker + line)
    .join('\n')}\n`
}
