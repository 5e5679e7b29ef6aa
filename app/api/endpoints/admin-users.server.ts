import {
  AgentCreatedSchema,
  AgentKeyRotatedSchema,
  AgentKeysRevokedSchema,
  AuditListSchema,
  CreateAgentSchema,
  IdParamsSchema,
  ListAuditQuerySchema,
  ListUsersQuerySchema,
  UpdateUserSchema,
  UserListItemResponseSchema,
  UserListSchema,
} from '#app/schemas/identity.ts'
import { listAudit } from '#app/services/audit/audit.server.ts'
import { createAgent, revokeAgentKeys, rotateAgentKey } from '#app/services/users/agents.server.ts'
import { listUsers, updateUser } from '#app/services/users/users.server.ts'
import { endpoint, type Endpoint } from '../endpoint.server.ts'
import { auditActorOf, clientOf } from './identity.server.ts'

/**
 * User administration (admin session only; API keys never reach these): agent accounts and their keys as the
 * spec lists them, plus the user list, role changes, deactivation and the audit log the spec implies
 * (docs/decisions/004-identity.md, 026-deactivating-users.md).
 */

const ADMIN = { kind: 'session', minRole: 'admin' } as const
const TAG = 'admin'

export const ADMIN_USER_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/admin/users',
    operationId: 'listUsers',
    summary: 'List accounts (50 per page), filtered by text, role and kind',
    tag: TAG,
    access: ADMIN,
    query: ListUsersQuerySchema,
    response: UserListSchema,
    handler: async (ctx) => listUsers(ctx.query),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/users',
    operationId: 'createAgent',
    summary: 'Create an API-only agent account with its first key',
    description:
      'The agent is an `editor` with `authType` `agent`; its key has `read`, `write` and `validate`. The ' +
      'token appears only in this answer.',
    tag: TAG,
    access: ADMIN,
    body: CreateAgentSchema,
    successStatus: 201,
    response: AgentCreatedSchema,
    handler: async (ctx) =>
      createAgent({ name: ctx.body.name, actor: auditActorOf(ctx.actor), client: clientOf(ctx) }),
  }),
  endpoint({
    method: 'PATCH',
    path: '/admin/users/{id}',
    operationId: 'updateUser',
    summary: 'Change an account\u2019s role, or deactivate or reactivate it',
    description:
      '`role`: viewer \u2194 editor, and granting or revoking admin. The last active admin keeps the role and ' +
      'an agent can never become admin (403). Lowering an account to viewer removes `write` from its active ' +
      'keys. `active`: `false` deactivates the account (its sessions end at once; it cannot sign in, by ' +
      'password or SSO, and its API keys answer 401 like unknown keys; its terms, revisions and authorship ' +
      'stay), `true` reactivates it (its keys work again; it signs in again). An admin cannot deactivate ' +
      'themselves, nor the last active admin (403). Both members may be given at once; at least one is needed.',
    tag: TAG,
    access: ADMIN,
    params: IdParamsSchema,
    body: UpdateUserSchema,
    response: UserListItemResponseSchema,
    errors: ['not_found'],
    handler: async (ctx) => ({
      user: await updateUser({
        userId: ctx.params.id,
        role: ctx.body.role,
        active: ctx.body.active,
        actor: auditActorOf(ctx.actor),
        client: clientOf(ctx),
      }),
    }),
  }),
  endpoint({
    method: 'DELETE',
    path: '/admin/users/{id}/keys',
    operationId: 'revokeAgentKeys',
    summary: 'Revoke every key of an agent',
    description: 'Agents only: an ordinary account answers 403.',
    tag: TAG,
    access: ADMIN,
    params: IdParamsSchema,
    response: AgentKeysRevokedSchema,
    errors: ['not_found'],
    handler: async (ctx) => {
      const { revoked, key } = await revokeAgentKeys({
        userId: ctx.params.id,
        actor: auditActorOf(ctx.actor),
        client: clientOf(ctx),
      })
      return { revoked, key }
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admin/users/{id}/keys',
    operationId: 'rotateAgentKey',
    summary: 'Revoke every key of an agent and issue one new key',
    description:
      'Agents only (an ordinary account answers 403). A viewer agent\u2019s new key gets only `read` and ' +
      '`validate`. The token appears only in this answer.',
    tag: TAG,
    access: ADMIN,
    params: IdParamsSchema,
    successStatus: 201,
    response: AgentKeyRotatedSchema,
    errors: ['not_found'],
    handler: async (ctx) => {
      const { revoked, key } = await rotateAgentKey({
        userId: ctx.params.id,
        actor: auditActorOf(ctx.actor),
        client: clientOf(ctx),
      })
      return { revoked, key }
    },
  }),
  endpoint({
    method: 'GET',
    path: '/admin/audit',
    operationId: 'listAudit',
    summary: 'Audit records, newest first (50 per page)',
    tag: TAG,
    access: ADMIN,
    query: ListAuditQuerySchema,
    response: AuditListSchema,
    handler: async (ctx) =>
      listAudit({
        ...ctx.query,
        from: ctx.query.from ? new Date(ctx.query.from) : undefined,
        to: ctx.query.to ? new Date(ctx.query.to) : undefined,
      }),
  }),
]
