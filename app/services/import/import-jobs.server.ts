import { AppError } from '#app/lib/errors.server.ts'
import type { ImportJob, ReportRow } from '#app/schemas/import.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import { jobs } from '#pipeline/jobs/client.ts'
import { jobIdOf } from '#pipeline/jobs/job.ts'
import { applyImportJob } from './apply.server.ts'

/**
 * Reading import jobs (docs/decisions/007-validation-and-import.md): a job's state is its live progress while
 * the import runs (from the job transport: memory in-process, Redis with BullMQ), and its `import_jobs` row
 * otherwise. Nothing here writes: a GET changes nothing.
 */

/** The transport's id of an import's job. */
export const applyJobId = (importJobId: string) => jobIdOf(applyImportJob, { importJobId })

/** The live state of a running import; undefined once it has finished (its row holds the outcome then). */
async function liveState(jobId: string): Promise<ImportJob | undefined> {
  const live = await jobs().progress(applyImportJob, applyJobId(jobId))
  return live?.status === 'running' ? live : undefined
}

const ABANDONED =
  'The import stopped before it finished (the service was stopped or restarted); nothing was imported.'

/**
 * Whether a `running` row belongs to an import no process is running any more: neither queued nor running in
 * the job transport, and its lock free (the import's transaction holds the row's lock until it has recorded
 * the outcome, so a free lock means its process died and its transaction rolled back). A row younger than a
 * minute may be one whose transaction has not begun yet (on PostgreSQL, in another process).
 */
async function isAbandoned(jobId: string): Promise<boolean> {
  if (await jobs().isPending(applyImportJob, applyJobId(jobId))) return false
  const free = await em().execute(
    `select id from import_jobs where id = ? and created_at < now() - interval '1 minute'
        for update skip locked`,
    [jobId],
  )
  return free.length > 0
}

interface JobRow {
  id: string
  status: ImportJob['status']
  format: ImportJob['format']
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

const JOB_COLUMNS = `j.id, j.status, j.format, j.total, j.processed, j.created, j.updated, j.unchanged, j.errors,
  j.error, j.created_at, j.finished_at`

const iso = (v: Date | string | null) =>
  v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString()

/** A job as its live state (while it runs) or its row tells it. */
async function toJobDto(r: JobRow): Promise<ImportJob> {
  const running = r.status === 'running'
  const live = running ? await liveState(r.id) : undefined
  if (live) return live
  const report = typeof r.report === 'string' ? (JSON.parse(r.report) as ReportRow[]) : r.report
  const abandoned = running && (await isAbandoned(r.id))
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
export async function getImportJob(options: { jobId: string }): Promise<ImportJob> {
  if (!isUuid(options.jobId)) throw new AppError('not_found', 'No such import job.')
  // While the import runs, its live state answers without the database (whose one embedded connection the
  // import's transaction holds).
  const live = await liveState(options.jobId)
  if (live) return live
  const rows = await em().execute<JobRow[]>(
    `select ${JOB_COLUMNS}, j.report from import_jobs j where j.id = ?`,
    [options.jobId],
  )
  if (!rows[0]) throw new AppError('not_found', 'No such import job.')
  return toJobDto(rows[0])
}

export type ImportJobSummary = Omit<ImportJob, 'rows'> & { createdByName: string | null }

/** The latest jobs, newest first, without their reports (the import page's "recent imports"). */
export async function listImportJobs(options: { limit: number }): Promise<ImportJobSummary[]> {
  const rows = await em().execute<(JobRow & { created_by_name: string | null })[]>(
    `select ${JOB_COLUMNS}, u.name as created_by_name
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
 * A job's states as it advances: its live state after each step while it runs, and last the finished job with
 * its per-row report. A job the transport runs is followed through its progress (live on the embedded
 * database: nothing in it needs the database until the import has committed); one that another process runs
 * without telling its progress is followed through its row. An unknown job throws `not_found` here, before
 * the caller starts answering.
 */
export async function followImportJob(jobId: string): Promise<AsyncIterable<ImportJob>> {
  if (isUuid(jobId) && (await jobs().isPending(applyImportJob, applyJobId(jobId)))) {
    return followLiveThenRow(jobId)
  }
  return followJobRow(await getImportJob({ jobId }))
}

async function* followLiveThenRow(jobId: string): AsyncGenerator<ImportJob> {
  for await (const state of jobs().watch(applyImportJob, applyJobId(jobId))) {
    // A finished state means the row holds the outcome: the last line is the row, with the report.
    if (state.status !== 'running') break
    yield state
  }
  yield* followJobRow(await getImportJob({ jobId }))
}

/** How often a stream follows a job through its row (another process runs it and tells no progress). */
const ROW_POLL_MS = 500

/** A job told from its row until it has finished (or was abandoned). */
async function* followJobRow(current: ImportJob): AsyncGenerator<ImportJob> {
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
