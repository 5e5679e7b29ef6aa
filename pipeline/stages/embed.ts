import { readPending, touch, writeEmbeddings } from '#app/services/index-queue/store.server.ts'
import { embedderFor } from '#app/services/search/settings.server.ts'
import { reuseEmbeddings } from '#app/services/search/store.server.ts'
import { em } from '#db/orm.ts'
import type { Stage } from './stage.ts'

/** Texts per provider call. */
export const EMBED_BATCH = 32

/**
 * Stage 2: give every pending chunk its vector. A chunk whose text was embedded before in the same space
 * (provider, base URL, model) reuses that vector: re-embedding unchanged text is wasted provider money. The
 * rest go to the provider in batches; each batch is stored in its own short transaction, so a retry after a
 * failure embeds only what is still missing.
 */
export const embedStage: Stage<'embed'> = {
  name: 'embed',
  provider: 'embedding',
  async run(row, settings) {
    await reuseEmbeddings(em(), row.id, settings.space)
    const missing = await readPending(em(), row.id, { unembedded: true })
    if (missing.length === 0) return 'next'
    const embedder = embedderFor(settings, { purpose: 'index', traceId: row.id })
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH)
      const { vectors } = await embedder.embed(batch.map((c) => c.embedText))
      await writeEmbeddings(
        em(),
        row.id,
        batch.map((c, k) => ({ chunkIndex: c.chunkIndex, vector: vectors[k]! })),
      )
      // A long row keeps its claim fresh, so the ten-minute last resort never takes it for an orphan.
      await touch(em(), row.id, row.attempt, row.holder)
    }
    return 'next'
  },
}
