import type { EntityManager } from '@mikro-orm/postgresql'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { em } from '#db/orm.ts'

/**
 * Settings an administrator changes at run time, stored in `app_setting` so every web process reads the same
 * value (no in-process cache: one primary-key read per use is cheap and never stale).
 */

const PASSWORD_LOGIN_ENABLED = 'passwordLoginEnabled'

/**
 * Reads a setting; when it was never stored, stores `initial` first. The insert is `on conflict do nothing`,
 * so two processes booting together agree on one stored value, and a later environment change cannot
 * override what an administrator saved (the spec: only a first boot takes the environment's value).
 */
async function readOrInitialize<T>(key: string, initial: () => T, manager: EntityManager): Promise<T> {
  // Plain SQL: this runs on every login, and an entity round trip costs several times more here.
  const read = () =>
    manager.execute<{ value: unknown }[]>('select value from app_setting where key = ?', [key])
  let rows = await read()
  if (rows.length === 0) {
    await manager.execute(
      'insert into app_setting (key, value, updated_at) values (?, ?::jsonb, now()) on conflict (key) do nothing',
      [key, JSON.stringify(initial())],
    )
    rows = await read()
  }
  return rows[0]!.value as T
}

async function writeSetting(key: string, value: unknown, manager: EntityManager): Promise<void> {
  await manager.execute(
    `insert into app_setting (key, value, updated_at) values (?, ?::jsonb, now())
     on conflict (key) do update set value = excluded.value, updated_at = now()`,
    [key, JSON.stringify(value)],
  )
}

/** Whether ID/password login, registration and password setup are allowed (the spec's `passwordLoginEnabled`). */
export async function getPasswordLoginEnabled(manager: EntityManager = em()): Promise<boolean> {
  const value = await readOrInitialize(
    PASSWORD_LOGIN_ENABLED,
    () => getConfig().passwordLoginEnabledInitial,
    manager,
  )
  return value === true
}

/**
 * Switches password login on or off, with a `settings.password_login` audit record naming who did it (the SSO
 * admin screen calls this; refusing to close every login path is that screen's rule, not this function's).
 */
export async function setPasswordLoginEnabled(
  enabled: boolean,
  audit: { actor: AuditActor; client?: ClientInfo } | null = null,
): Promise<void> {
  await em().transactional(async (tx) => {
    await writeSetting(PASSWORD_LOGIN_ENABLED, enabled, tx)
    if (audit) {
      await recordAudit(
        { action: 'settings.password_login', actor: audit.actor, client: audit.client, details: { enabled } },
        tx,
      )
    }
  })
}

/** Throws 403 `password_login_disabled` when the switch is off. */
export async function assertPasswordLoginEnabled(manager: EntityManager = em()): Promise<void> {
  if (!(await getPasswordLoginEnabled(manager))) {
    throw new AppError('password_login_disabled', 'Password login is switched off on this server.')
  }
}
