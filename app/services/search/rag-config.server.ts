import type { EntityManager } from '@mikro-orm/postgresql'
import { validationError, type Problem } from '#app/lib/errors.server.ts'
import type {
  RagConfigDto,
  RagConfigUpdateDto,
  RagSecretField,
  UpdateRagConfigInput,
} from '#app/schemas/rag.ts'
import {
  changedFields,
  clearMovedSecrets,
  headersForRead,
  nextHeaders,
  nextKey,
  secretsReadable,
  storedSecrets,
} from '#app/services/ai/provider-secrets.server.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { em } from '#db/orm.ts'
import { MODEL_ENDPOINTS } from '#domain/rag.ts'
import { queueEverything } from './reindex.server.ts'
import { spaceOf } from './settings.server.ts'
import { selectConfig, selectStats, updateConfig, type RagConfigRow } from './store.server.ts'

/**
 * The search settings' API answer and its PATCH rules (spec: "Search/index configuration" and the PATCH rules
 * 1–7 of "Search and index administration"). Secrets follow the shared provider-secret rules
 * (`#app/services/ai/provider-secrets.server.ts`): reads say whether one is stored, never what it is.
 */

const UNREADABLE =
  'A stored provider secret cannot be decrypted with the current GLOSSARY_ENCRYPTION_KEY (it was changed or lost). Enter the API key and custom header values again; until then search answers 503.'

/** The settings as the API and the settings page read them: no secret, only whether one is stored. */
export async function getRagConfig(manager: EntityManager = em()): Promise<RagConfigDto> {
  const row = await selectConfig(manager)
  const stats = await selectStats(manager, spaceOf(row))
  const readable = secretsReadable([
    ...storedSecrets(row.embeddingApiKey, row.embeddingHeaders),
    ...storedSecrets(row.rerankerApiKey, row.rerankerHeaders),
  ])
  return {
    enabled: row.enabled,
    chatEnabled: row.chatEnabled,
    embeddingProvider: row.embeddingProvider,
    embeddingBaseUrl: row.embeddingBaseUrl,
    embeddingModel: row.embeddingModel,
    hasApiKey: row.embeddingApiKey !== null,
    embeddingCustomHeaders: headersForRead(row.embeddingHeaders),
    rerankerEnabled: row.rerankerEnabled,
    rerankerProvider: row.rerankerProvider,
    rerankerBaseUrl: row.rerankerBaseUrl,
    rerankerModel: row.rerankerModel,
    rerankerHasApiKey: row.rerankerApiKey !== null,
    rerankerCustomHeaders: headersForRead(row.rerankerHeaders),
    chunkSize: row.chunkSize,
    chunkOverlap: row.chunkOverlap,
    topK: row.topK,
    secretsReadable: readable,
    problem: readable ? (row.enabled ? null : 'Search by meaning is switched off.') : UNREADABLE,
    updatedAt: row.updatedAt,
    ...stats,
  }
}

type ConfigFields = Omit<RagConfigRow, 'updatedAt'>

/** Each endpoint's stored secrets follow its base URL (`clearMovedSecrets`); answers the fields it cleared. */
function clearMoved(row: RagConfigRow, next: ConfigFields): RagSecretField[] {
  const cleared: RagSecretField[] = []
  for (const endpoint of MODEL_ENDPOINTS) {
    const baseUrl = `${endpoint}BaseUrl` as const
    const apiKey = `${endpoint}ApiKey` as const
    const headers = `${endpoint}Headers` as const
    const after = { baseUrl: next[baseUrl], apiKey: next[apiKey], headers: next[headers] }
    const moved = clearMovedSecrets(
      { baseUrl: row[baseUrl], apiKey: row[apiKey], headers: row[headers] },
      after,
    )
    next[apiKey] = after.apiKey
    next[headers] = after.headers
    if (moved.apiKey) cleared.push(apiKey)
    if (moved.headers) cleared.push(`${endpoint}CustomHeaders`)
  }
  return cleared
}

/** The API's name of each settings column, for the audit record. */
const FIELD_NAMES: Partial<Record<keyof ConfigFields, string>> = {
  embeddingHeaders: 'embeddingCustomHeaders',
  rerankerHeaders: 'rerankerCustomHeaders',
}

/**
 * Applies a partial update (rules 1–7), clears the secrets of a changed address (`clearMovedSecrets`) and
 * writes a `settings.search` audit record naming the changed fields. A changed embedding space (provider,
 * base URL, model) or chunking queues every searchable term, published wiki page and active meeting in the
 * same transaction, so nothing stays indexed under the old settings.
 */
export async function updateRagConfig(options: {
  input: UpdateRagConfigInput
  actorId: string
  audit: { actor: AuditActor; client?: ClientInfo }
}): Promise<RagConfigUpdateDto> {
  const { input } = options
  const clearedSecrets = await em().transactional(async (tx) => {
    const row = await selectConfig(tx, true)
    const problems: Problem[] = []
    const next: ConfigFields = {
      enabled: input.enabled ?? row.enabled,
      chatEnabled: input.chatEnabled ?? row.chatEnabled,
      embeddingProvider: input.embeddingProvider ?? row.embeddingProvider,
      embeddingBaseUrl: input.embeddingBaseUrl ?? row.embeddingBaseUrl,
      embeddingModel: input.embeddingModel ?? row.embeddingModel,
      embeddingApiKey: nextKey(row.embeddingApiKey, input.embeddingApiKey),
      embeddingHeaders: nextHeaders(
        row.embeddingHeaders,
        input.embeddingCustomHeaders,
        'embeddingCustomHeaders',
        problems,
      ),
      rerankerEnabled: input.rerankerEnabled ?? row.rerankerEnabled,
      rerankerProvider: input.rerankerProvider ?? row.rerankerProvider,
      rerankerBaseUrl: input.rerankerBaseUrl ?? row.rerankerBaseUrl,
      rerankerModel: input.rerankerModel ?? row.rerankerModel,
      rerankerApiKey: nextKey(row.rerankerApiKey, input.rerankerApiKey),
      rerankerHeaders: nextHeaders(
        row.rerankerHeaders,
        input.rerankerCustomHeaders,
        'rerankerCustomHeaders',
        problems,
      ),
      chunkSize: input.chunkSize ?? row.chunkSize,
      chunkOverlap: input.chunkOverlap ?? row.chunkOverlap,
      topK: input.topK ?? row.topK,
    }
    if (next.chunkOverlap >= next.chunkSize) {
      problems.push({
        path: 'chunkOverlap',
        message: `chunkOverlap must be smaller than chunkSize (${next.chunkSize}).`,
      })
    }
    if (next.enabled && (!next.embeddingBaseUrl || !next.embeddingModel)) {
      problems.push({
        path: 'enabled',
        message: 'Set the embedding base URL and model before switching search on.',
      })
    }
    if (next.rerankerEnabled && (!next.rerankerBaseUrl || !next.rerankerModel)) {
      problems.push({
        path: 'rerankerEnabled',
        message: 'Set the reranker base URL and model before switching it on.',
      })
    }
    if (problems.length) throw validationError(problems, 'Some search settings are not valid.')
    const cleared = clearMoved(row, next)
    await updateConfig(tx, next, options.actorId)
    await recordAudit(
      {
        action: 'settings.search',
        actor: options.audit.actor,
        client: options.audit.client,
        // `cleared`, not `clearedSecrets`: the audit log drops every detail whose key names a secret.
        details: { fields: changedFields<ConfigFields>(row, next, FIELD_NAMES), cleared },
      },
      tx,
    )
    const reindex =
      spaceOf(next) !== spaceOf(row) ||
      next.chunkSize !== row.chunkSize ||
      next.chunkOverlap !== row.chunkOverlap
    if (reindex) await queueEverything(tx, row)
    return cleared
  })
  return { ...(await getRagConfig()), clearedSecrets }
}
