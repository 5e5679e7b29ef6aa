import type { EntityManager } from '@mikro-orm/postgresql'
import { countChanged } from '#db/sql.ts'
import type { AiFailureClass, AiPurpose, AiRunStatus, AiTask } from '#domain/rag.ts'

/**
 * The SQL of `ai_runs`: one row per provider call, written once when it ends, or, for a call that lasts (the
 * recorder's `RUNNING_ROW`), `running` while under way and finished after it, so a process that dies during it
 * leaves a `running` row the observability page judges interrupted.
 * The columns hold what a dashboard needs and nothing a call carried (no prompt, text, vector or secret).
 */

export interface AiRunStart {
  id: string
  traceId: string
  task: AiTask
  purpose: AiPurpose
  provider: string
  model: string
  items: number
}

export interface AiRunEnd {
  status: Exclude<AiRunStatus, 'running'>
  failureClass: AiFailureClass | null
  httpStatus: number | null
  latencyMs: number
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
}

/** The columns of a run's start, in `START_COLUMNS` order. */
const startValues = (run: AiRunStart) => [
  run.id,
  run.traceId,
  run.task,
  run.purpose,
  run.provider,
  run.model.slice(0, 200),
  run.items,
]
const START_COLUMNS = ['id', 'trace_id', 'task', 'purpose', 'provider', 'model', 'items']

/** `?, ` once per column of `columns`. */
const placeholders = (columns: readonly string[]) => '?, '.repeat(columns.length)

/** The columns of a run's end, in `END_COLUMNS` order. */
const endValues = (end: AiRunEnd) => [
  end.status,
  end.failureClass,
  end.httpStatus,
  end.latencyMs,
  end.inputTokens ?? null,
  end.outputTokens ?? null,
  end.totalTokens ?? null,
]
const END_COLUMNS = [
  'status',
  'failure_class',
  'http_status',
  'latency_ms',
  'input_tokens',
  'output_tokens',
  'total_tokens',
]

export async function insertRun(manager: EntityManager, run: AiRunStart): Promise<void> {
  await manager.execute(
    `insert into ai_runs (${START_COLUMNS.join(', ')}, status, started_at)
     values (${placeholders(START_COLUMNS)}'running', now())`,
    startValues(run),
    'run',
  )
}

/** A call's row written once, after it ended: started `latencyMs` before now. */
export async function insertFinishedRun(
  manager: EntityManager,
  run: AiRunStart,
  end: AiRunEnd,
): Promise<void> {
  await manager.execute(
    `insert into ai_runs (${[...START_COLUMNS, ...END_COLUMNS].join(', ')}, started_at, finished_at)
     values (${placeholders([...START_COLUMNS, ...END_COLUMNS])}now() - ? * interval '1 millisecond', now())`,
    [...startValues(run), ...endValues(end), end.latencyMs],
    'run',
  )
}

export async function finishRun(manager: EntityManager, id: string, end: AiRunEnd): Promise<void> {
  await manager.execute(
    `update ai_runs set ${END_COLUMNS.map((column) => `${column} = ?`).join(', ')}, finished_at = now()
      where id = ?`,
    [...endValues(end), id],
    'run',
  )
}

/** Deletes runs started before `before`; answers how many. */
export async function deleteRunsBefore(manager: EntityManager, before: Date): Promise<number> {
  return countChanged(manager, 'delete from ai_runs where started_at < ?::timestamptz', [
    before.toISOString(),
  ])
}
