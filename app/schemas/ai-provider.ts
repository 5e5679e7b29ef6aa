import { z } from 'zod'
import { LLM_LIMITS, LLM_PROVIDERS } from '#domain/rag.ts'
import {
  ApiKeyWriteSchema,
  BaseUrlSchema,
  HeaderReadSchema,
  HeadersWriteSchema,
  ModelNameSchema,
} from './rag.ts'

/**
 * The chat's AI (LLM) provider settings (issue 29; spec part 6: reading or changing the provider address, model,
 * API key and custom headers, and testing the connection, are admin-session only). The secret fields follow the
 * search settings' rules and schemas: the key and header values are write-only, and the read schema has no
 * member that could carry one.
 */

const LlmBaseUrlSchema = BaseUrlSchema.meta({
  description: 'http(s) address of the provider; `/chat/completions` and `/models` are appended.',
  example: 'https://ai.example.internal/v1',
})

const TemperatureSchema = z
  .number()
  .min(LLM_LIMITS.temperatureMin)
  .max(LLM_LIMITS.temperatureMax)
  .meta({
    description: `Sampling temperature, ${LLM_LIMITS.temperatureMin} to ${LLM_LIMITS.temperatureMax}.`,
  })

const MaxTokensSchema = z
  .number()
  .int()
  .min(LLM_LIMITS.maxTokensMin)
  .max(LLM_LIMITS.maxTokensMax)
  .meta({
    description: `Most tokens of one answer, ${LLM_LIMITS.maxTokensMin} to ${LLM_LIMITS.maxTokensMax.toLocaleString('en')}.`,
  })

export const UpdateAiProviderSchema = z
  .object({
    provider: z.enum(LLM_PROVIDERS),
    baseUrl: LlmBaseUrlSchema,
    model: ModelNameSchema,
    apiKey: ApiKeyWriteSchema,
    customHeaders: HeadersWriteSchema,
    temperature: TemperatureSchema,
    maxTokens: MaxTokensSchema,
  })
  .partial()
  .strict()
export type UpdateAiProviderInput = z.output<typeof UpdateAiProviderSchema>

/** The stored secrets of the AI provider settings, by the name of the field that writes them. */
export const AI_PROVIDER_SECRET_FIELDS = ['apiKey', 'customHeaders'] as const
export type AiProviderSecretField = (typeof AI_PROVIDER_SECRET_FIELDS)[number]

export const AiProviderSchema = z
  .object({
    provider: z.enum(LLM_PROVIDERS),
    baseUrl: z.string(),
    model: z.string(),
    hasApiKey: z.boolean().meta({ description: 'Whether an API key is stored (never the key).' }),
    customHeaders: z.array(HeaderReadSchema).meta({
      description: 'The stored custom headers by name; `configured` says whether a value is stored.',
    }),
    temperature: z.number(),
    maxTokens: z.number().int(),
    configured: z
      .boolean()
      .meta({ description: 'Whether a base URL and a model are set: the chat can call.' }),
    secretsReadable: z.boolean().meta({
      description:
        'False when a stored secret cannot be decrypted with the current key: the chat answers 503 until it is entered again.',
    }),
    updatedAt: z.string(),
  })
  .strict()
export type AiProviderDto = z.output<typeof AiProviderSchema>

/** `PATCH /admin/ai-provider`'s answer: the settings, and the stored secrets the change cleared. */
export const AiProviderUpdateSchema = AiProviderSchema.extend({
  clearedSecrets: z.array(z.enum(AI_PROVIDER_SECRET_FIELDS)).meta({
    description:
      'Stored secrets this change cleared because the base URL changed and the request did not send them again: the API key, or the values of the custom headers (their names stay, `configured: false`). Empty when nothing was cleared.',
  }),
}).strict()
export type AiProviderUpdateDto = z.output<typeof AiProviderUpdateSchema>

/** `POST /admin/ai-provider/models`: an address to list, with a key and headers to try (nothing is saved). */
export const ListAiModelsSchema = z
  .object({
    baseUrl: LlmBaseUrlSchema.optional().meta({
      description: 'The address to list; the stored base URL when omitted.',
    }),
    apiKey: ApiKeyWriteSchema.meta({
      description:
        'A key to send for this listing only (never saved). Omitted or empty: the stored key, when `baseUrl` is the stored one.',
    }),
    customHeaders: HeadersWriteSchema.optional().meta({
      description:
        'Headers to send for this listing only (never saved). An empty value uses the stored value of that name, when `baseUrl` is the stored one.',
    }),
  })
  .strict()
export type ListAiModelsInput = z.output<typeof ListAiModelsSchema>

export const AiModelListSchema = z
  .object({ models: z.array(z.object({ id: z.string(), label: z.string() }).strict()) })
  .strict()

export const AiProviderTestSchema = z
  .object({
    ok: z.boolean(),
    model: z.string(),
    latencyMs: z.number().int().meta({ description: 'How long the one-token completion took.' }),
  })
  .strict()
export type AiProviderTestDto = z.output<typeof AiProviderTestSchema>
