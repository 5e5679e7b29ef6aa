import { Form, Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { useDataTable } from '#app/components/data-table.tsx'
import { DiffView, type FieldDiffView } from '#app/components/terms/diff-view.tsx'
import { formatDate } from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'

/**
 * The one history control of terms and wiki pages (issue 27 item 11): the same list columns (revision, when,
 * who, summary), the same way to compare two revisions (a GET form of "from" and "to" radios, so it works
 * without JavaScript, plus a "changes" link per revision against the one before), and the same diff.
 */

/** One revision as the list shows it; `summary` is the change note of a term, the title and status of a page. */
export interface HistoryEntry {
  revision: number
  createdAt: string
  author: string | null
  summary: ReactNode
}

export const compareHref = (historyHref: string, from: number, to: number) =>
  `${historyHref}?from=${from}&to=${to}`

const LIST_COLUMNS = {
  revision: 'history.revision',
  when: 'history.when',
  who: 'history.who',
  summary: 'history.summary',
} as const satisfies Record<string, MessageKey>

const PICK_COLUMNS = {
  from: 'history.from',
  to: 'history.to',
  ...LIST_COLUMNS,
} as const satisfies Record<string, MessageKey>

/**
 * The revisions, newest first. With `pick` (the history page) each row has a "from" and a "to" radio and the
 * form compares the two picked; without it (a short list on the item's own page) only the "changes" links.
 */
export function RevisionList({
  entries,
  current,
  historyHref,
  pick,
  testId,
}: {
  entries: HistoryEntry[]
  /** The item's current revision, marked in the list. */
  current: number
  /** The history page of the item (the compare form's and the "changes" links' address). */
  historyHref: string
  /** The revisions picked when the page opens. */
  pick?: { from: number; to: number }
  testId?: string
}) {
  const t = useT()
  const table = useDataTable<keyof typeof PICK_COLUMNS>(pick ? PICK_COLUMNS : LIST_COLUMNS, {
    className: 'revision-list',
    testId,
  })
  const rows = (
    <table {...table.props}>
      {table.head}
      <tbody {...table.body}>
        {entries.map((r) => (
          <tr {...table.row} key={r.revision} data-revision={r.revision}>
            {pick ? (
              <>
                <td {...table.cell('from')} className="pick">
                  <input
                    type="radio"
                    name="from"
                    value={r.revision}
                    defaultChecked={r.revision === pick.from}
                    aria-label={fill(t('history.fromN'), { revision: r.revision })}
                  />
                </td>
                <td {...table.cell('to')} className="pick">
                  <input
                    type="radio"
                    name="to"
                    value={r.revision}
                    defaultChecked={r.revision === pick.to}
                    aria-label={fill(t('history.toN'), { revision: r.revision })}
                  />
                </td>
              </>
            ) : null}
            <td {...table.cell('revision')}>
              {r.revision}
              {r.revision === current ? <span className="muted small"> ({t('history.current')})</span> : null}
              {r.revision > 1 ? (
                <>
                  {' · '}
                  <Link
                    to={compareHref(historyHref, r.revision - 1, r.revision)}
                    className="small"
                    aria-label={fill(t('history.changesOf'), { revision: r.revision })}
                  >
                    {t('history.changes')}
                  </Link>
                </>
              ) : null}
            </td>
            <td {...table.cell('when')} className="small">
              {formatDate(r.createdAt)}
            </td>
            <td {...table.cell('who')}>{r.author ?? '—'}</td>
            <td {...table.cell('summary')}>{r.summary}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
  if (!pick) return rows
  return (
    <Form method="get" action={historyHref} className="revision-pick">
      {entries.length > 1 ? <p className="muted small">{t('history.pickHint')}</p> : null}
      {rows}
      {entries.length > 1 ? (
        <p>
          <button type="submit">{t('history.compare')}</button>
        </p>
      ) : null}
    </Form>
  )
}

interface RevisionRef {
  revision: number
  author: { name: string } | null
  createdAt: string
}

/** The difference of two revisions: which two, by whom and when, then the changed fields. */
export function RevisionDiff({
  diff,
  labelOf,
  formatValue,
}: {
  diff: { from: RevisionRef; to: RevisionRef; fields: FieldDiffView[] }
  labelOf: (field: string) => string
  formatValue?: (field: string, value: unknown) => string | undefined
}) {
  const t = useT()
  return (
    <section aria-labelledby="diff-title" className="revision-diff">
      <h2 id="diff-title">
        {fill(t('history.diffTitle'), { from: diff.from.revision, to: diff.to.revision })}
      </h2>
      <p className="muted">
        {fill(t('history.diffMeta'), {
          from: diff.from.revision,
          fromWho: diff.from.author?.name ?? '—',
          fromWhen: formatDate(diff.from.createdAt),
          to: diff.to.revision,
          toWho: diff.to.author?.name ?? '—',
          toWhen: formatDate(diff.to.createdAt),
        })}
      </p>
      <DiffView fields={diff.fields} labelOf={labelOf} formatValue={formatValue} />
    </section>
  )
}
