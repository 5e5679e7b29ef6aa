import type { EntityManager } from '@mikro-orm/postgresql'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  buildShadowVectorIndex,
  createShadowTables,
  dropShadowTables,
} from '#app/services/search/reindex-store.server.ts'
import { HNSW_TUNING, searchTermChunks } from '#app/services/search/store.server.ts'
import { vectorParam } from '#db/binary-copy.ts'
import { em, getDb } from '#db/orm.ts'
import { vectorLiteral } from '#db/sql.ts'
import { createTerm } from '#tests/factories.ts'
import { beforeKnnStatements } from '#tests/statement-hooks.ts'
import { closeTestDb, openTestDb } from '#tests/setup/db.ts'

/**
 * PostgreSQL's HNSW graph and search breadth (issue 28, `HNSW_TUNING`): built with `ef_construction` 128,
 * searched at `ef_search` 100. The embedded engine has no HNSW index (decision 035): its tables have none, and
 * a search there finds the stored vector through its process index. Runs on both engines (the PostgreSQL pass
 * includes tests/integration/search/).
 */

const SPACE = 'alpha_compatible|http://127.0.0.1:1/v1|hnsw-tuning'
const DIM = 1536
const TABLES = ['term_chunks', 'wiki_chunks', 'meeting_chunks']

/** A vector with awkward values: negative, tiny, and ones float4 cannot hold exactly. */
const VECTOR = Array.from(
  { length: DIM },
  (_, i) => (i % 3 === 0 ? -1 : 1) * (0.1 + i / 7919) * 10 ** -(i % 9),
)

async function efConstruction(index: string): Promise<string | undefined> {
  const rows = await em().execute<{ options: string[] | null }[]>(
    'select reloptions as options from pg_class where relname = ?',
    [index],
  )
  return rows[0]?.options?.find((o) => o.startsWith('ef_construction='))
}

let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
})

/** `manager` whose KNN statements first read the `hnsw.ef_search` of their session into `seen`. */
function readingBreadth(manager: EntityManager, seen: string[]): EntityManager {
  const hooks = beforeKnnStatements(manager, async (run) => {
    const [row] = await run<{ ef: string }>(`select current_setting('hnsw.ef_search') as ef`)
    seen.push(row!.ef)
  })
  restore = hooks.restore
  return hooks.manager
}

let termId: string

beforeAll(async () => {
  await openTestDb()
  const term = await createTerm({ name: 'Tuning term' })
  termId = term.id
  // One chunk stored with the vector's text form, as the index pipeline's text path writes it.
  await em().execute(
    `insert into term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model, embedding)
     values (gen_random_uuid(), ?, ?, 'definition', 0, 'tuning', 'tuning-hash', ?, ?::vector)`,
    [term.id, term.revision, SPACE, vectorLiteral(VECTOR)],
  )
})

afterAll(async () => {
  await closeTestDb()
})

describe('HNSW tuning', () => {
  it('is 128 and 100', () => {
    expect(HNSW_TUNING).toEqual({ efConstruction: 128, efSearch: 100 })
  })

  it('builds the live chunk indexes (migrations) and a full reindex’s shadow ones with its ef_construction on PostgreSQL; the embedded engine has none', async () => {
    const wanted = getDb().pglite ? undefined : `ef_construction=${HNSW_TUNING.efConstruction}`
    for (const table of TABLES) expect(await efConstruction(`${table}_embedding_idx`), table).toBe(wanted)
    await em().transactional((tx) => createShadowTables(tx))
    try {
      if (!getDb().pglite) {
        for (const kind of ['term', 'wiki', 'meeting'] as const)
          await buildShadowVectorIndex(em(), kind, '64MB')
      }
      for (const table of TABLES) {
        expect(await efConstruction(`${table}_next_embedding_idx`), `${table}_next`).toBe(wanted)
      }
    } finally {
      await dropShadowTables(em())
    }
  })

  it('searches at its ef_search, and finds a stored vector through the query vector parameter', async () => {
    const param = vectorParam(VECTOR)
    // PostgreSQL gets the binary form (the server parses no text), the embedded engine the text form.
    expect(Buffer.isBuffer(param)).toBe(!getDb().pglite)
    const seen: string[] = []
    const manager = getDb().pglite ? em() : readingBreadth(em(), seen)
    const hits = await searchTermChunks(manager, {
      vector: param,
      space: SPACE,
      limit: 10,
      domain: null,
    })
    expect(seen).toEqual(getDb().pglite ? [] : [String(HNSW_TUNING.efSearch)])
    expect(hits.map((h) => h.term_id)).toEqual([termId])
    expect(Number(hits[0]!.distance)).toBeLessThan(1e-6)
    // The parameter is the very vector the text form stored, value for value.
    const [same] = await em().execute<{ n: string }[]>(
      'select count(*) as n from term_chunks where embedding = ?::vector',
      [param],
    )
    expect(Number(same!.n)).toBe(1)
  })
})
