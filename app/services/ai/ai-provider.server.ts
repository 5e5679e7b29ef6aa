import { validationError, type Problem } from '#app/lib/errors.server.ts'
import type {
  AiProviderDto,
  AiProviderSecretField,
  AiProviderTestDto,
  AiProviderUpdateDto,
  ListAiModelsInput,
  UpdateAiProviderInput,
} from '#app/schemas/ai-provider.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { em } from '#db/orm.ts'
import { chatModelFor, loadLlmSettings } from './llm-settings.server.ts'
import { chatModels, listModels } from './model-list.server.ts'
import {
  changedFields,
  clearMovedSecrets,
  headersForRead,
  nextHeaders,
  nextKey,
  secretsReadable,
  storedAuthFor,
  storedSecrets,
} from './provider-secrets.server.ts'
import { throwProviderFailure, type ModelInfo } from './provider.server.ts'
import { selectAiProvider, updateAiProvider, type AiProviderRow } from './settings-store.server.ts'

/**
 * The administrator's side of the chat's AI (LLM) provider (issue 29; `/admin/ai-provider`, admin session only):
 * the settings without their secrets, the PATCH rules (the search settings' secret rules, shared in
 * `provider-secrets.server.ts`), the provider's model list and a one-token connection test. Every change is
 * audited as `settings.ai_provider` with the names of the changed fields, never their values.
 */

/** The settings as the API and the settings page read them: no secret, only whether one is stored. */
export async function getAiProvider(): Promise<AiProviderDto> {
  return toDto(await selectAiProvider(em()))
}

function toDto(row: AiProviderRow): AiProviderDto {
  return {
    provider: row.provider,
    baseUrl: row.baseUrl,
    model: row.model,
    hasApiKey: row.apiKey !== null,
    customHeaders: headersForRead(row.headers),
    temperature: row.temperature,
    maxTokens: row.maxTokens,
    configured: row.baseUrl !== '' && row.model !== '',
    secretsReadable: secretsReadable(storedSecrets(row.apiKey, row.headers)),
    updatedAt: row.updatedAt,
  }
}

type ProviderFields = Omit<AiProviderRow, 'updatedAt'>

/** The API's name of each column, for the audit record. */
const FIELD_NAMES: Partial<Record<keyof ProviderFields, string>> = { headers: 'customHeaders' }

/**
 * Applies a partial update: omitted fields keep their value; the key and header values follow the shared secret
 * rules (omitted or empty keeps, `null` deletes, a value replaces, encrypted; the header list given is the new
 * list), and a changed base URL clears the stored secrets the request does not send again. Writes a
 * `settings.ai_provider` audit record naming the changed fields in the same transaction.
 */
export async function updateAiProviderSettings(options: {
  input: UpdateAiProviderInput
  actorId: string
  audit: { actor: AuditActor; client?: ClientInfo }
}): Promise<AiProviderUpdateDto> {
  const { input } = options
  const { row, cleared } = await em().transactional(async (tx) => {
    const stored = await selectAiProvider(tx, true)
    const problems: Problem[] = []
    const next: ProviderFields = {
      provider: input.provider ?? stored.provider,
      baseUrl: input.baseUrl ?? stored.baseUrl,
      model: input.model ?? stored.model,
      apiKey: nextKey(stored.apiKey, input.apiKey),
      headers: nextHeaders(stored.headers, input.customHeaders, 'customHeaders', problems),
      temperature: input.temperature ?? stored.temperature,
      maxTokens: input.maxTokens ?? stored.maxTokens,
    }
    if (problems.length) throw validationError(problems, 'Some AI provider settings are not valid.')
    const moved = clearMovedSecrets(stored, next)
    const cleared: AiProviderSecretField[] = [
      ...(moved.apiKey ? (['apiKey'] as const) : []),
      ...(moved.headers ? (['customHeaders'] as const) : []),
    ]
    await updateAiProvider(tx, next, options.actorId)
    await recordAudit(
      {
        action: 'settings.ai_provider',
        actor: options.audit.actor,
        client: options.audit.client,
        // `cleared`, not `clearedSecrets`: the audit log drops every detail whose key names a secret.
        details: { fields: changedFields<ProviderFields>(stored, next, FIELD_NAMES), cleared },
      },
      tx,
    )
    return { row: await selectAiProvider(tx), cleared }
  })
  return { ...toDto(row), clearedSecrets: cleared }
}

/**
 * `POST /admin/ai-provider/models`: `GET {baseUrl}/models` through the provider layer, the models a chat can use
 * (`chatModels`). A key or headers sent with the request go to that address for this call only; the stored key
 * and header values go along only to the stored base URL (an empty header value there uses the stored one).
 * Nothing is saved.
 */
export async function listAiProviderModels(input: ListAiModelsInput): Promise<{ models: ModelInfo[] }> {
  const stored = await selectAiProvider(em())
  const baseUrl = input.baseUrl || stored.baseUrl
  if (!baseUrl) throw validationError([{ path: 'baseUrl', message: 'Give the provider address.' }])
  const auth = storedAuthFor(stored, baseUrl)
  const storedByName = new Map(
    Object.entries(auth.headers).map(([name, value]) => [name.toLowerCase(), value]),
  )
  const headers = input.customHeaders
    ? Object.fromEntries(
        input.customHeaders.flatMap((h) => {
          const value = h.value || storedByName.get(h.name.toLowerCase())
          return value ? [[h.name, value]] : []
        }),
      )
    : auth.headers
  try {
    const models = await listModels({
      kind: stored.provider,
      baseUrl,
      // `null`: list without a key; omitted or empty: the stored one (for the stored address only)
      apiKey: input.apiKey === null ? null : input.apiKey || auth.apiKey,
      headers,
    })
    return { models: chatModels(models) }
  } catch (error) {
    throwProviderFailure(error, 'The provider call failed')
  }
}

/**
 * `POST /admin/ai-provider/test`: a one-token completion with the stored settings (recorded, purpose `test`).
 * Not configured is 400 `validation_failed`; an unreadable secret 503 `rag_not_ready`; any provider failure 502
 * `rag_provider_error` naming the failure class.
 */
export async function testAiProvider(): Promise<AiProviderTestDto> {
  const settings = await loadLlmSettings()
  if (!settings) {
    throw validationError([{ path: 'baseUrl', message: 'Set the AI provider base URL and model first.' }])
  }
  const started = performance.now()
  try {
    await chatModelFor(settings, { purpose: 'test' }).complete(
      [{ role: 'user', content: 'Reply with one word: ok' }],
      { temperature: 0, maxTokens: 1 },
    )
  } catch (error) {
    throwProviderFailure(error, 'The provider call failed')
  }
  return { ok: true, model: settings.target.model, latencyMs: Math.round(performance.now() - started) }
}
