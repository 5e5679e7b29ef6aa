import { countUnembedded, hasQueuedRow, heldRow, markReady } from '#app/services/index-queue/store.server.ts'
import { deleteChunks, insertChunksFromPending, sourceState } from '#app/services/search/store.server.ts'
import { em } from '#db/orm.ts'
import type { Stage } from './stage.ts'

/**
 * Stage 3: replace the source's chunks with the pending ones in ONE transaction, after checking, under the
 * row's lock, that the work is still current: the claim still holds the row, the source is still searchable
 * at the row's revision, and no newer row of the source is queued. Otherwise the row is done without writing
 * (a newer row does the work), so nothing is ever indexed over a newer revision.
 */
export const upsertStage: Stage<'upsert'> = {
  name: 'upsert',
  async run(row, settings) {
    return em().transactional(async (tx) => {
      if (!(await heldRow(tx, row.id, row.attempt, true))) return 'done'
      const state = await sourceState(tx, row.source_type, row.source_id)
      const superseded =
        !state ||
        !state.live ||
        state.revision !== row.revision ||
        (await hasQueuedRow(tx, row.source_type, row.source_id))
      if (superseded) {
        await markReady(tx, row.id, row.attempt)
        return 'done'
      }
      if ((await countUnembedded(tx, row.id)) > 0) throw new Error('A pending chunk has no embedding yet.')
      await deleteChunks(tx, row.source_type, row.source_id)
      await insertChunksFromPending(
        tx,
        row.source_type,
        { id: row.source_id, revision: row.revision, space: settings.space },
        row.id,
      )
      await tx.execute('delete from rag_pending_chunks where queue_id = ?', [row.id], 'run')
      return 'next'
    })
  },
}
