import type { EntityManager } from '@mikro-orm/postgresql'
import { z } from 'zod'
import { getConfig } from '#app/lib/config.server.ts'
import { validationError, type Problem } from '#app/lib/errors.server.ts'
import { decryptSecret, encryptSecret } from '#app/lib/secrets.server.ts'
import type { SsoDto, SsoSecretField, UpdateSsoInput } from '#app/schemas/sso.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { getPasswordLoginEnabled, setPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { em } from '#db/orm.ts'
import { DEFAULT_SSO_BUTTON_LABEL, SSO_MODES, type SsoMode } from '#domain/sso.ts'
import { selectSsoConfig, upsertSsoSettings } from './store.server.ts'

/**
 * The SSO settings resource (spec: "SSO configuration", `GET`/`PUT /sso` and its rules 1–7; decision 018).
 * Stored in `sso_config`; the password-login switch stays the `app_setting` of decision 004.
 */

/** What an administrator sets (everything of the `sso` object that is neither derived nor server-filled). */
const StoredSettingsSchema = z.object({
  mode: z.enum(SSO_MODES).catch('disabled'),
  buttonLabel: z.string().catch(DEFAULT_SSO_BUTTON_LABEL),
  issuer: z.string().catch(''),
  jwksUri: z.string().catch(''),
  authorizationEndpoint: z.string().catch(''),
  tokenEndpoint: z.string().catch(''),
  userinfoEndpoint: z.string().catch(''),
  clientId: z.string().catch(''),
  nameClaims: z.array(z.string()).catch(['name', 'preferred_username']),
  groupClaims: z.array(z.string()).catch(['groups']),
  allowedGroups: z.array(z.string()).catch([]),
  adminGroups: z.array(z.string()).catch([]),
  autoCreate: z.boolean().catch(true),
})
export type SsoSettings = z.output<typeof StoredSettingsSchema>
const SETTING_KEYS = Object.keys(StoredSettingsSchema.shape) as (keyof SsoSettings)[]

/** The stored state: settings (defaults filled in), the encrypted secret and the server-filled fields. */
export interface SsoState {
  settings: SsoSettings
  clientSecretEncrypted: string | null
  lastClaimKeys: string[]
  lastLoginAt: string | null
  updatedBy: string | null
}

export async function loadSsoState(manager: EntityManager = em()): Promise<SsoState> {
  const row = await selectSsoConfig(manager)
  return {
    // `.catch` per field: a hand-edited or older stored value falls back to its default instead of failing.
    settings: StoredSettingsSchema.parse(row?.settings ?? {}),
    clientSecretEncrypted: row?.clientSecretEncrypted ?? null,
    lastClaimKeys: row?.lastClaimKeys ?? [],
    lastLoginAt: row?.lastLoginAt ?? null,
    updatedBy: row?.updatedBy ?? null,
  }
}

/** The client secret in plain text (for the token request only), or undefined when none is stored. */
export function clientSecretOf(state: SsoState): string | undefined {
  return state.clientSecretEncrypted ? decryptSecret(state.clientSecretEncrypted) : undefined
}

/** Whether the oauth2-proxy headers are trusted now: the deployment opened the capability and the mode is on. */
export function proxyTrusted(mode: SsoMode): boolean {
  return getConfig().oauth2ProxyEnabled && mode === 'oauth2-proxy'
}

export function toSsoDto(state: SsoState, passwordLoginEnabled: boolean): SsoDto {
  const { settings } = state
  return {
    ...settings,
    enabled: settings.mode !== 'disabled',
    protocol: settings.mode === 'oauth2' ? 'oauth2' : 'oidc',
    passwordLoginEnabled,
    hasClientSecret: state.clientSecretEncrypted !== null,
    lastClaimKeys: state.lastClaimKeys,
    lastLoginAt: state.lastLoginAt,
    updatedBy: state.updatedBy,
  }
}

/** `GET /sso`'s `sso`. */
export async function getSso(manager: EntityManager = em()): Promise<SsoDto> {
  return toSsoDto(await loadSsoState(manager), await getPasswordLoginEnabled(manager))
}

/** The values a direct mode cannot work without (decision 018). */
const NEEDED: Record<'oidc' | 'oauth2', (keyof SsoSettings)[]> = {
  oidc: ['issuer', 'clientId', 'authorizationEndpoint', 'tokenEndpoint', 'jwksUri'],
  oauth2: ['clientId', 'authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint'],
}

/** The missing values of a direct mode, as problems (empty when usable or not a direct mode). */
export function missingForMode(settings: SsoSettings): Problem[] {
  if (settings.mode !== 'oidc' && settings.mode !== 'oauth2') return []
  const mode = settings.mode
  return NEEDED[mode]
    .filter((key) => settings[key] === '')
    .map((key) => ({ path: key, code: 'required_to_enable', message: `${key} is needed to enable ${mode}.` }))
}

/** The mode a body asks for: `mode`, else derived from the older `enabled`/`protocol` members. */
function requestedMode(input: UpdateSsoInput, current: SsoSettings): SsoMode | undefined {
  if (input.mode !== undefined) return input.mode
  if (input.enabled === false) return 'disabled'
  if (input.enabled === true) {
    return (
      input.protocol ??
      (current.mode === 'disabled' || current.mode === 'oauth2-proxy' ? 'oidc' : current.mode)
    )
  }
  if (input.protocol !== undefined && (current.mode === 'oidc' || current.mode === 'oauth2'))
    return input.protocol
  return undefined
}

/** The identity provider's addresses: the client secret is sent to its token endpoint, trust goes to all. */
const PROVIDER_ADDRESSES = [
  'issuer',
  'authorizationEndpoint',
  'tokenEndpoint',
  'userinfoEndpoint',
  'jwksUri',
] as const

/**
 * Whether a provider address that was set changes (issue 26): the stored client secret belongs to the
 * provider it was entered for and must not follow its addresses to another one. A secret stored while an
 * address was still empty belongs to the first address given.
 */
function providerMoved(before: SsoSettings, after: SsoSettings): boolean {
  return PROVIDER_ADDRESSES.some((key) => before[key] !== '' && after[key] !== before[key])
}

/**
 * `PUT /sso`: a partial update under the spec's rules (decision 018). `proxyEmail` is the `X-Forwarded-Email`
 * of the saving request: switching to `oauth2-proxy` needs it to name the saving admin. A changed provider
 * address clears the stored client secret unless the request sends one (`clearedSecrets` says so); the
 * `settings.sso` audit record names the fields whose value changed, never a value.
 */
export async function updateSso(options: {
  input: UpdateSsoInput
  actor: AuditActor & { email: string }
  client: ClientInfo
  proxyEmail: string | null
}): Promise<{ sso: SsoDto; clearedSecrets: SsoSecretField[] }> {
  const { input } = options
  return em().transactional(async (tx) => {
    const state = await loadSsoState(tx)
    const passwordBefore = await getPasswordLoginEnabled(tx)
    const next: SsoSettings = { ...state.settings }
    for (const key of SETTING_KEYS) {
      if (key === 'mode') continue
      const value = input[key as keyof UpdateSsoInput]
      if (value !== undefined) (next as Record<string, unknown>)[key] = value
    }
    const mode = requestedMode(input, state.settings)
    if (mode !== undefined) next.mode = mode
    // What changed, not what was sent: the settings page sends every field on each save.
    const changed: string[] = SETTING_KEYS.filter(
      (key) => JSON.stringify(next[key]) !== JSON.stringify(state.settings[key]),
    )
    const passwordLoginEnabled = input.passwordLoginEnabled ?? passwordBefore

    const problems: Problem[] = [...missingForMode(next)]
    if (mode === 'oauth2-proxy' && !getConfig().oauth2ProxyEnabled) {
      problems.push({
        path: 'mode',
        code: 'proxy_unavailable',
        message: 'oauth2-proxy mode needs OAUTH2_PROXY_ENABLED=true on this deployment.',
      })
    } else if (
      mode === 'oauth2-proxy' &&
      state.settings.mode !== 'oauth2-proxy' &&
      options.proxyEmail?.trim().toLowerCase() !== options.actor.email
    ) {
      problems.push({
        path: 'mode',
        code: 'proxy_not_identifying_you',
        message:
          'This request does not carry your email in X-Forwarded-Email: sign in through oauth2-proxy before switching to this mode, or you would lock yourself out.',
      })
    }
    if (!passwordLoginEnabled) {
      if (next.mode === 'disabled') {
        problems.push({
          path: mode !== undefined ? 'mode' : 'passwordLoginEnabled',
          code: 'closes_every_login',
          message: 'Password login is off, so SSO cannot be disabled: that would close every way to sign in.',
        })
      } else if (next.mode === 'oauth2-proxy' && !getConfig().oauth2ProxyEnabled && mode === undefined) {
        problems.push({
          path: 'passwordLoginEnabled',
          code: 'closes_every_login',
          message:
            'oauth2-proxy is not available on this deployment: switching password login off would close every way to sign in.',
        })
      }
    }
    if (problems.length) throw validationError(problems, 'The SSO settings cannot be saved.')

    let clientSecretEncrypted = state.clientSecretEncrypted
    const clearedSecrets: SsoSecretField[] = []
    if (input.clientSecret === null) clientSecretEncrypted = null
    else if (input.clientSecret) clientSecretEncrypted = encryptSecret(input.clientSecret)
    else if (clientSecretEncrypted !== null && providerMoved(state.settings, next)) {
      clientSecretEncrypted = null
      clearedSecrets.push('clientSecret')
    }
    if (clientSecretEncrypted !== state.clientSecretEncrypted) changed.push('clientSecret')
    await upsertSsoSettings(tx, { settings: next, clientSecretEncrypted, updatedBy: options.actor.email })
    if (passwordLoginEnabled !== passwordBefore) {
      await setPasswordLoginEnabled(
        passwordLoginEnabled,
        { actor: options.actor, client: options.client },
        tx,
      )
    }
    await recordAudit(
      {
        action: 'settings.sso',
        actor: options.actor,
        client: options.client,
        // `cleared`, not `clearedSecrets`: the audit log drops every detail whose key names a secret.
        details: { fields: changed, mode: next.mode, cleared: clearedSecrets },
      },
      tx,
    )
    return { sso: toSsoDto(await loadSsoState(tx), passwordLoginEnabled), clearedSecrets }
  })
}
