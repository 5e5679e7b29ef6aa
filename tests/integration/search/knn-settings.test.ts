import type { EntityManager } from '@mikro-orm/postgresql'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  meetingChunkSearch,
  searchChunks,
  searchMeetingChunks,
  searchTermChunks,
  searchWikiChunks,
  termChunkSearch,
  wikiChunkSearch,
} from '#app/services/search/store.server.ts'
import { em } from '#db/orm.ts'
import { createTerm } from '#tests/factories.ts'
import { beforeKnnStatements, beforeStatements, wrappingTransactions } from '#tests/statement-hooks.ts'
import { closeTestDb, openTestDb } from '#tests/setup/db.ts'

/**
 * The plan of a nearest-neighbour search on PostgreSQL (issue 28): the KNN statement's planner settings price
 * the outer sort at 1e10, past `jit_above_cost`, and PostgreSQL then spent 0.3–0.5 s compiling every search
 * with LLVM. Each search must run its KNN statement on the HNSW index with JIT off, both where it runs on
 * PostgreSQL: as one statement on a connection of the search pool, whose session starts with the settings
 * (db/settings-pool.ts), and inside a caller's transaction, which sets them locally. PostgreSQL only: the
 * embedded engine has no JIT and no pool.
 *
 * What the real searches send is observed, not copied (`beforeKnnStatements`): in the statement's own session,
 * each KNN statement is also explained (`EXPLAIN` without ANALYZE: the plan, and the JIT section PostgreSQL
 * adds when it would compile) and `jit` is read.
 */

const SPACE = 'alpha_compatible|http://127.0.0.1:1/v1|knn-settings'
const DIM = 1536

interface Observed {
  sql: string
  jit: string
  plan: ExplainedPlan
}

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Relation Name'?: string
  Plans?: PlanNode[]
}

interface ExplainedPlan {
  Plan: PlanNode
  JIT?: unknown
}

/** What a search did besides its KNN statements. */
interface Rounds {
  transactions: number
  /** Statements setting the planner (`set_config`) in a transaction. */
  settings: number
}

let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
})

/**
 * `manager` whose searches' KNN statements are first explained into `observed`; with `rounds`, its
 * transactions and their `set_config` statements are counted.
 */
function explaining(manager: EntityManager, observed: Observed[], rounds?: Rounds): EntityManager {
  const counted = rounds
    ? wrappingTransactions(manager, (tx) => {
        rounds.transactions++
        return beforeStatements(
          tx,
          (sql) => /set_config\(/.test(sql),
          () => {
            rounds.settings++
          },
        )
      })
    : manager
  const hooks = beforeKnnStatements(counted, async (run, sql, params) => {
    const [{ jit }] = (await run<{ jit: string }>('show jit')) as [{ jit: string }]
    const [row] = await run<{ 'QUERY PLAN': ExplainedPlan[] }>(`explain (format json) ${sql}`, params)
    observed.push({ sql, jit, plan: row!['QUERY PLAN'][0]! })
  })
  restore = hooks.restore
  return hooks.manager
}

/** Every node of a plan tree. */
function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)]
}

/** A query vector of the same shape as the chunks' (server-side `random()` values). */
const queryVector = `[${Array.from({ length: DIM }, (_, i) => ((i * 7919) % 1000) / 1000).join(',')}]`

beforeAll(async () => {
  await openTestDb('postgres')
  const terms = await Promise.all([1, 2, 3, 4, 5].map((i) => createTerm({ name: `Knn term ${i}` })))
  // 200 chunks of the current revisions: enough rows for the planner to weigh the index against the others.
  await em().execute(
    `insert into term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model,
                              embedding)
     select gen_random_uuid(), t.id, t.revision, 'definition', g, 'chunk', md5(t.id::text || g), ?,
            (select array_agg(random())::vector(${DIM}) from generate_series(1, ${DIM}) where g >= 0)
       from terms t, generate_series(0, 39) g
      where t.id = any(?::uuid[])`,
    [SPACE, `{${terms.map((t) => t.id).join(',')}}`],
  )
  await em().execute('analyze term_chunks')
})

afterAll(async () => {
  await closeTestDb()
})

describe('the KNN statement on PostgreSQL', () => {
  const query = { vector: queryVector, space: SPACE, limit: 10, domain: null }
  const searches = {
    term_chunks: (manager: EntityManager) => searchTermChunks(manager, query),
    wiki_chunks: (manager: EntityManager) => searchWikiChunks(manager, query),
    meeting_chunks: (manager: EntityManager) =>
      searchMeetingChunks(manager, { ...query, team: null, from: null, to: null }),
  }

  /** Every plan observed is the HNSW index scan of `table`, with JIT off. */
  function expectIndexPlans(observed: Observed[], table: string) {
    expect(observed.length, 'KNN statements observed').toBeGreaterThan(0)
    for (const { sql, jit, plan } of observed) {
      expect(sql).toContain(`from ${table}`)
      expect(jit).toBe('off')
      expect(plan.JIT, 'no JIT section in the plan').toBeUndefined()
      const scans = nodes(plan.Plan).filter((node) => node['Relation Name'] === table)
      expect(scans.map((node) => [node['Node Type'], node['Index Name']])).toEqual([
        ['Index Scan', `${table}_embedding_idx`],
      ])
    }
  }

  it('finds the nearest chunks through the wrapper (the statement observed is the one that answers)', async () => {
    const observed: Observed[] = []
    const hits = await searchTermChunks(explaining(em(), observed), query)
    expect(hits).toHaveLength(10)
    expect(observed.length).toBeGreaterThan(0)
  })

  for (const [table, search] of Object.entries(searches)) {
    it(`plans the ${table} search on its HNSW index with JIT off, on the search pool`, async () => {
      const observed: Observed[] = []
      const rounds: Rounds = { transactions: 0, settings: 0 }
      await search(explaining(em(), observed, rounds))
      expectIndexPlans(observed, table)
      // One statement a search, no transaction around it: the settings come with the session.
      expect(rounds).toEqual({ transactions: 0, settings: 0 })
    })

    it(`plans the ${table} search on its HNSW index with JIT off inside a caller's transaction`, async () => {
      const observed: Observed[] = []
      await em().transactional(async (tx) => {
        await search(explaining(tx, observed))
      })
      expectIndexPlans(observed, table)
    })
  }

  it('runs the chatbot evidence searches on the pool, each on its index, and in a caller’s transaction sets the planner once', async () => {
    const few = { ...query, limit: 3, efSearch: 40 }
    const evidence = (manager: EntityManager) =>
      searchChunks(manager, [
        termChunkSearch(few),
        wikiChunkSearch(few),
        meetingChunkSearch({ ...few, team: null, from: null, to: null }),
      ])
    for (const inTransaction of [false, true]) {
      const observed: Observed[] = []
      const rounds: Rounds = { transactions: 0, settings: 0 }
      const [terms, wiki, meetings] = inTransaction
        ? await em().transactional((tx) => evidence(explaining(tx, observed, rounds)))
        : await evidence(explaining(em(), observed, rounds))
      restore?.()
      expect(terms).toHaveLength(3)
      expect([wiki, meetings]).toEqual([[], []])
      expect(rounds).toEqual(
        inTransaction ? { transactions: 1, settings: 1 } : { transactions: 0, settings: 0 },
      )
      expect(observed.map((o) => /from (\w+_chunks)/.exec(o.sql)?.[1])).toEqual([
        'term_chunks',
        'wiki_chunks',
        'meeting_chunks',
      ])
      for (const { jit, plan } of observed) {
        expect(jit).toBe('off')
        expect(nodes(plan.Plan).some((node) => node['Node Type'] === 'Index Scan')).toBe(true)
      }
    }
  })

  it('answers after the server ended every connection of the search pool', async () => {
    expect(await searchTermChunks(em(), query)).toHaveLength(10)
    const [ended] = await em().execute<{ n: string }[]>(
      `select count(pg_terminate_backend(pid)) as n from pg_stat_activity
        where datname = current_database() and application_name = 'glossary-search'`,
    )
    expect(Number(ended!.n)).toBeGreaterThan(0)
    expect(await searchTermChunks(em(), query)).toHaveLength(10)
  })
})
