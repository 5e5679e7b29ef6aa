import { diffArrays, diffLines } from 'diff'

/**
 * The field-by-field comparison of two revisions, shared by terms and wiki pages (their history pages and
 * `…/revisions/{from}/diff/{to}`): a scalar as before/after, a list as an item diff, long text as a line
 * diff (the `diff` package). Only changed fields carry `changes`.
 */
export interface FieldDiff<F extends string = string> {
  field: F
  changed: boolean
  before: unknown
  after: unknown
  changes?: { value: string; added: boolean; removed: boolean }[]
}

/** `lines`: long text; `items`: a list, each item shown as the string `show` gives. */
export type DiffKind = 'scalar' | 'lines' | { items: (value: unknown) => string[] }

export function diffField<F extends string>(
  field: F,
  kind: DiffKind,
  before: unknown,
  after: unknown,
): FieldDiff<F> {
  const changed = JSON.stringify(before) !== JSON.stringify(after)
  const out: FieldDiff<F> = { field, changed, before, after }
  if (!changed || kind === 'scalar') return out
  if (kind === 'lines') {
    out.changes = diffLines(String(before ?? ''), String(after ?? '')).map((p) => ({
      value: p.value,
      added: !!p.added,
      removed: !!p.removed,
    }))
  } else {
    out.changes = diffArrays(kind.items(before), kind.items(after)).flatMap((p) =>
      p.value.map((value) => ({ value, added: !!p.added, removed: !!p.removed })),
    )
  }
  return out
}
