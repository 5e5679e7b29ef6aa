import { Entity, PrimaryKey, PrimaryKeyProp, Property, type Opt } from '@mikro-orm/core'
import type { AiTask } from '#domain/rag.ts'

/**
 * Schema-only descriptions of the AI run rollups (migration 20261201001000, decision 030): kept equal to the
 * finished rows of `ai_runs` by its triggers, read by `app/services/ai/observability-store.server.ts`.
 */

/** Finished calls of one hour or UTC day, task and model: counts, failures by class, tokens. */
@Entity({ tableName: 'ai_run_rollups' })
export class AiRunRollup {
  [PrimaryKeyProp]?: ['span', 'start', 'task', 'model']

  @PrimaryKey({ type: 'text' })
  span!: 'hour' | 'day'

  @PrimaryKey({ type: 'datetime', columnType: 'timestamptz' })
  start!: Date

  @PrimaryKey({ type: 'text' })
  task!: AiTask

  @PrimaryKey({ type: 'text' })
  model!: string

  @Property({ type: 'bigint' })
  calls: Opt<string> = '0'

  @Property({ type: 'bigint' })
  succeeded: Opt<string> = '0'

  @Property({ type: 'bigint' })
  failed: Opt<string> = '0'

  @Property({ type: 'bigint' })
  authentication: Opt<string> = '0'

  @Property({ type: 'bigint' })
  modelNotFound: Opt<string> = '0'

  @Property({ type: 'bigint' })
  rateLimited: Opt<string> = '0'

  @Property({ type: 'bigint' })
  providerUnavailable: Opt<string> = '0'

  @Property({ type: 'bigint' })
  timeout: Opt<string> = '0'

  @Property({ type: 'bigint' })
  inputTokens: Opt<string> = '0'

  @Property({ type: 'bigint' })
  outputTokens: Opt<string> = '0'

  @Property({ type: 'bigint' })
  totalTokens: Opt<string> = '0'
}

/** A latency histogram bucket (`ai_latency_bucket(ms)`) of one hour or day, task and model: how many calls. */
@Entity({ tableName: 'ai_run_latency_rollups' })
export class AiRunLatencyRollup {
  [PrimaryKeyProp]?: ['span', 'start', 'task', 'model', 'bucket']

  @PrimaryKey({ type: 'text' })
  span!: 'hour' | 'day'

  @PrimaryKey({ type: 'datetime', columnType: 'timestamptz' })
  start!: Date

  @PrimaryKey({ type: 'text' })
  task!: AiTask

  @PrimaryKey({ type: 'text' })
  model!: string

  @PrimaryKey({ type: 'smallint' })
  bucket!: number

  @Property({ type: 'bigint' })
  calls: Opt<string> = '0'
}
