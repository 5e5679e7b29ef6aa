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
import { insertSettingIfAbsent, selectSetting, upsertSetting } from './store.server.ts'

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
  let stored = await selectSetting(manager, key)
  if (!stored) {
    await insertSettingIfAbsent(manager, key, initial())
    stored = await selectSetting(manager, key)
  }
  return stored!.value as T
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
  manager?: EntityManager,
): Promise<void> {
  const write = async (tx: EntityManager) => {
    await upsertSetting(tx, PASSWORD_LOGIN_ENABLED, enabled)
    if (audit) {
      await recordAudit(
        { action: 'settings.password_login', actor: audit.actor, client: audit.client, details: { enabled } },
        tx,
      )
    }
  }
  // Inside the caller's transaction (PUT /sso writes the switch with the SSO settings), else in one of its own.
  if (manager) await write(manager)
  else await em().transactional(write)
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
      await upsertSetting(tx, WRONG_CASE_SEVERITY, options.input.wrongCaseSeverity)
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
