import { applyImportJob } from '#app/services/import/apply.server.ts'
import type { AnyJobDefinition } from './job.ts'

/**
 * Every job a BullMQ worker process consumes. A job submitted to Redis runs only if its definition is listed
 * here (the in-process transport runs what it is given). The index stages, sync and reindex join this list.
 */
export const JOB_DEFINITIONS: readonly AnyJobDefinition[] = [applyImportJob]
