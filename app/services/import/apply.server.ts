import type { EntityManager } from '@mikro-orm/postgresql'
import { z } from 'zod'
import { AppError } from '#app/lib/errors.server.ts'
import { log } from '#app/lib/logger.server.ts'
import type { ImportCounts, ImportJob, ReportRow } from '#app/schemas/import.ts'
import { gatherCandidates } from '#app/services/candidates/candidates.server.ts'
import { termForms } from '#app/services/terms/content.server.ts'
import { notifyGlossaryChanged } from '#app/services/terms/events.server.ts'
import {
  bumpGlossaryVersion,
  loadClassificationIds,
  writeTerms,
  type TermWrite,
} from '#app/services/terms/store.server.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { em } from '#db/orm.ts'
import { defineJob, type JobContext } from '#pipeline/jobs/job.ts'
import { planImport } from './plan.server.ts'

/**
 * The import job (docs/decisions/007-validation-and-import.md, 014-job-model.md): applies the rows waiting
 * on an `import_jobs` row in ONE transaction. The row is the job's record: it says `running` from submission,
 * and the transaction writes how the job ended onto it before it commits. The job reports the import's state
 * as progress after planning and after each batch of rows written; that is what readers see while it runs.
 */

/** Rows written per statement batch; progress advances after each. */
const WRITE_BATCH = 500

export const ApplyImportPayloadSchema = z.object({ importJobId: z.uuid() })

export const applyImportJob = defineJob<typeof ApplyImportPayloadSchema, ImportJob>({
  name: 'import-apply',
  schema: ApplyImportPayloadSchema,
  key: (payload) => payload.importJobId,
  // One transaction that records its own failure on the row: a second run could only fail the same way.
  attempts: 1,
  async handle(payload, context) {
    const written = await executeImport(payload.importJobId, context)
    if (written.length) {
      notifyGlossaryChanged()
      await gatherImportCandidates(written)
    }
  },
})

type Outcome = Pick<ImportJob, 'status' | 'error' | 'processed' | 'finishedAt'> & { report: ReportRow[] }

const NO_COUNTS: ImportCounts = { total: 0, created: 0, updated: 0, unchanged: 0, errors: 0 }

/** Records how a job ended on its row (inside the import's transaction when it got that far). */
async function recordOutcome(
  db: EntityManager,
  jobId: string,
  counts: ImportCounts,
  outcome: Outcome,
): Promise<void> {
  await db.execute(
    `update import_jobs set status = ?, processed = ?, created = ?, updated = ?, unchanged = ?, errors = ?,
        error = ?, report = ?::jsonb, finished_at = ?, input = null where id = ?`,
    [
      outcome.status,
      outcome.processed,
      counts.created,
      counts.updated,
      counts.unchanged,
      counts.errors,
      outcome.error,
      JSON.stringify(outcome.report),
      outcome.finishedAt,
      jobId,
    ],
    'run',
  )
}

interface WaitingJob {
  id: string
  status: ImportJob['status']
  format: ImportJob['format']
  total: number
  input: Record<string, unknown>[] | string | null
  created_by_id: string | null
  created_at: Date | string
}

/**
 * Plans and writes an import in one transaction, reporting progress after planning and after each batch of
 * rows. The transaction takes the job row's lock with its first statement and records the outcome on the row
 * before it commits, so a `running` row whose lock is free belongs to an import that is no longer running
 * anywhere (see `import-jobs.server.ts`). The last progress report says the job has finished, once the row
 * holds the outcome: readers then read the row and its report. Answers the terms written (none when it failed,
 * or when the row had already finished: a job that ran twice writes once).
 */
async function executeImport(jobId: string, context: JobContext<ImportJob>): Promise<TermWrite[]> {
  let job: ImportJob | undefined
  let outcome: Outcome | undefined
  let written: TermWrite[] = []
  try {
    outcome = await em().transactional(async (tx) => {
      // The job row first: nobody else waits for it, so taking it before the glossary version is safe.
      const [waiting] = await tx.execute<WaitingJob[]>(
        `select id, status, format, total, input, created_by_id, created_at from import_jobs
          where id = ? for update`,
        [jobId],
      )
      if (!waiting || waiting.status !== 'running' || !waiting.input) return undefined
      const rows = typeof waiting.input === 'string' ? JSON.parse(waiting.input) : waiting.input
      const current: ImportJob = {
        id: jobId,
        status: 'running',
        format: waiting.format,
        ...NO_COUNTS,
        total: waiting.total,
        processed: 0,
        error: null,
        createdAt: new Date(waiting.created_at).toISOString(),
        finishedAt: null,
      }
      job = current
      await context.progress(current)
      const version = await bumpGlossaryVersion(tx)
      const plan = await planImport(tx, rows, waiting.created_by_id)
      Object.assign(current, plan.counts)
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
        await recordOutcome(tx, jobId, current, result)
        return result
      }
      current.processed = plan.counts.unchanged
      await context.progress(current)
      const ids = await loadClassificationIds(tx)
      for (let i = 0; i < plan.writes.length; i += WRITE_BATCH) {
        await writeTerms(tx, plan.writes.slice(i, i + WRITE_BATCH), ids, version)
        current.processed = Math.min(rows.length, plan.counts.unchanged + i + WRITE_BATCH)
        await context.progress(current)
      }
      const result = finished('succeeded', null)
      await recordOutcome(tx, jobId, current, result)
      written = plan.writes
      return result
    })
  } catch (err) {
    log().error({ err, jobId }, 'import failed')
    written = []
    outcome = {
      status: 'failed',
      error: err instanceof AppError ? err.message : 'The import failed; nothing was imported.',
      processed: job?.processed ?? 0,
      finishedAt: new Date().toISOString(),
      report: [],
    }
    await recordOutcome(em(), jobId, job ?? NO_COUNTS, outcome)
  }
  if (job && outcome) {
    await context.progress({
      ...job,
      status: outcome.status,
      error: outcome.error,
      finishedAt: outcome.finishedAt,
    })
  }
  return written
}

/** Candidates from imported definitions and bodies (after the import has committed; never fails it). */
async function gatherImportCandidates(written: TermWrite[]): Promise<void> {
  const snapshot = await matcherCache.get().catch(() => undefined)
  const imported = new Set(written.flatMap((w) => termForms(w.content).map((f) => f.normalized)))
  await gatherCandidates({
    texts: written.map((w) => `${w.content.definition}\n\n${w.content.body}`),
    source: 'import',
    known: { has: (key: string) => imported.has(key) || !!snapshot?.byKey.has(key) },
  })
}
