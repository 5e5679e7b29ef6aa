import {
  AgentCreatedSchema,
  AgentKeyRotatedSchema,
  AgentKeysRevokedSchema,
  AuditListSchema,
  ChangeRoleSchema,
  CreateAgentSchema,
  IdParamsSchema,
  ListAuditQuerySchema,
  ListUsersQuerySchema,
  UserListSchema,
  UserResponseSchema,
} from '#app/schemas/identity.ts'
import { listAudit } from '#app/services/audit/audit.server.ts'
import { createAgent, revokeAgentKeys, rotateAgentKey } from '#app/services/users/agents.server.ts'
import { changeUserRole, listUsers } from '#app/services/users/users.server.ts'
import { endpoint, type Endpoint } from '../endpoint.server.ts'
import { auditActorOf, clientOf } from './identity.server.ts'

/**
 * User administration (admin session only; API keys never reach these): agent accounts and their keys as the
 * spec lists them, plus the user list, role changes and the audit log the spec implies
 * (docs/decisions/004-identity.md).
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
    operationId: 'changeUserRole',
    summary: 'Change an account\u2019s role',
    description:
      'viewer \u2194 editor, and granting or revoking admin. The last admin keeps the role and an agent can ' +
      'never become admin (403). Lowering an account to viewer removes `write` from its active keys.',
    tag: TAG,
    access: ADMIN,
    params: IdParamsSchema,
    body: ChangeRoleSchema,
    response: UserResponseSchema,
    errors: ['not_found'],
    handler: async (ctx) => ({
      user: await changeUserRole({
        userId: ctx.params.id,
        role: ctx.body.role,
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
    handler: async (ctx) =>
      revokeAgentKeys({ userId: ctx.params.id, actor: auditActorOf(ctx.actor), client: clientOf(ctx) }),
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
    handler: async (ctx) =>
      rotateAgentKey({ userId: ctx.params.id, actor: auditActorOf(ctx.actor), client: clientOf(ctx) }),
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
