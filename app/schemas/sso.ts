import { z } from 'zod'
import { SSO_MODES, SSO_PROTOCOLS } from '#domain/sso.ts'

/**
 * The SSO settings resource and its browser-facing companions (spec: "SSO configuration (`sso` object)",
 * "Password-login and SSO administration", `POST /account/sso-refresh`; docs/decisions/018-single-sign-on.md).
 */

const URL_MAX = 2048

/** An external address an administrator types: http or https only (spec PUT /sso rule 3). */
export const HttpUrlSchema = z
  .string()
  .trim()
  .max(URL_MAX)
  .refine((value) => {
    try {
      const url = new URL(value)
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== ''
    } catch {
      return false
    }
  }, 'Enter an http:// or https:// address.')

/** A stored address, or empty when not configured yet. */
const OptionalUrl = z.union([z.literal(''), HttpUrlSchema])

const ClaimName = z.string().trim().min(1).max(200)
const GroupName = z.string().trim().min(1).max(500)
const NameList = (item: z.ZodString, what: string) => z.array(item).max(100).meta({ description: what })

export const SsoModeSchema = z.enum(SSO_MODES).meta({
  description:
    'The active login method besides passwords: `disabled`, `oidc`, `oauth2` (authorization code + PKCE) or `oauth2-proxy` (identity from the proxy headers).',
})
export const SsoProtocolSchema = z.enum(SSO_PROTOCOLS)

/** The `sso` object as GET /sso answers it. */
export const SsoSchema = z.object({
  mode: SsoModeSchema,
  enabled: z.boolean().meta({ description: 'Kept for older clients: `mode` is not `disabled`.' }),
  protocol: SsoProtocolSchema.meta({
    description: 'Kept for older clients: `oauth2` in OAuth 2.0 mode, else `oidc`.',
  }),
  passwordLoginEnabled: z.boolean(),
  buttonLabel: z.string(),
  issuer: z.string(),
  jwksUri: z.string(),
  authorizationEndpoint: z.string(),
  tokenEndpoint: z.string(),
  userinfoEndpoint: z.string(),
  clientId: z.string(),
  hasClientSecret: z
    .boolean()
    .meta({ description: 'Whether a client secret is stored; the secret is never returned.' }),
  nameClaims: z.array(z.string()),
  groupClaims: z.array(z.string()),
  allowedGroups: z.array(z.string()),
  adminGroups: z.array(z.string()),
  autoCreate: z.boolean(),
  lastClaimKeys: z
    .array(z.string())
    .meta({ description: 'Names (never values) of the claims sent at the last SSO login.' }),
  lastLoginAt: z.string().nullable(),
  updatedBy: z.string().nullable().meta({ description: 'Email of the administrator who saved last.' }),
})
export type SsoDto = z.output<typeof SsoSchema>

export const SsoResponseSchema = z.object({
  sso: SsoSchema,
  redirectUri: z.string().meta({ description: 'The address to register at the identity provider.' }),
})

/** The stored secrets of the SSO settings, by the name of the field that writes them. */
export const SSO_SECRET_FIELDS = ['clientSecret'] as const
export type SsoSecretField = (typeof SSO_SECRET_FIELDS)[number]

/** `PUT /sso`'s answer: GET's, and the stored secrets the change cleared. */
export const SsoUpdateResponseSchema = SsoResponseSchema.extend({
  clearedSecrets: z.array(z.enum(SSO_SECRET_FIELDS)).meta({
    description:
      'Stored secrets this change cleared because an identity-provider address changed (`issuer`, `authorizationEndpoint`, `tokenEndpoint`, `userinfoEndpoint`, `jwksUri`) and the request did not send `clientSecret` again. Empty when nothing was cleared.',
  }),
})

const SERVER_FILLED = ['lastClaimKeys', 'lastLoginAt', 'updatedBy', 'hasClientSecret'] as const

/** `PUT /sso`: only the sent fields change (rules 1–7 are checked by the service where they need state). */
export const UpdateSsoSchema = z
  .object({
    mode: SsoModeSchema.optional(),
    enabled: z.boolean().optional(),
    protocol: SsoProtocolSchema.optional(),
    passwordLoginEnabled: z.boolean().optional(),
    buttonLabel: z.string().trim().min(1).max(100).optional(),
    issuer: OptionalUrl.optional(),
    jwksUri: OptionalUrl.optional(),
    authorizationEndpoint: OptionalUrl.optional(),
    tokenEndpoint: OptionalUrl.optional(),
    userinfoEndpoint: OptionalUrl.optional(),
    clientId: z.string().trim().max(500).optional(),
    clientSecret: z
      .string()
      .max(4096)
      .nullable()
      .optional()
      .meta({ description: '`""` keeps the stored secret, `null` deletes it, any other value replaces it.' }),
    nameClaims: NameList(ClaimName, 'Claims tried, in order, for the display name.').optional(),
    groupClaims: NameList(
      ClaimName,
      'Claims holding groups (arrays, or comma/space-separated strings).',
    ).optional(),
    allowedGroups: NameList(
      GroupName,
      'When not empty, only members of one of these groups may sign in.',
    ).optional(),
    adminGroups: NameList(GroupName, 'Members of one of these groups become admins at sign-in.').optional(),
    autoCreate: z.boolean().optional(),
    lastClaimKeys: z.unknown().optional(),
    lastLoginAt: z.unknown().optional(),
    updatedBy: z.unknown().optional(),
    hasClientSecret: z.unknown().optional(),
  })
  .superRefine((body, ctx) => {
    for (const key of SERVER_FILLED) {
      if (body[key] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `${key} is filled by the server and cannot be sent.`,
        })
      }
    }
  })
export type UpdateSsoInput = Omit<z.output<typeof UpdateSsoSchema>, (typeof SERVER_FILLED)[number]>

export const DiscoverSsoSchema = z.object({
  issuer: HttpUrlSchema,
  protocol: SsoProtocolSchema,
})

export const DiscoverySchema = z.object({
  issuer: z.string(),
  authorizationEndpoint: z.string(),
  tokenEndpoint: z.string(),
  userinfoEndpoint: z.string(),
  jwksUri: z.string(),
  scopesSupported: z.array(z.string()),
  claimsSupported: z.array(z.string()),
})
export type Discovery = z.output<typeof DiscoverySchema>
export const DiscoveryResponseSchema = z.object({ discovery: DiscoverySchema })

/** What the oauth2-proxy headers of one request say (names are lowercase HTTP header names). */
export const ProxyIdentitySchema = z.object({
  email: z.string().nullable(),
  user: z.string().nullable(),
  name: z.string().nullable(),
  groups: z.array(z.string()),
})

export const ProxyCheckSchema = z.object({
  ssoMode: SsoModeSchema,
  proxyAvailable: z.boolean().meta({ description: 'OAUTH2_PROXY_ENABLED=true on this deployment.' }),
  trusted: z.boolean().meta({
    description: 'Whether the headers are used for sign-in now (capability on and mode `oauth2-proxy`).',
  }),
  detected: z.boolean().meta({ description: 'Whether this request carried an email header.' }),
  headerNames: z.object({
    email: z.string(),
    user: z.string(),
    groups: z.string(),
    preferredUsername: z.string(),
  }),
  identity: ProxyIdentitySchema.meta({ description: 'What the headers of this request would restore.' }),
})
export type ProxyCheck = z.output<typeof ProxyCheckSchema>

export const SsoRefreshResponseSchema = z.union([
  z.object({
    redirectTo: z.string().meta({ description: 'Navigate here to sign in again at the provider.' }),
  }),
  z.object({
    user: z.object({
      id: z.string(),
      email: z.string(),
      name: z.string(),
      role: z.string(),
      authType: z.string(),
    }),
  }),
])
