import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { em, getDb, settingsPool } from '#db/orm.ts'
import { closeTestDb, openTestDb } from '#tests/setup/db.ts'

/**
 * The pools of connections with session settings of their own (db/settings-pool.ts) that the search store's
 * KNN statements run on, on the machine's PostgreSQL: settings from the first statement, varying ones set only
 * when a connection's differ, `?` placeholders, the ORM's type parsers, and a statement that meets a connection
 * the server ended. The embedded engine has none (its one connection serves everything).
 */

beforeAll(async () => {
  await openTestDb('postgres')
})

afterAll(async () => {
  await closeTestDb()
})

const SETTINGS = { enable_seqscan: 'off', jit: 'off' }

/** The open connections of the pool `name` (in `state` only, when given). */
async function poolConnections(name: string, state?: string): Promise<number> {
  const [row] = await em().execute<{ n: string }[]>(
    `select count(*) as n from pg_stat_activity
      where datname = current_database() and application_name = ? and (?::text is null or state = ?)`,
    [`glossary-${name}`, state ?? null, state ?? null],
  )
  return Number(row!.n)
}

describe('a settings pool on PostgreSQL', () => {
  it('starts every session with its settings, and never touches the ORM’s connections', async () => {
    const pool = settingsPool('probe', SETTINGS)!
    expect(pool).toBeDefined()
    expect(settingsPool('probe', {})).toBe(pool) // one pool per name
    const [row] = await pool.query<{ seqscan: string; jit: string }>(
      `select current_setting('enable_seqscan') as seqscan, current_setting('jit') as jit`,
      [],
    )
    expect(row).toEqual({ seqscan: 'off', jit: 'off' })
    const [orm] = await em().execute<{ seqscan: string }[]>(
      `select current_setting('enable_seqscan') as seqscan`,
    )
    expect(orm!.seqscan).toBe('on')
    expect(await poolConnections('probe')).toBeGreaterThan(0)
  })

  it('sets a varying setting for the session when it differs, and binds `?` values in order', async () => {
    const pool = settingsPool('probe', SETTINGS)!
    const read = async (value: string) =>
      (
        await pool.query<{ v: string; a: number; b: string }>(
          `select current_setting('work_mem') as v, ?::int as a, ?::text as b`,
          [7, 'x?y'],
          { work_mem: value },
        )
      )[0]
    expect(await read('8MB')).toEqual({ v: '8MB', a: 7, b: 'x?y' })
    expect(await read('16MB')).toEqual({ v: '16MB', a: 7, b: 'x?y' })
    expect(await read('8MB')).toEqual({ v: '8MB', a: 7, b: 'x?y' })
  })

  it('reads dates as the ORM does (text, not Date)', async () => {
    const pool = settingsPool('probe', SETTINGS)!
    const [row] = await pool.query<{ at: unknown }>(`select '2026-11-27 10:00:00+00'::timestamptz as at`, [])
    const [orm] = await em().execute<{ at: unknown }[]>(`select '2026-11-27 10:00:00+00'::timestamptz as at`)
    expect(row!.at).toEqual(orm!.at)
    expect(typeof row!.at).toBe('string')
  })

  it('runs a statement again on a fresh connection when the server ends its own under it', async () => {
    const pool = settingsPool('probe', SETTINGS)!
    // Long enough to be found running on a busy machine; the second run, on a fresh connection, takes as long.
    const slow = pool.query<{ jit: string }>(`select pg_sleep(1.5), current_setting('jit') as jit`, [])
    // Until the statement is running on its connection.
    for (let i = 0; i < 500 && (await poolConnections('probe', 'active')) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const [ended] = await em().execute<{ n: string }[]>(
      `select count(pg_terminate_backend(pid)) as n from pg_stat_activity
        where datname = current_database() and application_name = 'glossary-probe' and state = 'active'`,
    )
    expect(Number(ended!.n)).toBe(1)
    expect((await slow)[0]!.jit).toBe('off')
  })

  it('fails a wrong statement as itself, once', async () => {
    const pool = settingsPool('probe', SETTINGS)!
    await expect(pool.query('select no_such_column from pg_class', [])).rejects.toMatchObject({
      code: '42703',
    })
  })

  it('closes with the database', async () => {
    expect(getDb().settingsPools.size).toBeGreaterThan(0)
    await closeTestDb()
    await openTestDb('postgres')
    expect(getDb().settingsPools.size).toBe(0)
  })
})
