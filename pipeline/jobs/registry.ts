import { applyImportJob } from '#app/services/import/apply.server.ts'
import { INDEX_JOBS } from '../index-jobs.ts'
import type { AnyJobDefinition } from './job.ts'

/**
 * Every job a BullMQ worker process consumes. A job submitted to Redis runs only if its definition is listed
 * here (the in-process transport runs what it is given): imports and the four index stages (decision 016).
 */
export const JOB_DEFINITIONS: readonly AnyJobDefinition[] = [applyImportJob, ...INDEX_JOBS]
