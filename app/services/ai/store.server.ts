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

export async function insertRun(manager: EntityManager, run: AiRunStart): Promise<void> {
  await manager.execute(
    `insert into ai_runs (id, trace_id, task, purpose, provider, model, items, status, started_at)
     values (?, ?, ?, ?, ?, ?, ?, 'running', now())`,
    [run.id, run.traceId, run.task, run.purpose, run.provider, run.model.slice(0, 200), run.items],
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
    `insert into ai_runs (id, trace_id, task, purpose, provider, model, items, status, failure_class,
            http_status, latency_ms, input_tokens, output_tokens, total_tokens, started_at, finished_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now() - ? * interval '1 millisecond', now())`,
    [
      run.id,
      run.traceId,
      run.task,
      run.purpose,
      run.provider,
      run.model.slice(0, 200),
      run.items,
      end.status,
      end.failureClass,
      end.httpStatus,
      end.latencyMs,
      end.inputTokens ?? null,
      end.outputTokens ?? null,
      end.totalTokens ?? null,
      end.latencyMs,
    ],
    'run',
  )
}

export async function finishRun(manager: EntityManager, id: string, end: AiRunEnd): Promise<void> {
  await manager.execute(
    `update ai_runs set status = ?, failure_class = ?, http_status = ?, latency_ms = ?, input_tokens = ?,
            output_tokens = ?, total_tokens = ?, finished_at = now()
      where id = ?`,
    [
      end.status,
      end.failureClass,
      end.httpStatus,
      end.latencyMs,
      end.inputTokens ?? null,
      end.outputTokens ?? null,
      end.totalTokens ?? null,
      id,
    ],
    'run',
  )
}

/** Deletes runs started before `before`; answers how many. */
export async function deleteRunsBefore(manager: EntityManager, before: Date): Promise<number> {
  return countChanged(manager, 'delete from ai_runs where started_at < ?::timestamptz', [
    before.toISOString(),
  ])
}
