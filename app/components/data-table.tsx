import type { MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'

/**
 * A data table that stacks on a phone (issue 27 item 5, decision 025): at desktop width a real `<table>`; at
 * 40rem and narrower each row becomes a card and each cell shows its column's label before its value
 * ("Status: Active"), drawn by app/styles/table.css from the cell's `data-label`. The header and the cells'
 * labels come from the same message keys, so they cannot drift apart. The explicit roles keep the table a
 * table for screen readers when the phone layout changes its CSS display (some browsers drop the semantics).
 *
 *   const table = useDataTable({ name: 'term.name', status: 'term.status' })
 *   <table {...table.props}>
 *     {table.head}
 *     <tbody {...table.body}>
 *       <tr {...table.row} key={…}>
 *         <td {...table.cell('name')}>…</td>
 *         <td {...table.cell('status')}>…</td>
 *
 * A cell left empty is hidden on a phone (no label with nothing after it). Wide grids that should not stack
 * (the shared sheet) keep a plain `<table>`, which scrolls inside its own box on a phone instead.
 */
export function useDataTable<Column extends string>(
  /** The columns in order: a name for the cells, the label's key. A view may leave a column out. */
  columns: { readonly [C in Column]?: MessageKey },
  options: { className?: string; testId?: string } = {},
) {
  const t = useT()
  const entries = (Object.entries(columns) as [Column, MessageKey | undefined][]).filter(
    (entry): entry is [Column, MessageKey] => entry[1] !== undefined,
  )
  return {
    props: {
      className: ['stack-on-phone', options.className].filter(Boolean).join(' '),
      role: 'table',
      ...(options.testId ? { 'data-testid': options.testId } : {}),
    },
    head: (
      <thead role="rowgroup">
        <tr role="row">
          {entries.map(([column, key]) => (
            <th key={column} role="columnheader" scope="col">
              {t(key)}
            </th>
          ))}
        </tr>
      </thead>
    ),
    body: { role: 'rowgroup' },
    row: { role: 'row' },
    cell: (column: Column) => {
      const key = columns[column]
      return { role: 'cell', 'data-label': key ? t(key) : undefined }
    },
  } as const
}
