import { z } from 'zod'
import { AUTH_TYPES, ROLES, SCOPES } from '#domain/identity.ts'

/**
 * Request and response shapes of the identity API (setup, accounts, sessions, keys, user administration and the
 * audit log). Shared by the API endpoints, the OpenAPI document and (later) the account pages' forms.
 */

/** The spec's limit: 8 or more characters. The upper bound only keeps one request from hashing megabytes. */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 1024

export const EmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .check(z.email('Enter a valid email address.'))
  .meta({ description: 'Email address; stored lowercase and unique whatever its case.' })

export const PasswordSchema = z
  .string()
  .min(PASSWORD_MIN, `The password needs at least ${PASSWORD_MIN} characters.`)
  .max(PASSWORD_MAX)

export const DisplayNameSchema = z.string().trim().min(1, 'Enter a name.').max(200)

/** `POST /setup` and `POST /auth/register`. Unknown members (a `role`, say) are dropped, never applied. */
export const SignUpSchema = z.object({
  email: EmailSchema,
  name: z
    .string()
    .trim()
    .max(200)
    .optional()
    .meta({ description: 'Display name; the email when omitted or empty.' }),
  password: PasswordSchema,
})
export type SignUpInput = z.infer<typeof SignUpSchema>

/**
 * `POST /auth/login`. Deliberately loose (any non-empty strings): a format error would answer differently
 * from wrong credentials, and login must give no hint.
 */
export const LoginSchema = z.object({
  email: z.string().trim().toLowerCase().min(1).max(320),
  password: z.string().min(1).max(PASSWORD_MAX),
})
export type LoginInput = z.infer<typeof LoginSchema>

/** `PATCH /account`: only the name; `email` and `role` members are ignored. */
export const UpdateAccountSchema = z.object({ name: DisplayNameSchema })
export type UpdateAccountInput = z.infer<typeof UpdateAccountSchema>

/** `DELETE /account`. The password is required for password accounts (checked by the service). */
export const DeleteAccountSchema = z.object({
  confirmEmail: z.string().trim().toLowerCase().min(1).max(320),
  password: z.string().max(PASSWORD_MAX).optional(),
})
export type DeleteAccountInput = z.infer<typeof DeleteAccountSchema>

export const CreateKeySchema = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'Choose at least one scope.')
    .max(SCOPES.length * 2),
})
export type CreateKeyInput = z.infer<typeof CreateKeySchema>

export const CreateAgentSchema = z.object({ name: DisplayNameSchema })
export type CreateAgentInput = z.infer<typeof CreateAgentSchema>

export const ChangeRoleSchema = z.object({ role: z.enum(ROLES) })
export type ChangeRoleInput = z.infer<typeof ChangeRoleSchema>

/** `PATCH /admin/users/{id}`: a new role, deactivation or reactivation (decision 026), or both. */
export const UpdateUserSchema = z
  .object({
    role: z.enum(ROLES).optional(),
    active: z
      .boolean()
      .optional()
      .meta({
        description:
          '`false` deactivates the account: its sessions end at once, it cannot sign in, and its API keys are ' +
          'refused (401) until `true` reactivates it. Its content stays. Never oneself or the last active admin.',
      }),
  })
  .refine((body) => body.role !== undefined || body.active !== undefined, {
    message: 'Give a role, active, or both.',
  })
  .meta({ description: 'At least one of `role` and `active`; both apply together.', minProperties: 1 })
export type UpdateUserInput = z.infer<typeof UpdateUserSchema>

const PageSchema = z.coerce.number().int().min(1).max(100_000).default(1)

export const ListUsersQuerySchema = z.object({
  q: z.string().trim().max(200).optional().meta({ description: 'Part of the email or name, any case.' }),
  role: z.enum(ROLES).optional(),
  authType: z.enum(AUTH_TYPES).optional(),
  page: PageSchema.meta({ description: 'Page number from 1; 50 users per page.' }),
})
export type ListUsersQuery = z.infer<typeof ListUsersQuerySchema>

export const ListAuditQuerySchema = z.object({
  action: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Exact action, e.g. auth.login.' }),
  actorId: z.uuid().optional(),
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Inclusive lower bound (ISO 8601).' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Exclusive upper bound (ISO 8601).' }),
  page: PageSchema.meta({ description: 'Page number from 1; 50 records per page, newest first.' }),
})
export type ListAuditQuery = z.infer<typeof ListAuditQuerySchema>

export const IdParamsSchema = z.object({ id: z.string().min(1).max(100) })

// --- responses (for the OpenAPI document) ---------------------------------------------------------

export const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  authType: z.enum(AUTH_TYPES),
})
export const UserResponseSchema = z.object({ user: UserSchema })

export const UserListItemSchema = UserSchema.extend({
  createdAt: z.string(),
  active: z.boolean().meta({ description: 'false while the account is deactivated (decision 026).' }),
  deactivatedAt: z
    .string()
    .nullable()
    .meta({ description: 'When the account was deactivated; null if active.' }),
})
/** `PATCH /admin/users/{id}`'s answer: the account as the list shows it. */
export const UserListItemResponseSchema = z.object({ user: UserListItemSchema })
export const UserListSchema = z.object({
  items: z.array(UserListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
})

export const KeyListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
})
export const KeyListSchema = z.object({ keys: z.array(KeyListItemSchema) })
export const IssuedKeySchema = z.object({
  key: z.object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.enum(SCOPES)),
  }),
  token: z.string().meta({ description: 'glk_<prefix>_<secret>; shown only in this response.' }),
})

export const AgentCreatedSchema = z.object({
  user: z.object({
    id: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    authType: z.literal('agent'),
  }),
  key: z.object({ name: z.string(), scopes: z.array(z.enum(SCOPES)), token: z.string() }),
})
export const AgentKeysRevokedSchema = z.object({ revoked: z.number().int(), key: z.null() })
export const AgentKeyRotatedSchema = z.object({
  revoked: z.number().int(),
  key: z.object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    token: z.string(),
  }),
})

export const AccountDeletedSchema = z.object({ deleted: z.literal(true) })

export const AuditListSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      at: z.string(),
      action: z.string(),
      actorId: z.string().nullable(),
      actorLabel: z.string().nullable(),
      targetType: z.string().nullable(),
      targetId: z.string().nullable(),
      ip: z.string().nullable(),
      userAgent: z.string().nullable(),
      details: z.record(z.string(), z.unknown()),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
})
