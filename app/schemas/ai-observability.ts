import { z } from 'zod'
import { AI_FAILURE_CLASSES, AI_PURPOSES, AI_TASKS } from '#domain/rag.ts'

/**
 * The AI observability dashboard's API (spec: "Search and index administration", `GET /admin/ai-observability`;
 * issue 29; decision 030). Its nesting is ours (the spec leaves it open). Nothing here can carry a prompt, a
 * text, an answer or a secret: runs hold only what a dashboard needs.
 */

export const OBSERVABILITY_HOURS = { min: 1, max: 8760, default: 24 } as const

/** The failure classes the dashboard counts: the spec's five, and `interrupted` (a call left running). */
export const OBSERVED_FAILURE_CLASSES = [...AI_FAILURE_CLASSES, 'interrupted'] as const
export type ObservedFailureClass = (typeof OBSERVED_FAILURE_CLASSES)[number]

export const AiObservabilityQuerySchema = z.object({
  hours: z.coerce
    .number()
    .int()
    .min(OBSERVABILITY_HOURS.min)
    .max(OBSERVABILITY_HOURS.max)
    .default(OBSERVABILITY_HOURS.default)
    .meta({
      description:
        'How far back to look, in hours (1 to 8760, default 24). The window starts at the beginning of the hour ' +
        '`hours` ago (up to 72 hours), or of that UTC day (beyond), and ends now.',
    }),
})
export type AiObservabilityQuery = z.infer<typeof AiObservabilityQuerySchema>

export const TraceParamsSchema = z.object({
  traceId: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9._:-]+$/, 'A trace id is letters, digits and . _ : - only.')
    .meta({ description: 'The trace id of a piece of work (as listed by `GET /admin/ai-observability`).' }),
})

const FailuresSchema = z
  .object({
    authentication: z.number().int(),
    model_not_found: z.number().int(),
    rate_limited: z.number().int(),
    provider_unavailable: z.number().int(),
    timeout: z.number().int(),
    interrupted: z.number().int(),
  } satisfies Record<ObservedFailureClass, z.ZodType>)
  .meta({
    description:
      'Failed calls by class. `interrupted`: a call still `running` 10 minutes after it started (the process ' +
      'making it stopped), counted as failed.',
  })

const StatsFields = {
  calls: z.number().int().meta({ description: 'Every call started in the window, running ones included.' }),
  succeeded: z.number().int(),
  failed: z.number().int().meta({ description: 'Failed calls, interrupted ones included.' }),
  running: z.number().int().meta({ description: 'Calls still running, not yet judged interrupted.' }),
  successRate: z
    .number()
    .nullable()
    .meta({ description: 'succeeded / (succeeded + failed), 4 decimals; null when no call finished.' }),
  p50LatencyMs: z.number().int().nullable(),
  p95LatencyMs: z
    .number()
    .int()
    .nullable()
    .meta({
      description:
        'Nearest-rank percentile of the finished calls\u2019 latency: exact below 100 ms, beyond it the upper ' +
        'bound of a histogram bucket 5% wide. null when no call finished.',
    }),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int().meta({ description: 'As reported by the provider, else input + output.' }),
  failures: FailuresSchema,
}

export const AiStatsSchema = z.object(StatsFields)

const TaskSchema = z.enum(AI_TASKS)

export const AiObservabilitySchema = z
  .object({
    hours: z.number().int(),
    from: z.iso.datetime().meta({ description: 'The window\u2019s start.' }),
    to: z.iso.datetime().meta({ description: 'Now, on the database\u2019s clock.' }),
    bucket: z
      .enum(['hour', 'day'])
      .meta({ description: 'The series\u2019 step: hours up to 72 h, UTC days beyond.' }),
    interruptedAfterMinutes: z.number().int(),
    totals: AiStatsSchema,
    tasks: z
      .array(z.object({ task: TaskSchema, ...StatsFields }))
      .meta({ description: 'One entry per task: `llm`, `embedding`, `reranker`, always all three.' }),
    groups: z
      .array(z.object({ task: TaskSchema, model: z.string(), ...StatsFields }))
      .meta({ description: 'Per task and model that had calls in the window.' }),
    series: z
      .array(
        z.object({
          start: z.iso.datetime(),
          calls: z.number().int(),
          failed: z.number().int(),
          p50LatencyMs: z.number().int().nullable(),
          p95LatencyMs: z.number().int().nullable(),
        }),
      )
      .meta({ description: 'Every bucket of the window, oldest first, empty ones included.' }),
    recentFailures: z
      .array(
        z.object({
          id: z.string(),
          traceId: z.string(),
          task: TaskSchema,
          purpose: z.enum(AI_PURPOSES),
          model: z.string(),
          failureClass: z.enum(OBSERVED_FAILURE_CLASSES).nullable(),
          httpStatus: z.number().int().nullable(),
          startedAt: z.iso.datetime(),
        }),
      )
      .meta({ description: 'The 10 newest failed or interrupted calls of the window.' }),
    recentTraces: z
      .array(
        z.object({
          traceId: z.string(),
          startedAt: z.iso.datetime(),
          calls: z.number().int(),
          failed: z.number().int(),
          tasks: z.array(TaskSchema),
          purposes: z.array(z.enum(AI_PURPOSES)),
        }),
      )
      .meta({ description: 'The 10 newest traces (a search, an index row, a chat request), newest first.' }),
  })
  .meta({ description: 'Counts, success rate, latency, tokens and failures of AI provider calls.' })
export type AiObservability = z.infer<typeof AiObservabilitySchema>

export const AiTraceSchema = z.object({
  traceId: z.string(),
  calls: z
    .array(
      z.object({
        id: z.string(),
        task: TaskSchema,
        purpose: z.enum(AI_PURPOSES),
        provider: z.string(),
        model: z.string(),
        status: z.enum(['running', 'succeeded', 'failed', 'interrupted']),
        failureClass: z.enum(OBSERVED_FAILURE_CLASSES).nullable(),
        httpStatus: z.number().int().nullable(),
        items: z.number().int(),
        latencyMs: z.number().int().nullable(),
        inputTokens: z.number().int().nullable(),
        outputTokens: z.number().int().nullable(),
        totalTokens: z.number().int().nullable(),
        startedAt: z.iso.datetime(),
        finishedAt: z.iso.datetime().nullable(),
      }),
    )
    .meta({ description: 'The calls of the trace in the order they started (at most 500); never any text.' }),
})
export type AiTrace = z.infer<typeof AiTraceSchema>
