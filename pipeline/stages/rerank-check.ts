import { markReady } from '#app/services/index-queue/store.server.ts'
import { rerankerFor } from '#app/services/search/settings.server.ts'
import { em } from '#db/orm.ts'
import type { Stage } from './stage.ts'

/** A successful probe of the same reranker settings is trusted this long (one probe per row would double the calls). */
const PROBE_FRESH_MS = 60_000
let lastProbe: { key: string; at: number } | undefined

/**
 * Stage 4: when the reranker is on, prove it answers (one small probe, reused for a minute), so a row is
 * `ready` only when search over it can run as configured; then mark the row `ready`. A failing reranker
 * fails the row like a failing embedder (retried first).
 */
export const rerankCheckStage: Stage<'rerank-check'> = {
  name: 'rerank-check',
  provider: 'reranker',
  async run(row, settings) {
    const reranker = rerankerFor(settings, { purpose: 'index', traceId: row.id })
    if (reranker) {
      const key = `${settings.rerankerProvider}|${settings.reranker.baseUrl}|${settings.reranker.model}`
      if (!lastProbe || lastProbe.key !== key || Date.now() - lastProbe.at > PROBE_FRESH_MS) {
        await reranker.rerank('probe', ['probe'])
        lastProbe = { key, at: Date.now() }
      }
    }
    await markReady(em(), row.id, row.attempt)
    return 'done'
  },
}

/** Tests: forget the last probe. */
export function forgetRerankProbe(): void {
  lastProbe = undefined
}
