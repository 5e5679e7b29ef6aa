import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * The data access of run-time settings: the statements on `app_setting` (one JSON value per key). Which keys
 * exist, their defaults and who may change them are in settings.server.ts. (The glossary version counter,
 * also a row of `app_setting`, belongs to the terms area: `bumpGlossaryVersion` in terms/store.server.ts.)
 */

/** The stored value of `key`, or undefined when it was never stored. */
export async function selectSetting(
  manager: EntityManager,
  key: string,
): Promise<{ value: unknown } | undefined> {
  // Plain SQL: this runs on every login, and an entity round trip costs several times more here.
  const rows = await manager.execute<{ value: unknown }[]>('select value from app_setting where key = ?', [
    key,
  ])
  return rows[0]
}

/** Stores `value` unless `key` already has one (`on conflict do nothing`: the first writer wins). */
export async function insertSettingIfAbsent(
  manager: EntityManager,
  key: string,
  value: unknown,
): Promise<void> {
  await manager.execute(
    'insert into app_setting (key, value, updated_at) values (?, ?::jsonb, now()) on conflict (key) do nothing',
    [key, JSON.stringify(value)],
    'run',
  )
}

/** Stores `value` under `key`, replacing what was there. */
export async function upsertSetting(manager: EntityManager, key: string, value: unknown): Promise<void> {
  await manager.execute(
    `insert into app_setting (key, value, updated_at) values (?, ?::jsonb, now())
     on conflict (key) do update set value = excluded.value, updated_at = now()`,
    [key, JSON.stringify(value)],
    'run',
  )
}
