/**
 * The vocabulary of search by meaning (spec parts 5 and 7): provider kinds, AI run tasks and outcomes, the
 * failure classes the observability page groups by, and the fixed limits. One list each; nothing imported.
 */

/** The fixed vector dimension of every embedding (spec: Limits). */
export const VECTOR_DIMENSIONS = 1536

export const EMBEDDING_PROVIDERS = ['alpha_compatible', 'beta'] as const
export type EmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number]

export const RERANKER_PROVIDERS = ['gamma_compatible', 'alpha_compatible'] as const
export type RerankerProvider = (typeof RERANKER_PROVIDERS)[number]

/** What a provider call did. `llm` is the chatbot's (a later issue); `models` lists a provider's models. */
export const AI_TASKS = ['embedding', 'reranker', 'llm', 'models'] as const
export type AiTask = (typeof AI_TASKS)[number]

/** Why the call was made. */
export const AI_PURPOSES = ['index', 'search', 'test', 'chat', 'models'] as const
export type AiPurpose = (typeof AI_PURPOSES)[number]

export const AI_RUN_STATUSES = ['running', 'succeeded', 'failed'] as const
export type AiRunStatus = (typeof AI_RUN_STATUSES)[number]

/** The spec's failure classes of a provider call. */
export const AI_FAILURE_CLASSES = [
  'authentication',
  'model_not_found',
  'rate_limited',
  'provider_unavailable',
  'timeout',
] as const
export type AiFailureClass = (typeof AI_FAILURE_CLASSES)[number]

/** Failures worth retrying with backoff; the others need an administrator. */
export const RETRYABLE_FAILURES: readonly AiFailureClass[] = [
  'rate_limited',
  'provider_unavailable',
  'timeout',
]

/** Which provider endpoint a model list is for (`POST /admin/rag-config/models`). */
export const MODEL_ENDPOINTS = ['embedding', 'reranker'] as const
export type ModelEndpoint = (typeof MODEL_ENDPOINTS)[number]

export const RAG_LIMITS = {
  chunkSizeMin: 400,
  chunkSizeMax: 8000,
  topKMin: 1,
  topKMax: 50,
  queryMax: 20_000,
  customHeadersMax: 20,
} as const

/** Why search answers 503 `rag_not_ready` (its `details.reason`): switched off, no provider, a secret unreadable. */
export const RAG_NOT_READY_REASONS = ['off', 'no_provider', 'secret_unreadable'] as const
export type RagNotReadyReason = (typeof RAG_NOT_READY_REASONS)[number]

/** The chat's (LLM) provider kinds (issue 29): a server speaking the alpha-compatible `/chat/completions`. */
export const LLM_PROVIDERS = ['alpha_compatible'] as const
export type LlmProvider = (typeof LLM_PROVIDERS)[number]

/**
 * The AI provider settings' bounds and defaults: `temperature` 0–2 (the range alpha-compatible servers accept),
 * `maxTokens` 1–32,000 tokens of answer per chat call (a long cited answer needs a few hundred; the upper bound
 * keeps one call from running for minutes or costing without limit).
 */
export const LLM_LIMITS = {
  temperatureMin: 0,
  temperatureMax: 2,
  temperatureDefault: 0.2,
  maxTokensMin: 1,
  maxTokensMax: 32_000,
  maxTokensDefault: 1024,
} as const
