import type { EntityManager } from '@mikro-orm/postgresql'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import {
  WrongCaseSeveritySchema,
  type UpdateValidationConfigInput,
  type ValidationConfig,
} from '#app/schemas/validation.ts'
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

const WRONG_CASE_SEVERITY = 'validation.wrongCaseSeverity'
/** Wrong letter case is worth fixing but rarely changes meaning, hence a warning until an admin decides. */
const WRONG_CASE_SEVERITY_DEFAULT = 'warning'

/**
 * The validation settings: the severity of `wrong-case` findings (docs/decisions/013-letter-case.md). A stored
 * value this version cannot read (hand-edited) counts as the default rather than failing every validation.
 */
export async function getValidationConfig(manager: EntityManager = em()): Promise<ValidationConfig> {
  const stored = await readOrInitialize(WRONG_CASE_SEVERITY, () => WRONG_CASE_SEVERITY_DEFAULT, manager)
  const parsed = WrongCaseSeveritySchema.safeParse(stored)
  return { wrongCaseSeverity: parsed.success ? parsed.data : WRONG_CASE_SEVERITY_DEFAULT }
}

/** Changes validation settings (admin), with a `settings.validation` audit record of what changed. */
export async function updateValidationConfig(options: {
  input: UpdateValidationConfigInput
  audit: { actor: AuditActor; client?: ClientInfo }
}): Promise<ValidationConfig> {
  return em().transactional(async (tx) => {
    if (options.input.wrongCaseSeverity !== undefined) {
      await writeSetting(WRONG_CASE_SEVERITY, options.input.wrongCaseSeverity, tx)
      await recordAudit(
        {
          action: 'settings.validation',
          actor: options.audit.actor,
          client: options.audit.client,
          details: { wrongCaseSeverity: options.input.wrongCaseSeverity },
        },
        tx,
      )
    }
    return getValidationConfig(tx)
  })
}
