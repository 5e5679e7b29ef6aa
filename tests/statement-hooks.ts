import type { EntityManager } from '@mikro-orm/postgresql'
import { SettingsPool } from '#db/settings-pool.ts'

/**
 * Wrappers that let a test look inside the statements a service sends, without copying them: a hook runs in
 * the same transaction just before each statement it matches, and the statement then runs as sent.
 */

type Execute = (sql: string, params?: unknown[], method?: 'all' | 'get' | 'run') => Promise<unknown>

/** Whether `sql` is a nearest-neighbour statement of the search store (it orders by the `<=>` distance). */
export function isKnnStatement(sql: string): boolean {
  return /<=>[\s\S]*order by distance/.test(sql)
}

/** `tx` answering as itself, except that `before` runs first for every statement `matches` accepts. */
export function beforeStatements(
  tx: EntityManager,
  matches: (sql: string) => boolean,
  before: (target: EntityManager, sql: string, params: unknown[] | undefined) => Promise<void> | void,
): EntityManager {
  return new Proxy(tx, {
    get(target, property) {
      if (property === 'execute') {
        const execute: Execute = async (sql, params, method) => {
          if (matches(sql)) await before(target, sql, params)
          return target.execute(sql, params, method)
        }
        return execute
      }
      const value = Reflect.get(target, property, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** `manager` whose transactions hand their callback `wrap(tx)` instead of `tx`. */
export function wrappingTransactions(
  manager: EntityManager,
  wrap: (tx: EntityManager) => EntityManager,
): EntityManager {
  return new Proxy(manager, {
    get(target, property) {
      if (property === 'transactional') {
        return <T>(work: (tx: EntityManager) => Promise<T>) => target.transactional((tx) => work(wrap(tx)))
      }
      const value = Reflect.get(target, property, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** A statement run in the session of the one observed (`beforeKnnStatements`). */
export type SessionRun = <T>(sql: string, params?: unknown[]) => Promise<T[]>

/**
 * Runs `before` just before each KNN statement (`isKnnStatement`) a search sends, in that statement's session:
 * on PostgreSQL a connection of the search pool with the same settings (db/settings-pool.ts), on the embedded
 * engine and inside a caller's transaction the search's own transaction. Search with the returned `manager`;
 * `restore()` undoes it.
 */
export function beforeKnnStatements(
  manager: EntityManager,
  before: (run: SessionRun, sql: string, params: unknown[]) => Promise<void> | void,
): { manager: EntityManager; restore: () => void } {
  const query = SettingsPool.prototype.query
  SettingsPool.prototype.query = async function <T>(
    this: SettingsPool,
    sql: string,
    params: readonly unknown[],
    session?: Record<string, string>,
  ): Promise<T[]> {
    if (isKnnStatement(sql)) {
      const run: SessionRun = <R>(text: string, values: unknown[] = []) =>
        query.call(this, text, values, session) as Promise<R[]>
      await before(run, sql, [...params])
    }
    return query.call(this, sql, params, session) as Promise<T[]>
  }
  const observe = (tx: EntityManager) =>
    beforeStatements(tx, isKnnStatement, (target, sql, params) =>
      before(<T>(text: string, values?: unknown[]) => target.execute<T[]>(text, values), sql, params ?? []),
    )
  return {
    manager: wrappingTransactions(manager, observe),
    restore: () => {
      SettingsPool.prototype.query = query
    },
  }
}
