import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Problem } from '#app/lib/errors.server.ts'
import { ImportRowSchema, type ImportCounts, type ImportRow, type ReportRow } from '#app/schemas/import.ts'
import {
  contentHash,
  contentProblems,
  termForms,
  type TermContent,
  type TermForm,
  type TermNotationValue,
} from '#app/services/terms/content.server.ts'
import { casedKey } from '#app/services/matching/letter-case.ts'
import {
  classificationProblems,
  loadClassificationIds,
  loadHeads,
  type TermWrite,
} from '#app/services/terms/store.server.ts'
import { textArray } from '#db/sql.ts'
import { contentChanges } from './changes.ts'
import { slugFromName } from '#domain/slug.ts'

/**
 * Import planning (docs/decisions/007-validation-and-import.md): what each row would do, decided against the
 * glossary as the given transaction sees it. Rows are matched to terms by slug (given, or derived from the
 * name), current or old: a match is an update, otherwise a create. A field absent from the row keeps its
 * value; a present one replaces it (empty values were already kept out or left in by `emptyCells`,
 * `empty-cells.ts`). A notation without `lang` keeps the language the term gives the same text, so a CSV
 * file without language columns loses none. Reads only: the dry run answers the plan, the import job writes
 * it.
 */

export interface Plan {
  report: ReportRow[]
  writes: TermWrite[]
  counts: ImportCounts
}

const problemsOf = (problems: Problem[]) => problems.map((p) => ({ path: p.path, message: p.message }))

/** Decides, row by row, what an import would do (reads only). */
export async function planImport(
  tx: EntityManager,
  rows: Record<string, unknown>[],
  actorId: string | null,
): Promise<Plan> {
  const ids = await loadClassificationIds(tx)
  const parsed = rows.map((raw) => ImportRowSchema.safeParse(raw))
  const slugOf = (row: ImportRow) => row.slug ?? (row.name ? slugFromName(row.name) : null)
  const wanted = [...new Set(parsed.flatMap((p) => (p.success && slugOf(p.data) ? [slugOf(p.data)!] : [])))]
  const found = wanted.length
    ? await tx.execute<{ slug: string; id: string; status: string }[]>(
        `select slug, id, status from terms where slug = any(?::text[]) and deleted_at is null
         union all
         select o.slug, o.term_id, t.status from term_old_slugs o join terms t on t.id = o.term_id
          where o.slug = any(?::text[]) and t.deleted_at is null`,
        [textArray(wanted), textArray(wanted)],
      )
    : []
  // A current slug wins over an old address of another term.
  const bySlug = new Map<string, { id: string; status: string }>()
  for (const f of found) if (!bySlug.has(f.slug) || f.status !== 'merged') bySlug.set(f.slug, f)
  const heads = await loadHeads(tx, [...new Set([...bySlug.values()].map((v) => v.id))])
  const report: ReportRow[] = []
  const writes: TermWrite[] = []
  const counts: ImportCounts = { total: rows.length, created: 0, updated: 0, unchanged: 0, errors: 0 }
  const seenSlugs = new Map<string, number>()
  const seenTerms = new Map<string, number>()
  parsed.forEach((result, index) => {
    const rowNumber = index + 1
    const fail = (slug: string | null, name: string | null, problems: Problem[]) => {
      counts.errors++
      report.push({ row: rowNumber, action: 'error', slug, name, termId: null, errors: problemsOf(problems) })
    }
    if (!result.success) {
      const raw = rows[index]!
      fail(
        typeof raw.slug === 'string' ? raw.slug : null,
        typeof raw.name === 'string' ? raw.name : null,
        result.error.issues.map((i) => ({
          path: i.path.map(String).join('.') || '(row)',
          message: i.message,
        })),
      )
      return
    }
    const row = result.data
    const slug = slugOf(row)
    if (!slug) {
      fail(null, null, [{ path: 'name', message: 'A row needs a name (or the slug of an existing term).' }])
      return
    }
    const existing = bySlug.get(slug)
    const head = existing ? heads.get(existing.id) : undefined
    const termKey = head?.id ?? `new:${slug}`
    const dupe = seenTerms.get(termKey) ?? seenSlugs.get(slug)
    if (dupe) {
      fail(slug, row.name ?? null, [{ path: 'slug', message: `Row ${dupe} already imports this term.` }])
      return
    }
    seenTerms.set(termKey, rowNumber)
    seenSlugs.set(slug, rowNumber)
    if (existing && existing.status === 'merged') {
      fail(slug, row.name ?? null, [
        { path: 'slug', message: 'This term was merged into another and is read-only.' },
      ])
      return
    }
    let content: TermContent
    if (head) {
      const base = head.content
      content = {
        slug: base.slug,
        name: row.name ?? base.name,
        fullName: row.fullName === undefined ? base.fullName : row.fullName,
        nameEn: row.nameEn === undefined ? base.nameEn : row.nameEn,
        nameKo: row.nameKo === undefined ? base.nameKo : row.nameKo,
        notations: row.notations
          ? inStoredOrder(
              withStoredLangs(row.notations, rows[index]!.notations, base.notations),
              base.notations,
            )
          : base.notations,
        domains: [...new Set(row.domains ?? base.domains)],
        categories: [...new Set(row.categories ?? base.categories)],
        tags: [...new Set(row.tags ?? base.tags)],
        status: row.status ?? base.status,
        definition: row.definition ?? base.definition,
        body: row.body ?? base.body,
      }
    } else {
      if (!row.name) {
        fail(slug, null, [{ path: 'name', message: 'A new term needs a name.' }])
        return
      }
      const definition = row.definition ?? ''
      content = {
        slug,
        name: row.name,
        fullName: row.fullName ?? null,
        nameEn: row.nameEn ?? null,
        nameKo: row.nameKo ?? null,
        notations: row.notations ?? [],
        domains: [...new Set(row.domains ?? [])],
        categories: [...new Set(row.categories ?? [])],
        tags: [...new Set(row.tags ?? [])],
        // Rows missing their definition come in as needs_completion (unless a status is given).
        status: row.status ?? (definition.trim() ? 'active' : 'needs_completion'),
        definition,
        body: row.body ?? '',
      }
    }
    const problems = [...contentProblems(content), ...classificationProblems(content, ids)]
    if (problems.length) {
      fail(slug, content.name, problems)
      return
    }
    const hash = contentHash(content)
    if (head && hash === head.contentHash) {
      counts.unchanged++
      report.push({
        row: rowNumber,
        action: 'unchanged',
        slug: content.slug,
        name: content.name,
        termId: head.id,
      })
      return
    }
    const id = head?.id ?? crypto.randomUUID()
    writes.push({
      id,
      isNew: !head,
      revision: head ? head.revision + 1 : 1,
      content,
      hash,
      note: row.note ?? 'import',
      authorId: actorId,
      mergedIntoId: null,
    })
    if (head) counts.updated++
    else counts.created++
    report.push({
      row: rowNumber,
      action: head ? 'updated' : 'created',
      slug: content.slug,
      name: content.name,
      termId: id,
      ...(head ? { changes: contentChanges(head.content, content) } : {}),
    })
  })
  await reportSharedNotations(tx, writes, report)
  return { report, writes, counts }
}

/**
 * The row's notations, each one the row gives no `lang` taking the language of the stored notation with the
 * same text (the schema has already turned a missing `lang` into null, so the raw row tells which).
 */
function withStoredLangs(
  notations: TermNotationValue[],
  raw: unknown,
  stored: TermNotationValue[],
): TermNotationValue[] {
  const langOf = new Map<string, string | null>()
  for (const n of stored) if (!langOf.has(n.text)) langOf.set(n.text, n.lang)
  return notations.map((n, i) => {
    const given = Array.isArray(raw) && raw[i] && typeof raw[i] === 'object' && 'lang' in raw[i]
    return given ? n : { ...n, lang: langOf.get(n.text) ?? null }
  })
}

/**
 * The stored list when the row gives the same notations in another order: a CSV lists them kind by kind, so
 * a term whose kinds alternate would otherwise come back "updated" from its own export.
 */
function inStoredOrder(notations: TermNotationValue[], stored: TermNotationValue[]): TermNotationValue[] {
  const key = (n: TermNotationValue) => JSON.stringify([n.text, n.kind, n.lang])
  const sorted = (list: TermNotationValue[]) => list.map(key).sort().join('\n')
  return notations.length === stored.length && sorted(notations) === sorted(stored) ? stored : notations
}

/** At most this many shared-notation warnings per row (a row may share a common notation with hundreds). */
const MAX_WARNINGS = 20

/** Where a form sits in an import row, for the report's `path`. */
function formPath(content: TermContent, form: TermForm): string {
  if (form.source === 'notation')
    return `notations.${content.notations.findIndex((n) => n.text === form.text)}.text`
  return { name: 'name', full_name: 'fullName', name_en: 'nameEn', name_ko: 'nameKo' }[form.source]
}

/**
 * Names, per written row, each notation that another term also has — another row of the file or a term
 * already in the glossary — identically or differing only by letter case (docs/decisions/013-letter-case.md).
 * Neither is an error: homographs are real (`PR` for pull request and for public relations; a use is
 * reported for both terms), and letter case tells `US` from `us`. But an import never resolves them silently.
 */
async function reportSharedNotations(
  tx: EntityManager,
  writes: TermWrite[],
  report: ReportRow[],
): Promise<void> {
  interface Holder {
    termId: string
    label: string
    text: string
    cased: string
  }
  const byKey = new Map<string, Holder[]>()
  const hold = (key: string, holder: Holder) => {
    const list = byKey.get(key)
    if (list) list.push(holder)
    else byKey.set(key, [holder])
  }
  const rowOf = new Map(report.filter((r) => r.termId).map((r) => [r.termId!, r]))
  const formsOf = writes.map((w) => termForms(w.content))
  writes.forEach((w, i) => {
    for (const f of formsOf[i]) {
      hold(f.normalized, {
        termId: w.id,
        label: `row ${rowOf.get(w.id)!.row} ("${w.content.name}")`,
        text: f.text,
        cased: f.cased,
      })
    }
  })
  if (byKey.size === 0) return
  const written = new Set(writes.map((w) => w.id))
  const existing = await tx.execute<
    { term_id: string; name: string; slug: string; text: string; normalized: string }[]
  >(
    `select n.term_id, t.name, t.slug, n.text, n.normalized
       from term_notations n join terms t on t.id = n.term_id
      where n.normalized = any(?::text[]) and t.deleted_at is null and t.status <> 'merged'
      order by t.slug, n.position`,
    [textArray([...byKey.keys()])],
  )
  for (const e of existing) {
    // A term this import rewrites is represented by its new forms.
    if (written.has(e.term_id)) continue
    hold(e.normalized, {
      termId: e.term_id,
      label: `term "${e.slug}" ("${e.name}")`,
      text: e.text,
      cased: casedKey(e.text),
    })
  }
  writes.forEach((w, i) => {
    const warnings: { path: string; message: string }[] = []
    for (const f of formsOf[i]) {
      for (const other of byKey.get(f.normalized)!) {
        if (other.termId === w.id) continue
        if (warnings.length === MAX_WARNINGS) break
        warnings.push({
          path: formPath(w.content, f),
          message:
            other.cased === f.cased
              ? `"${f.text}" is also a notation of ${other.label}; a use of it is reported for both terms.`
              : `"${f.text}" differs only by letter case from "${other.text}" of ${other.label}; the letter case of a use decides which term it is.`,
        })
      }
    }
    if (warnings.length) rowOf.get(w.id)!.warnings = warnings
  })
}
