import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { parse } from 'csv-parse/sync'
import { z } from 'zod'
import { AppError, validationError, type Problem } from '#app/lib/errors.server.ts'
import { LiveJobs } from '#app/lib/live-jobs.server.ts'
import { ndjsonResponse } from '#app/lib/ndjson.ts'
import { log } from '#app/lib/logger.server.ts'
import { IMPORT_MAX_ROWS, type ImportInput } from '#app/schemas/import.ts'
import {
  ClassificationKeySchema,
  EDITABLE_TERM_STATUS_VALUES,
  LIMITS,
  NotationSchema,
  SlugSchema,
} from '#app/schemas/terms.ts'
import { gatherCandidates } from '#app/services/candidates/candidates.server.ts'
import {
  contentHash,
  contentProblems,
  slugify,
  termForms,
  type TermContent,
  type TermForm,
} from '#app/services/terms/content.server.ts'
import { casedKey } from '#app/services/matching/letter-case.ts'
import { notifyGlossaryChanged } from '#app/services/terms/events.server.ts'
import {
  bumpGlossaryVersion,
  classificationProblems,
  loadClassificationIds,
  loadHeads,
  writeTerms,
  type TermWrite,
} from '#app/services/terms/store.server.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { textArray } from '#app/services/terms/read.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'

/**
 * Term import (docs/decisions/007-validation-and-import.md).
 *
 * Rows are matched to terms by slug (given, or derived from the name), current or old: a match is an update,
 * otherwise a create. A field absent from the row (a JSON key, a CSV column) keeps its value; a present one
 * replaces it (an empty CSV cell clears it). A dry run returns the per-row report and writes nothing. A real
 * run is ONE transaction: if any row has an error nothing is applied. It runs as an `import_jobs` row whose
 * progress GET /import/{jobId} reports; POST answers 202 with the running job unless `wait` is set.
 */

export type ImportAction = 'created' | 'updated' | 'unchanged' | 'error'

export interface ReportRow {
  row: number
  action: ImportAction
  slug: string | null
  name: string | null
  termId: string | null
  errors?: { path: string; message: string }[]
  warnings?: { path: string; message: string }[]
}

interface Counts {
  total: number
  created: number
  updated: number
  unchanged: number
  errors: number
}

export interface ImportJobDto extends Counts {
  id: string
  status: 'running' | 'succeeded' | 'failed'
  format: 'csv' | 'json'
  processed: number
  error: string | null
  rows?: ReportRow[]
  createdAt: string
  finishedAt: string | null
}

const nullableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .transform((v) => (v ? v : null))

const RowSchema = z
  .object({
    slug: SlugSchema.optional(),
    name: z.string().trim().min(1).max(LIMITS.name).optional(),
    fullName: nullableText(LIMITS.name).optional(),
    nameEn: nullableText(LIMITS.name).optional(),
    nameKo: nullableText(LIMITS.name).optional(),
    notations: z.array(NotationSchema).max(LIMITS.notations).optional(),
    domains: z.array(ClassificationKeySchema).max(LIMITS.classification).optional(),
    categories: z.array(ClassificationKeySchema).max(LIMITS.classification).optional(),
    tags: z.array(z.string().trim().min(1).max(LIMITS.tag)).max(LIMITS.tags).optional(),
    status: z.enum(EDITABLE_TERM_STATUS_VALUES).optional(),
    definition: z.string().max(LIMITS.definition).optional(),
    body: z.string().max(LIMITS.body).optional(),
    note: z.string().trim().max(LIMITS.note).optional(),
  })
  .strict()
type Row = z.output<typeof RowSchema>

/** CSV columns, in template order. Lists are separated by `;`. */
export const CSV_COLUMNS = [
  'slug',
  'name',
  'fullName',
  'nameEn',
  'nameKo',
  'preferred',
  'admitted',
  'deprecated',
  'domains',
  'categories',
  'tags',
  'status',
  'definition',
  'body',
  'note',
] as const

const COLUMN_BY_LOWER = new Map<string, string>(CSV_COLUMNS.map((c) => [c.toLowerCase(), c]))

/** The published CSV template (UTF-8 with a BOM so spreadsheet programs read Korean correctly). */
export function importTemplateCsv(): Response {
  const lines = [
    CSV_COLUMNS.join(','),
    'api-gateway,API Gateway,,API Gateway,API 게이트웨이,,API GW,API 관문,platform,,network;edge,active,"The single entry point that routes API calls to services.",,initial import',
    ',원장,,Ledger,원장,,,장부,payments,,,,,"Body in **Markdown**.",',
  ]
  return new Response(`\uFEFF${lines.join('\r\n')}\r\n`, {
    status: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': 'attachment; filename="glossary-import-template.csv"',
    },
  })
}

const splitList = (cell: string) =>
  cell
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)

/** CSV text → row objects shaped like JSON import rows. Malformed CSV or unknown columns → 400. */
export function csvToRows(csv: string): Record<string, unknown>[] {
  let records: Record<string, string>[]
  try {
    records = parse(csv, {
      bom: true,
      columns: (header: string[]) =>
        header.map((h) => {
          const column = COLUMN_BY_LOWER.get(h.trim().toLowerCase())
          if (!column) throw new Error(`Unknown column "${h}". Columns: ${CSV_COLUMNS.join(', ')}.`)
          return column
        }),
      skip_empty_lines: true,
      relax_column_count: false,
    }) as Record<string, string>[]
  } catch (err) {
    throw validationError([{ path: 'csv', message: (err as Error).message }], 'The CSV file cannot be read.')
  }
  if (records.length > IMPORT_MAX_ROWS) {
    throw validationError([{ path: 'csv', message: `At most ${IMPORT_MAX_ROWS} rows per import.` }])
  }
  return records.map((rec) => {
    const row: Record<string, unknown> = {}
    const notations: { text: string; kind: string }[] = []
    let hasNotations = false
    for (const [column, raw] of Object.entries(rec)) {
      const cell = (raw ?? '').trim()
      if (column === 'preferred' || column === 'admitted' || column === 'deprecated') {
        hasNotations = true
        for (const text of splitList(cell)) notations.push({ text, kind: column })
      } else if (column === 'domains' || column === 'categories' || column === 'tags') {
        row[column] = splitList(cell)
      } else if (column === 'slug' || column === 'status' || column === 'note' || column === 'name') {
        if (cell) row[column] = cell
      } else if (column === 'definition' || column === 'body') {
        row[column] = raw ?? ''
      } else {
        row[column] = cell || null
      }
    }
    if (hasNotations) row.notations = notations
    return row
  })
}

interface Plan {
  report: ReportRow[]
  writes: TermWrite[]
  counts: Counts
}

const problemsOf = (problems: Problem[]) => problems.map((p) => ({ path: p.path, message: p.message }))

/** Decides, row by row, what an import would do (reads only). */
async function planImport(
  tx: EntityManager,
  rows: Record<string, unknown>[],
  actorId: string,
): Promise<Plan> {
  const ids = await loadClassificationIds(tx)
  const parsed = rows.map((raw) => RowSchema.safeParse(raw))
  const slugOf = (row: Row) => row.slug ?? (row.name ? slugify(row.name) : null)
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
  const counts: Counts = { total: rows.length, created: 0, updated: 0, unchanged: 0, errors: 0 }
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
        notations: row.notations ?? base.notations,
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
    })
  })
  await reportSharedNotations(tx, writes, report)
  return { report, writes, counts }
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

function rowsOf(input: ImportInput): Record<string, unknown>[] {
  return input.format === 'csv' ? csvToRows(input.csv ?? '') : (input.rows ?? [])
}

/** Running jobs' live progress (the `import_jobs` row holds the final state). */
const importJobs = new LiveJobs<ImportJobDto>()

/** Rows written per statement batch; progress advances after each. */
const WRITE_BATCH = 500

const iso = (v: Date | string | null) =>
  v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString()

/**
 * Runs an import. Dry run: the per-row report, nothing written. Real run: a job; answers the running job
 * (the caller responds 202) or, with `wait`, the finished one.
 */
export async function runImport(options: {
  input: ImportInput
  actorId: string
}): Promise<
  | { kind: 'report'; report: Counts & { dryRun: true; rows: ReportRow[] } }
  | { kind: 'job'; job: ImportJobDto; finished: boolean }
> {
  const rows = rowsOf(options.input)
  if (options.input.dryRun) {
    const plan = await em().transactional(async (tx) => planImport(tx, rows, options.actorId))
    return { kind: 'report', report: { dryRun: true, ...plan.counts, rows: plan.report } }
  }
  const job: ImportJobDto = {
    id: crypto.randomUUID(),
    status: 'running',
    format: options.input.format,
    total: rows.length,
    processed: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    errors: 0,
    error: null,
    createdAt: new Date().toISOString(),
    finishedAt: null,
  }
  await em().execute(
    `insert into import_jobs (id, status, format, total, processed, created_by_id, created_at)
     values (?, 'running', ?, ?, 0, ?, ?)`,
    [job.id, job.format, job.total, options.actorId, job.createdAt],
    'run',
  )
  const done = importJobs
    .run(job, (changed) => executeImport(job, rows, options.actorId, changed))
    .then((written) => gatherImportCandidates(written))
    .catch((err: unknown) => log().error({ err, jobId: job.id }, 'import job failed'))
  if (options.input.wait) {
    await done
    return { kind: 'job', job: await getImportJob({ jobId: job.id }), finished: true }
  }
  void done
  return { kind: 'job', job: { ...job }, finished: false }
}

type Outcome = Pick<ImportJobDto, 'status' | 'error' | 'processed' | 'finishedAt'> & { report: ReportRow[] }

/** Records how a job ended on its row (inside the import's transaction when it got that far). */
async function recordOutcome(db: EntityManager, job: ImportJobDto, outcome: Outcome): Promise<void> {
  await db.execute(
    `update import_jobs set status = ?, processed = ?, created = ?, updated = ?, unchanged = ?, errors = ?,
        error = ?, report = ?::jsonb, finished_at = ? where id = ?`,
    [
      outcome.status,
      outcome.processed,
      job.created,
      job.updated,
      job.unchanged,
      job.errors,
      outcome.error,
      JSON.stringify(outcome.report),
      outcome.finishedAt,
      job.id,
    ],
    'run',
  )
}

/**
 * Plans and writes an import in one transaction, advancing `job` after each batch of rows. The transaction
 * holds the job row's lock from its first statement and records the outcome on the row before it commits,
 * so a `running` row whose lock is free belongs to an import that is no longer running anywhere (see
 * `getImportJob`). The live job shows the outcome only once the row holds it, so a reader that sees a
 * finished job always finds its report. Answers the terms written (none when it failed).
 */
async function executeImport(
  job: ImportJobDto,
  rows: Record<string, unknown>[],
  actorId: string,
  changed: () => Promise<void>,
): Promise<TermWrite[]> {
  let outcome: Outcome
  let written: TermWrite[] = []
  try {
    outcome = await em().transactional(async (tx) => {
      // The job row first: nobody else waits for it, so taking it before the glossary version is safe.
      await tx.execute('select id from import_jobs where id = ? for update', [job.id])
      const version = await bumpGlossaryVersion(tx)
      const plan = await planImport(tx, rows, actorId)
      Object.assign(job, plan.counts)
      // Every row was checked once the plan exists (a failed plan still reports on all of them).
      const finished = (status: 'succeeded' | 'failed', error: string | null): Outcome => ({
        status,
        error,
        processed: rows.length,
        finishedAt: new Date().toISOString(),
        report: plan.report,
      })
      if (plan.counts.errors > 0) {
        const result = finished('failed', `${plan.counts.errors} row(s) have errors; nothing was imported.`)
        await recordOutcome(tx, job, result)
        return result
      }
      job.processed = plan.counts.unchanged
      await changed()
      const ids = await loadClassificationIds(tx)
      for (let i = 0; i < plan.writes.length; i += WRITE_BATCH) {
        await writeTerms(tx, plan.writes.slice(i, i + WRITE_BATCH), ids, version)
        job.processed = Math.min(rows.length, plan.counts.unchanged + i + WRITE_BATCH)
        await changed()
      }
      const result = finished('succeeded', null)
      await recordOutcome(tx, job, result)
      written = plan.writes
      return result
    })
  } catch (err) {
    log().error({ err, jobId: job.id }, 'import failed')
    written = []
    outcome = {
      status: 'failed',
      error: err instanceof AppError ? err.message : 'The import failed; nothing was imported.',
      processed: job.processed,
      finishedAt: new Date().toISOString(),
      report: [],
    }
    await recordOutcome(em(), job, outcome)
  }
  // Watchers are told when the job is forgotten, just after this, and then read the row.
  Object.assign(job, { status: outcome.status, error: outcome.error, processed: outcome.processed })
  job.finishedAt = outcome.finishedAt
  if (written.length) notifyGlossaryChanged()
  return written
}

/** Candidates from imported definitions and bodies (after the job; never fails the import). */
async function gatherImportCandidates(written: TermWrite[]): Promise<void> {
  if (!written.length) return
  const snapshot = await matcherCache.get().catch(() => undefined)
  const imported = new Set(written.flatMap((w) => termForms(w.content).map((f) => f.normalized)))
  await gatherCandidates({
    texts: written.map((w) => `${w.content.definition}\n\n${w.content.body}`),
    source: 'import',
    known: { has: (key: string) => imported.has(key) || !!snapshot?.byKey.has(key) },
  })
}

const ABANDONED =
  'The import stopped before it finished (the service was stopped or restarted); nothing was imported.'

/**
 * Whether a `running` row belongs to an import no process is running any more: the import's transaction
 * holds the row's lock until it has recorded the outcome, so a lock that is free means its process died
 * (and its transaction rolled back). A row younger than a minute may be one whose transaction has not
 * begun yet. Only reported, never written: a GET changes nothing.
 */
async function isAbandoned(jobId: string): Promise<boolean> {
  const free = await em().execute(
    `select id from import_jobs where id = ? and created_at < now() - interval '1 minute'
        for update skip locked`,
    [jobId],
  )
  return free.length > 0
}

interface JobRow {
  id: string
  status: ImportJobDto['status']
  format: ImportJobDto['format']
  total: number
  processed: number
  created: number
  updated: number
  unchanged: number
  errors: number
  error: string | null
  report?: ReportRow[] | string | null
  created_at: Date | string
  finished_at: Date | string | null
}

/** A job as its row (or, while it runs in this process, its live state) tells it. */
async function toJobDto(r: JobRow): Promise<ImportJobDto> {
  const live = importJobs.snapshot(r.id)
  if (live) return live
  const report = typeof r.report === 'string' ? (JSON.parse(r.report) as ReportRow[]) : r.report
  const abandoned = r.status === 'running' && (await isAbandoned(r.id))
  return {
    id: r.id,
    status: abandoned ? 'failed' : r.status,
    format: r.format,
    total: r.total,
    processed: r.processed,
    created: r.created,
    updated: r.updated,
    unchanged: r.unchanged,
    errors: r.errors,
    error: abandoned ? ABANDONED : r.error,
    ...(report ? { rows: report } : {}),
    createdAt: iso(r.created_at)!,
    finishedAt: iso(r.finished_at),
  }
}

/** A job's progress, and its per-row report once finished. */
export async function getImportJob(options: { jobId: string }): Promise<ImportJobDto> {
  const live = importJobs.snapshot(options.jobId)
  if (live) return live
  if (!isUuid(options.jobId)) throw new AppError('not_found', 'No such import job.')
  const rows = await em().execute<JobRow[]>('select * from import_jobs where id = ?', [options.jobId])
  if (!rows[0]) throw new AppError('not_found', 'No such import job.')
  return toJobDto(rows[0])
}

export type ImportJobSummary = Omit<ImportJobDto, 'rows'> & { createdByName: string | null }

/** The latest jobs, newest first, without their reports (the import page's "recent imports"). */
export async function listImportJobs(options: { limit: number }): Promise<ImportJobSummary[]> {
  const rows = await em().execute<(JobRow & { created_by_name: string | null })[]>(
    `select j.id, j.status, j.format, j.total, j.processed, j.created, j.updated, j.unchanged, j.errors,
            j.error, j.created_at, j.finished_at, u.name as created_by_name
       from import_jobs j left join users u on u.id = j.created_by_id
      order by j.created_at desc, j.id
      limit ?`,
    [options.limit],
  )
  return Promise.all(
    rows.map(async (r) => {
      const { rows: _report, ...job } = await toJobDto(r)
      return { ...job, createdByName: r.created_by_name }
    }),
  )
}

/**
 * A job's progress as a stream of newline-delimited JSON: its state now, after each batch of rows written,
 * and last the finished job with its per-row report. A job this process runs is followed live; one that
 * another process runs is followed through its row. An unknown job is a 404 before the stream starts.
 */
export async function importProgressResponse(jobId: string, init: ResponseInit = {}): Promise<Response> {
  if (importJobs.snapshot(jobId)) {
    return ndjsonResponse(
      importJobs.watch(jobId, () => getImportJob({ jobId })),
      init,
    )
  }
  const current = await getImportJob({ jobId })
  return ndjsonResponse(followJobRow(current), init)
}

/** How often a stream follows a job that another process runs (PostgreSQL with several web processes). */
const ROW_POLL_MS = 500

/** A job running in another process, told from its row until it has finished (or was abandoned). */
async function* followJobRow(current: ImportJobDto): AsyncGenerator<ImportJobDto> {
  let job = current
  let last = ''
  for (;;) {
    const state = JSON.stringify(job)
    if (state !== last) yield job
    last = state
    if (job.status !== 'running') return
    await new Promise((resolve) => setTimeout(resolve, ROW_POLL_MS))
    job = await getImportJob({ jobId: job.id })
  }
}

/**
 * The HTTP answer: 200 with the dry-run report or the finished job, 202 with a running job, or (when the
 * client accepts `application/x-ndjson`) 200 with the running job's progress streamed until it finishes.
 */
export async function importResponse(
  result: Awaited<ReturnType<typeof runImport>>,
  options: { stream: boolean },
): Promise<Response> {
  if (result.kind === 'job' && options.stream) {
    return importProgressResponse(result.job.id, { headers: { Location: `/api/v1/import/${result.job.id}` } })
  }
  const body = result.kind === 'report' ? result.report : result.job
  const status = result.kind === 'job' && !result.finished ? 202 : 200
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      ...(result.kind === 'job' ? { Location: `/api/v1/import/${result.job.id}` } : {}),
    },
  })
}
