import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { issueApiKey, scopesForRole } from '#app/services/auth/api-keys.server.ts'
import { revokeUserKeyRows } from '#app/services/auth/store.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import { insertUser, selectUser, type UserRecord } from './store.server.ts'
import { userTarget } from './users.server.ts'
import type { Role, Scope } from '#domain/identity.ts'

/**
 * Agent accounts: API-only accounts (no password, no session) for tools and bots, managed by admins. An agent
 * starts as `editor` with one key for `read`, `write` and `validate`; it can be lowered to viewer (its keys
 * then lose `write`) but never becomes admin.
 */

/**
 * Agents still need a unique email (the column is required). `.invalid` is reserved (RFC 2606): it is no
 * one's real address, and a random part makes it unguessable, so registration can never collide with it.
 */
function agentEmail(): string {
  return `agent-${crypto.randomUUID()}@agents.invalid`
}

function keyName(agentName: string): string {
  return `${agentName.slice(0, 60)} key ${new Date().toISOString().slice(0, 10)}`
}

/** `POST /admin/users`: creates an agent with its first key; the token appears only in this answer. */
export async function createAgent(options: { name: string; actor: AuditActor; client: ClientInfo }): Promise<{
  user: { id: string; name: string; role: Role; authType: 'agent' }
  key: { name: string; scopes: Scope[]; token: string }
}> {
  return em().transactional(async (tx) => {
    const user = await insertUser(tx, {
      email: agentEmail(),
      name: options.name,
      role: 'editor',
      authType: 'agent',
      passwordHash: null,
    })
    const { key, token } = await issueApiKey(
      { userId: user.id, name: keyName(user.name), scopes: scopesForRole(user.role) },
      tx,
    )
    await recordAudit(
      {
        action: 'agent.create',
        actor: options.actor,
        target: userTarget(user.id),
        client: options.client,
        details: { name: user.name, role: user.role, keyId: key.id, prefix: key.prefix, scopes: key.scopes },
      },
      tx,
    )
    return {
      user: { id: user.id, name: user.name, role: user.role, authType: 'agent' },
      key: { name: key.name, scopes: key.scopes, token },
    }
  })
}

/** The agent behind `id`; 404 when unknown, 403 for an ordinary account (its keys are its owner's business). */
async function findAgent(tx: EntityManager, id: string): Promise<UserRecord> {
  const user = isUuid(id) ? await selectUser(tx, id) : undefined
  if (!user) throw new AppError('not_found', 'No such user.')
  if (user.authType !== 'agent') {
    throw new AppError('forbidden', 'Only agent accounts have their keys managed here.')
  }
  return user
}

interface AgentKeyOptions {
  userId: string
  actor: AuditActor
  client: ClientInfo
}

type IssuedKey = { id: string; name: string; prefix: string; scopes: Scope[]; token: string }

/** Which agent an operation acted on, for the page's confirmation (not part of the API's answer). */
type AgentName = { id: string; name: string }

/**
 * What revoking and rotating share, in one transaction: every key of the agent revoked, then (rotation) one
 * new key issued, and the audit row naming what happened.
 */
async function replaceAgentKeys(
  options: AgentKeyOptions,
  issue: boolean,
): Promise<{ revoked: number; key: IssuedKey | null; agent: AgentName }> {
  return em().transactional(async (tx) => {
    const agent = await findAgent(tx, options.userId)
    const revoked = await revokeUserKeyRows(tx, agent.id)
    const issued = issue
      ? await issueApiKey(
          { userId: agent.id, name: keyName(agent.name), scopes: scopesForRole(agent.role) },
          tx,
        )
      : null
    const key = issued && { ...keyFields(issued.key), token: issued.token }
    await recordAudit(
      {
        action: key ? 'agent.keys_rotate' : 'agent.keys_revoke',
        actor: options.actor,
        target: userTarget(agent.id),
        client: options.client,
        details: {
          name: agent.name,
          revoked,
          ...(key && { keyId: key.id, prefix: key.prefix, scopes: key.scopes }),
        },
      },
      tx,
    )
    return { revoked, key, agent: { id: agent.id, name: agent.name } }
  })
}

function keyFields(key: Omit<IssuedKey, 'token'>): Omit<IssuedKey, 'token'> {
  return { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes }
}

/** `DELETE /admin/users/{id}/keys`: revokes every key of an agent. */
export async function revokeAgentKeys(
  options: AgentKeyOptions,
): Promise<{ revoked: number; key: null; agent: AgentName }> {
  const { revoked, agent } = await replaceAgentKeys(options, false)
  return { revoked, key: null, agent }
}

/**
 * `POST /admin/users/{id}/keys`: revokes every key of an agent and issues one new key, shown once. Its
 * scopes follow the agent's role: a viewer agent gets only `read` and `validate`.
 */
export async function rotateAgentKey(
  options: AgentKeyOptions,
): Promise<{ revoked: number; key: IssuedKey; agent: AgentName }> {
  const { revoked, key, agent } = await replaceAgentKeys(options, true)
  if (!key) throw new Error('a rotation issues a key')
  return { revoked, key, agent }
}
