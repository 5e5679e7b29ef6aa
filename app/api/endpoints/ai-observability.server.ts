import { endpoint, type Endpoint } from '#app/api/endpoint.server.ts'
import {
  AiObservabilityQuerySchema,
  AiObservabilitySchema,
  AiTraceSchema,
  TraceParamsSchema,
} from '#app/schemas/ai-observability.ts'
import { getAiObservability, getAiTrace } from '#app/services/ai/observability.server.ts'

const admin = { kind: 'session', minRole: 'admin' } as const

/** The AI observability dashboard's data (admin session only; issue 29, decision 030). */
export const AI_OBSERVABILITY_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/admin/ai-observability',
    operationId: 'getAiObservability',
    summary:
      'Call counts, success rate, p95 latency, tokens and failures of LLM, embedding and reranker calls',
    description:
      'Over the last `hours`: totals, per task (always `llm`, `embedding`, `reranker`) and per task and model; ' +
      'failures by class (`authentication`, `model_not_found`, `rate_limited`, `provider_unavailable`, ' +
      '`timeout`, and `interrupted`: a call still running 10 minutes after it started, counted as failed); a ' +
      'series for charts (calls, failures, p50/p95 latency per hour up to 72 hours, per UTC day beyond); the ' +
      'newest failures and traces. The calls of one chat request share a trace id: ' +
      '`GET /admin/ai-observability/traces/{traceId}` lists them. Prompts, answers, texts and secrets are ' +
      'never stored, so never shown.',
    tag: 'search',
    access: admin,
    query: AiObservabilityQuerySchema,
    response: AiObservabilitySchema,
    handler: async ({ query }) => getAiObservability(query),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/ai-observability/traces/{traceId}',
    operationId: 'getAiTrace',
    summary: 'The AI provider calls of one trace (task, model, outcome, latency, tokens), never any text',
    description:
      'In the order they started, at most 500. A call still running 10 minutes after it started has status ' +
      '`interrupted`. 404 when no call has the trace id (runs are kept `GLOSSARY_AI_RUN_RETENTION_DAYS`).',
    tag: 'search',
    access: admin,
    params: TraceParamsSchema,
    response: AiTraceSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getAiTrace(params),
  }),
]
