import type { EntityManager } from '@mikro-orm/postgresql'
import { upsertQueued } from '#app/services/index-queue/enqueue.server.ts'
import { reviveFailedRows } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { endBuildingRun, insertRun, type ServingEmbedding } from './reindex-store.server.ts'
import { spaceOf } from './settings.server.ts'
import { selectConfig, selectSearchableSources, type RagConfigRow } from './store.server.ts'

/**
 * Starting a full reindex run (decision 028): `POST /admin/rag-config/reindex`, the index page's button, and a
 * change of the embedding space or chunking (`updateRagConfig`).
 */

/** How many sources a full reindex queued, by kind. */
export interface QueuedCounts {
  queued: number
  queuedMeetings: number
  queuedWikiPages: number
}

/**
 * Starts a full reindex run (decision 028) over every searchable source at its latest revision, replacing a
 * run still building (its work is for older settings or older sources), and puts failed rows back to queued.
 * Each source's queue row is given to the run, which builds shadow tables and swaps them in; search answers
 * from the current tables meanwhile. `previous` is the settings row before a change (what search served with).
 */
export async function queueEverything(tx: EntityManager, previous?: RagConfigRow): Promise<QueuedCounts> {
  const sources = await selectSearchableSources(tx)
  const row = await selectConfig(tx)
  const replaced = await endBuildingRun(tx, 'cancelled', 'A newer full reindex replaced this one.')
  const runId = await insertRun(tx, {
    space: spaceOf(row),
    chunkSize: row.chunkSize,
    chunkOverlap: row.chunkOverlap,
    sourcesTotal: sources.terms.length + sources.wiki.length + sources.meetings.length,
    serving: servingFor(spaceOf(row), replaced?.serving ?? null, previous),
  })
  await reviveFailedRows(tx)
  await upsertQueued(
    tx,
    [
      ...sources.terms.map((s) => ({ sourceType: 'term' as const, sourceId: s.id, revision: s.revision })),
      ...sources.wiki.map((s) => ({ sourceType: 'wiki' as const, sourceId: s.id, revision: s.revision })),
      ...sources.meetings.map((s) => ({
        sourceType: 'meeting' as const,
        sourceId: s.id,
        revision: s.revision,
      })),
    ],
    'index',
    runId,
  )
  return {
    queued: sources.terms.length,
    queuedMeetings: sources.meetings.length,
    queuedWikiPages: sources.wiki.length,
  }
}

/**
 * What search embeds its queries with until a run in `space` is swapped in: the live tables' settings when they
 * differ from the run's — those a replaced run served with (the live tables have not changed since), else the
 * settings before this change when search could run on them. Null when the live tables are already in `space`.
 */
function servingFor(
  space: string,
  replaced: ServingEmbedding | null,
  previous: RagConfigRow | undefined,
): ServingEmbedding | null {
  const serving =
    replaced ??
    (previous?.enabled && previous.embeddingBaseUrl && previous.embeddingModel
      ? {
          provider: previous.embeddingProvider,
          baseUrl: previous.embeddingBaseUrl,
          model: previous.embeddingModel,
          apiKey: previous.embeddingApiKey,
          headers: previous.embeddingHeaders,
        }
      : null)
  if (!serving) return null
  const servingSpace = spaceOf({
    embeddingProvider: serving.provider,
    embeddingBaseUrl: serving.baseUrl,
    embeddingModel: serving.model,
  })
  return servingSpace === space ? null : serving
}

/** `POST /admin/rag-config/reindex`: every current term, active meeting and published wiki page, and failed rows again. */
export async function reindexAll(): Promise<{ ok: true } & QueuedCounts> {
  const counts = await em().transactional((tx) => queueEverything(tx))
  return { ok: true, ...counts }
}
