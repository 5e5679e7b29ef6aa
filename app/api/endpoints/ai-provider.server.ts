import { endpoint, type Endpoint } from '#app/api/endpoint.server.ts'
import {
  AiModelListSchema,
  AiProviderSchema,
  AiProviderTestSchema,
  AiProviderUpdateSchema,
  ListAiModelsSchema,
  UpdateAiProviderSchema,
} from '#app/schemas/ai-provider.ts'
import {
  getAiProvider,
  listAiProviderModels,
  testAiProvider,
  updateAiProviderSettings,
} from '#app/services/ai/ai-provider.server.ts'
import { auditActorOf, clientOf, sessionOf } from './identity.server.ts'

/**
 * The chat's AI (LLM) provider settings (issue 29; spec part 6: reading or changing the provider address, model,
 * API key and custom headers, and testing the connection, are admin-session only — an API key gets 403).
 */

const ADMIN = { kind: 'session', minRole: 'admin' } as const
const TAG = 'ai-provider'

export const AI_PROVIDER_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/admin/ai-provider',
    operationId: 'getAiProvider',
    summary: "The chat's AI provider settings (secrets never returned)",
    description:
      'The key is reported as `hasApiKey`, custom headers as `{ name, configured }`. `configured` is false until a base URL and a model are set; `secretsReadable` is false when a stored secret cannot be decrypted with the current encryption key (the chat answers 503 until it is entered again).',
    tag: TAG,
    access: ADMIN,
    response: AiProviderSchema,
    handler: async () => getAiProvider(),
  }),
  endpoint({
    method: 'PATCH',
    path: '/admin/ai-provider',
    operationId: 'updateAiProvider',
    summary: "Change the chat's AI provider settings (any subset of the fields)",
    description:
      "The search settings' secret rules: omitted or empty `apiKey` and header values keep the stored ones; `null` deletes the key; a stored header missing from a sent `customHeaders` list is deleted; at most 20 headers, no line breaks; http(s) addresses only. " +
      'Stored secrets belong to their address: when `baseUrl` changes, the stored API key and custom header values are cleared unless this request sends them again (header names stay, `configured: false`); `clearedSecrets` lists what was cleared. ' +
      '`temperature` is 0 to 2, `maxTokens` 1 to 32,000. Recorded in the audit log as `settings.ai_provider` with the names of the changed fields, never their values.',
    tag: TAG,
    access: ADMIN,
    body: UpdateAiProviderSchema,
    response: AiProviderUpdateSchema,
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      return updateAiProviderSettings({
        input: ctx.body,
        actorId: session.user.id,
        audit: { actor: auditActorOf(session), client: clientOf(ctx) },
      })
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admin/ai-provider/models',
    operationId: 'listAiProviderModels',
    summary: "The provider's chat models (`GET {baseUrl}/models`); nothing is saved",
    description:
      'Lists the ids that name no embedding or reranker model (`embed`, `rerank`). `baseUrl` defaults to the stored one. A key or headers sent here are used for this call only; the stored key and header values go along only to the stored base URL.',
    tag: TAG,
    access: ADMIN,
    body: ListAiModelsSchema,
    response: AiModelListSchema,
    errors: ['rag_provider_error'],
    handler: async ({ body }) => listAiProviderModels(body),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/ai-provider/test',
    operationId: 'testAiProvider',
    summary: 'Send a one-token chat completion with the stored settings',
    description:
      'Answers the model and how long the call took. A provider failure is 502 `rag_provider_error` with `details.failureClass` (`authentication`, `model_not_found`, `rate_limited`, `provider_unavailable`, `timeout`); no base URL or model set is 400; a stored secret that cannot be decrypted is 503 `rag_not_ready`. The call is recorded as an AI run (task `llm`, purpose `test`).',
    tag: TAG,
    access: ADMIN,
    response: AiProviderTestSchema,
    errors: ['rag_provider_error', 'rag_not_ready'],
    handler: async () => testAiProvider(),
  }),
]
