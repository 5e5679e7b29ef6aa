import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError, type Problem } from '#app/lib/errors.server.ts'
import { decryptSecret, encryptSecret, UndecryptableSecretError } from '#app/lib/secrets.server.ts'
import type {
  ListModelsInput,
  RagConfigDto,
  RagConfigUpdateDto,
  RagSecretField,
  UpdateRagConfigInput,
} from '#app/schemas/rag.ts'
import {
  callProvider,
  filterModels,
  parseModelList,
  throwProviderFailure,
  type ModelInfo,
  type ProviderTarget,
} from '#app/services/ai/provider.server.ts'
import { recordCall, recordedEmbedder, recordedReranker } from '#app/services/ai/recorder.server.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { embedderOf, keyHeaders, rerankerOf } from '#app/services/ai/registry.server.ts'
import type { Embedder, Reranker } from '#app/services/ai/provider.server.ts'
import { enqueueIndexMany, requeueFailed } from '#app/services/index-queue/enqueue.server.ts'
import { em } from '#db/orm.ts'
import {
  MODEL_ENDPOINTS,
  type EmbeddingProvider,
  type RAG_NOT_READY_REASONS,
  type RerankerProvider,
} from '#domain/rag.ts'
import {
  selectConfig,
  selectSearchableSources,
  selectStats,
  updateConfig,
  type RagConfigRow,
  type StoredHeader,
} from './store.server.ts'

/**
 * Search settings (spec: "Search/index configuration" and the PATCH rules 1–7 of "Search and index
 * administration"). Secrets are AES-256-GCM ciphertext in `rag_config` and leave this module only decrypted
 * into a provider call; reads say whether one is stored, never what it is.
 */

/** The embedding space of chunks: vectors of different providers, servers or models are never compared. */
export function spaceOf(
  row: Pick<RagConfigRow, 'embeddingProvider' | 'embeddingBaseUrl' | 'embeddingModel'>,
): string {
  return `${row.embeddingProvider}|${row.embeddingBaseUrl}|${row.embeddingModel}`
}

/** What the pipeline and search run with: the settings with their secrets decrypted. */
export interface SearchSettings {
  enabled: boolean
  chatEnabled: boolean
  space: string
  embeddingProvider: EmbeddingProvider
  embedding: ProviderTarget
  rerankerEnabled: boolean
  rerankerProvider: RerankerProvider
  reranker: ProviderTarget
  chunkSize: number
  chunkOverlap: number
  topK: number
}

/** The headers a provider call sends: a header whose value was cleared (`''`) is not sent at all. */
function decryptHeaders(headers: StoredHeader[]): Record<string, string> {
  return Object.fromEntries(
    headers.filter((h) => h.value !== '').map((h) => [h.name, decryptSecret(h.value)]),
  )
}

/** The settings with secrets decrypted; throws `UndecryptableSecretError` when a stored secret cannot be read. */
export async function loadSearchSettings(manager: EntityManager = em()): Promise<SearchSettings> {
  const row = await selectConfig(manager)
  return {
    enabled: row.enabled,
    chatEnabled: row.chatEnabled,
    space: spaceOf(row),
    embeddingProvider: row.embeddingProvider,
    embedding: {
      baseUrl: row.embeddingBaseUrl,
      model: row.embeddingModel,
      apiKey: row.embeddingApiKey ? decryptSecret(row.embeddingApiKey) : null,
      headers: decryptHeaders(row.embeddingHeaders),
    },
    rerankerEnabled: row.rerankerEnabled,
    rerankerProvider: row.rerankerProvider,
    reranker: {
      baseUrl: row.rerankerBaseUrl,
      model: row.rerankerModel,
      apiKey: row.rerankerApiKey ? decryptSecret(row.rerankerApiKey) : null,
      headers: decryptHeaders(row.rerankerHeaders),
    },
    chunkSize: row.chunkSize,
    chunkOverlap: row.chunkOverlap,
    topK: row.topK,
  }
}

/**
 * The settings search runs with, or 503 `rag_not_ready`: search switched off, no embedding provider, or a
 * stored secret that cannot be decrypted (key changed or lost) — never a crash. `details.reason` names which
 * (`off`, `no_provider`, `secret_unreadable`), so the search page can say it in the reader's language.
 */
export async function readySearchSettings(): Promise<SearchSettings> {
  let settings: SearchSettings
  try {
    settings = await loadSearchSettings()
  } catch (error) {
    if (error instanceof UndecryptableSecretError) {
      throw new AppError(
        'rag_not_ready',
        'Search is not ready: a stored provider secret cannot be decrypted with the current encryption key. An administrator must enter it again.',
        { details: { reason: 'secret_unreadable' } },
      )
    }
    throw error
  }
  if (!settings.enabled) {
    throw new AppError('rag_not_ready', 'Search by meaning is switched off.', { details: { reason: 'off' } })
  }
  if (!settings.embedding.baseUrl || !settings.embedding.model) {
    throw new AppError('rag_not_ready', 'Search by meaning has no embedding provider configured.', {
      details: { reason: 'no_provider' },
    })
  }
  return settings
}

/** Why search by meaning cannot run (`details.reason` of `rag_not_ready`). */
export type SearchNotReadyReason = (typeof RAG_NOT_READY_REASONS)[number]

/**
 * Whether search by meaning can run now, decided by `readySearchSettings` (the one rule), as data: pages that
 * offer something else when it cannot (the home page, `/search`'s name search) ask this instead of failing.
 */
export async function searchReadiness(): Promise<
  { ready: true } | { ready: false; reason: SearchNotReadyReason }
> {
  try {
    await readySearchSettings()
    return { ready: true }
  } catch (error) {
    if (error instanceof AppError && error.code === 'rag_not_ready') {
      return { ready: false, reason: error.details?.reason as SearchNotReadyReason }
    }
    throw error
  }
}

/** The embedder of the settings, every call recorded. */
export function embedderFor(
  settings: SearchSettings,
  context: Parameters<typeof recordedEmbedder>[1],
): Embedder {
  return recordedEmbedder(embedderOf(settings.embeddingProvider, settings.embedding), context)
}

/** The reranker of the settings, every call recorded; undefined when it is off or not configured. */
export function rerankerFor(
  settings: SearchSettings,
  context: Parameters<typeof recordedReranker>[1],
): Reranker | undefined {
  if (!settings.rerankerEnabled || !settings.reranker.baseUrl || !settings.reranker.model) return undefined
  return recordedReranker(rerankerOf(settings.rerankerProvider, settings.reranker), context)
}

function readable(row: RagConfigRow): string | null {
  try {
    for (const secret of [
      row.embeddingApiKey,
      row.rerankerApiKey,
      ...row.embeddingHeaders.map((h) => h.value),
      ...row.rerankerHeaders.map((h) => h.value),
    ]) {
      if (secret) decryptSecret(secret)
    }
    return null
  } catch {
    return 'A stored provider secret cannot be decrypted with the current GLOSSARY_ENCRYPTION_KEY (it was changed or lost). Enter the API key and custom header values again; until then search answers 503.'
  }
}

/** The settings as the API and the settings page read them: no secret, only whether one is stored. */
export async function getRagConfig(manager: EntityManager = em()): Promise<RagConfigDto> {
  const row = await selectConfig(manager)
  const stats = await selectStats(manager, spaceOf(row))
  const problem = readable(row)
  return {
    enabled: row.enabled,
    chatEnabled: row.chatEnabled,
    embeddingProvider: row.embeddingProvider,
    embeddingBaseUrl: row.embeddingBaseUrl,
    embeddingModel: row.embeddingModel,
    hasApiKey: row.embeddingApiKey !== null,
    embeddingCustomHeaders: row.embeddingHeaders.map((h) => ({ name: h.name, configured: h.value !== '' })),
    rerankerEnabled: row.rerankerEnabled,
    rerankerProvider: row.rerankerProvider,
    rerankerBaseUrl: row.rerankerBaseUrl,
    rerankerModel: row.rerankerModel,
    rerankerHasApiKey: row.rerankerApiKey !== null,
    rerankerCustomHeaders: row.rerankerHeaders.map((h) => ({ name: h.name, configured: h.value !== '' })),
    chunkSize: row.chunkSize,
    chunkOverlap: row.chunkOverlap,
    topK: row.topK,
    secretsReadable: problem === null,
    problem: problem ?? (row.enabled ? null : 'Search by meaning is switched off.'),
    updatedAt: row.updatedAt,
    ...stats,
  }
}

/** Rule 5: omitted or empty keeps, `null` deletes, a value replaces (encrypted). */
function nextKey(stored: string | null, input: string | null | undefined): string | null {
  if (input === undefined || input === '') return stored
  if (input === null) return null
  return encryptSecret(input)
}

/** Rule 5 for headers: the list given is the new list; an empty value keeps the stored value of that name. */
function nextHeaders(
  stored: StoredHeader[],
  input: { name: string; value?: string | null }[] | undefined,
  path: string,
  problems: Problem[],
): StoredHeader[] {
  if (input === undefined) return stored
  return input.flatMap((row, i) => {
    if (row.value) return [{ name: row.name, value: encryptSecret(row.value) }]
    const kept = stored.find((h) => h.name.toLowerCase() === row.name.toLowerCase())
    if (!kept) {
      problems.push({ path: `${path}.${i}.value`, message: `The new header "${row.name}" needs a value.` })
      return []
    }
    return [{ name: row.name, value: kept.value }]
  })
}

type ConfigFields = Omit<RagConfigRow, 'updatedAt'>

/**
 * A stored key and header values belong to the address they were entered for (issue 26): when an endpoint's
 * base URL changes, those the request does not send again are cleared, so a stored key never follows a
 * changed address to another host. A header keeps its name (`configured: false`). A secret stored while the
 * address was still empty belongs to the first address given. Returns the fields it cleared.
 */
function clearMovedSecrets(row: RagConfigRow, next: ConfigFields): RagSecretField[] {
  const cleared: RagSecretField[] = []
  for (const endpoint of MODEL_ENDPOINTS) {
    const baseUrl = `${endpoint}BaseUrl` as const
    const apiKey = `${endpoint}ApiKey` as const
    const headers = `${endpoint}Headers` as const
    if (row[baseUrl] === '' || next[baseUrl] === row[baseUrl]) continue
    // Ciphertext equal to the stored one is a value kept from storage: a value sent now is encrypted anew.
    if (next[apiKey] !== null && next[apiKey] === row[apiKey]) {
      next[apiKey] = null
      cleared.push(apiKey)
    }
    const stored = new Set(row[headers].map((h) => h.value).filter((value) => value !== ''))
    if (next[headers].some((h) => stored.has(h.value))) {
      next[headers] = next[headers].map((h) => (stored.has(h.value) ? { name: h.name, value: '' } : h))
      cleared.push(`${endpoint}CustomHeaders`)
    }
  }
  return cleared
}

/** The API's name of each settings column, for the audit record. */
const FIELD_NAMES: Partial<Record<keyof ConfigFields, string>> = {
  embeddingHeaders: 'embeddingCustomHeaders',
  rerankerHeaders: 'rerankerCustomHeaders',
}

/**
 * The names of the fields whose stored value differs, never the values. Secrets compare as ciphertext: a kept
 * one is the same text, one sent anew is encrypted with a new IV, so sending a secret counts as a change.
 */
function changedFields(row: RagConfigRow, next: ConfigFields): string[] {
  return (Object.keys(next) as (keyof ConfigFields)[])
    .filter((key) => JSON.stringify(next[key]) !== JSON.stringify(row[key]))
    .map((key) => FIELD_NAMES[key] ?? key)
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
    const cleared = clearMovedSecrets(row, next)
    await updateConfig(tx, next, options.actorId)
    await recordAudit(
      {
        action: 'settings.search',
        actor: options.audit.actor,
        client: options.audit.client,
        // `cleared`, not `clearedSecrets`: the audit log drops every detail whose key names a secret.
        details: { fields: changedFields(row, next), cleared },
      },
      tx,
    )
    const reindex =
      spaceOf(next) !== spaceOf(row) ||
      next.chunkSize !== row.chunkSize ||
      next.chunkOverlap !== row.chunkOverlap
    if (reindex) await queueEverything(tx)
    return cleared
  })
  return { ...(await getRagConfig()), clearedSecrets }
}

/** Queues every searchable source at its latest revision and puts failed rows back to queued. */
async function queueEverything(
  tx: EntityManager,
): Promise<{ queued: number; queuedMeetings: number; queuedWikiPages: number }> {
  const sources = await selectSearchableSources(tx)
  await requeueFailed(tx)
  await enqueueIndexMany(tx, [
    ...sources.terms.map((s) => ({ sourceType: 'term' as const, sourceId: s.id, revision: s.revision })),
    ...sources.wiki.map((s) => ({ sourceType: 'wiki' as const, sourceId: s.id, revision: s.revision })),
    ...sources.meetings.map((s) => ({
      sourceType: 'meeting' as const,
      sourceId: s.id,
      revision: s.revision,
    })),
  ])
  return {
    queued: sources.terms.length,
    queuedMeetings: sources.meetings.length,
    queuedWikiPages: sources.wiki.length,
  }
}

/** `POST /admin/rag-config/reindex`: every current term, active meeting and published wiki page, and failed rows again. */
export async function reindexAll(): Promise<{
  ok: true
  queued: number
  queuedMeetings: number
  queuedWikiPages: number
}> {
  const counts = await em().transactional((tx) => queueEverything(tx))
  return { ok: true, ...counts }
}

/**
 * `POST /admin/rag-config/models`: `GET {baseUrl}/models`, filtered to ids containing `embed` (embedding) or
 * `reranker` (reranker). The stored key and headers go along only to the stored base URL of that endpoint;
 * nothing is saved.
 */
export async function listProviderModels(input: ListModelsInput): Promise<{ models: ModelInfo[] }> {
  const row = await selectConfig(em())
  const stored =
    input.endpoint === 'embedding'
      ? {
          kind: row.embeddingProvider,
          baseUrl: row.embeddingBaseUrl,
          key: row.embeddingApiKey,
          headers: row.embeddingHeaders,
        }
      : {
          kind: row.rerankerProvider,
          baseUrl: row.rerankerBaseUrl,
          key: row.rerankerApiKey,
          headers: row.rerankerHeaders,
        }
  let headers: Record<string, string> = {}
  if (stored.baseUrl === input.baseUrl) {
    try {
      headers = {
        ...decryptHeaders(stored.headers),
        ...keyHeaders(stored.kind, stored.key ? decryptSecret(stored.key) : null),
      }
    } catch (error) {
      if (!(error instanceof UndecryptableSecretError)) throw error
    }
  }
  try {
    const json = await recordCall(
      { task: 'models', purpose: 'models', provider: stored.kind, model: '', items: 0 },
      async () => ({
        json: await callProvider('models', `${input.baseUrl}/models`, { method: 'GET', headers }),
      }),
    )
    return { models: filterModels(parseModelList(json.json), input.endpoint) }
  } catch (error) {
    throwProviderFailure(error, 'The provider call failed')
  }
}

/**
 * `POST /admin/rag-config/test`: a short embedding request with the stored settings, and a rerank request
 * when the reranker is on. Any failure is 502 `rag_provider_error` naming the failure class.
 */
export async function testConnection(): Promise<{ ok: boolean; embedding: boolean; reranker: boolean }> {
  let settings: SearchSettings
  try {
    settings = await loadSearchSettings()
  } catch (error) {
    if (error instanceof UndecryptableSecretError) throw new AppError('rag_not_ready', error.message)
    throw error
  }
  if (!settings.embedding.baseUrl || !settings.embedding.model) {
    throw validationError([
      { path: 'embeddingBaseUrl', message: 'Set the embedding base URL and model first.' },
    ])
  }
  try {
    await embedderFor(settings, { purpose: 'test' }).embed(['connection test'])
    const reranker = settings.rerankerEnabled ? rerankerFor(settings, { purpose: 'test' }) : undefined
    if (settings.rerankerEnabled && !reranker) {
      throw validationError([
        { path: 'rerankerBaseUrl', message: 'Set the reranker base URL and model first.' },
      ])
    }
    if (reranker) await reranker.rerank('connection test', ['connection test'])
    return { ok: true, embedding: true, reranker: Boolean(reranker) }
  } catch (error) {
    throwProviderFailure(error, 'The provider call failed')
  }
}
