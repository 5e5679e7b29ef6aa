import crypto from 'node:crypto'
import type { ImportInput, ImportJob, ImportReport } from '#app/schemas/import.ts'
import { em } from '#db/orm.ts'
import { jobs } from '#pipeline/jobs/client.ts'
import { applyImportJob } from './apply.server.ts'
import { rowsOf } from './csv.server.ts'
import { getImportJob } from './import-jobs.server.ts'
import { planImport } from './plan.server.ts'

/**
 * Term import (docs/decisions/007-validation-and-import.md). A dry run answers the per-row report and writes
 * nothing. A real run is a job (`apply.server.ts`, decision 014): its rows wait on a new `import_jobs` row and
 * the job applies them in ONE transaction (if any row has an error nothing is applied);
 * `import-jobs.server.ts` reads its progress and report.
 */

export type ImportResult =
  { kind: 'report'; report: ImportReport } | { kind: 'job'; job: ImportJob; finished: boolean }

/**
 * Runs an import. Dry run: the report. Real run: submits the job and answers it running (`finished: false`)
 * or, with `wait`, once it has finished.
 */
export async function runImport(options: { input: ImportInput; actorId: string }): Promise<ImportResult> {
  const rows = rowsOf(options.input)
  if (options.input.dryRun) {
    const plan = await em().transactional(async (tx) => planImport(tx, rows, options.actorId))
    return { kind: 'report', report: { dryRun: true, ...plan.counts, rows: plan.report } }
  }
  const job: ImportJob = {
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
    `insert into import_jobs (id, status, format, total, processed, input, created_by_id, created_at)
     values (?, 'running', ?, ?, 0, ?::jsonb, ?, ?)`,
    [job.id, job.format, job.total, JSON.stringify(rows), options.actorId, job.createdAt],
    'run',
  )
  const jobId = await jobs().submit(applyImportJob, { importJobId: job.id })
  if (!options.input.wait) return { kind: 'job', job, finished: false }
  await jobs().waitFor(applyImportJob, jobId)
  return { kind: 'job', job: await getImportJob({ jobId: job.id }), finished: true }
}
