import type { EntityManager } from '@mikro-orm/postgresql'

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
