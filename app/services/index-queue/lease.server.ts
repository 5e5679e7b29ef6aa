import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * A lease in `app_setting` that at most one process holds at a time until it expires: how several workers
 * agree that only one runs the hourly cleanup. Unlike a session advisory lock it holds no connection (the
 * embedded database has only one) and frees itself when its holder dies.
 */
export async function takeLease(
  manager: EntityManager,
  name: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const rows = await manager.execute<{ key: string }[]>(
    `insert into app_setting (key, value, updated_at)
     values (?, jsonb_build_object('holder', ?::text, 'until', now() + (? * interval '1 millisecond')), now())
     on conflict (key) do update set value = excluded.value, updated_at = now()
       where (app_setting.value ->> 'until')::timestamptz < now() or app_setting.value ->> 'holder' = ?
     returning key`,
    [`lease.${name}`, holder, ttlMs, holder],
  )
  return rows.length > 0
}

/** Gives the lease back early (when its work is done). */
export async function releaseLease(manager: EntityManager, name: string, holder: string): Promise<void> {
  await manager.execute(
    `delete from app_setting where key = ? and value ->> 'holder' = ?`,
    [`lease.${name}`, holder],
    'run',
  )
}
