import { documentChunks, termChunks } from '#app/services/search/chunker.ts'
import { deleteChunks, loadIndexSource } from '#app/services/search/store.server.ts'
import { markReady, writePending } from '#app/services/index-queue/store.server.ts'
import type { TermContent } from '#app/services/terms/content.server.ts'
import { em } from '#db/orm.ts'
import { parseJson } from '#db/sql.ts'
import type { HeldRow, Stage } from './stage.ts'

/** A row whose source leaves search (or is gone): its chunks go, and the row is done. */
export async function removeFromSearch(row: HeldRow): Promise<void> {
  await em().transactional(async (tx) => {
    await deleteChunks(tx, row.source_type, row.source_id)
    await markReady(tx, row.id, row.attempt)
  })
}

/**
 * Stage 1: read the source as it is now and cut it into chunks (kept in `rag_pending_chunks` for the next
 * stages). A source that left search loses its chunks and is done. A source whose revision moved past the
 * row's has a newer queue row (every save queues one), so this row is superseded: done without indexing,
 * never over the newer revision.
 */
export const chunkStage: Stage<'chunk'> = {
  name: 'chunk',
  async run(row, settings) {
    const source = await loadIndexSource(em(), row.source_type, row.source_id)
    if (!source || !source.live) {
      await removeFromSearch(row)
      return 'done'
    }
    if (source.revision > row.revision) {
      await markReady(em(), row.id, row.attempt)
      return 'done'
    }
    const drafts =
      source.kind === 'term'
        ? termChunks(parseJson<TermContent>(source.content), settings.chunkSize, settings.chunkOverlap)
        : documentChunks(source.title, source.text, settings.chunkSize, settings.chunkOverlap)
    await em().transactional((tx) =>
      writePending(
        tx,
        row.id,
        drafts.map((d, i) => ({ ...d, chunkIndex: i })),
      ),
    )
    return 'next'
  },
}
