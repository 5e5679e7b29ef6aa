import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'
import { recordAudit, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { verifyPassword } from '#app/services/auth/password.server.ts'
import { deleteUserKeys, deleteUserSessions, lockAdmins } from '#app/services/auth/store.server.ts'
import { blockIdentitiesOf } from '#app/services/sso/accounts.server.ts'
import { deleteChatHistory } from '#app/services/chat/chat.server.ts'
import { deleteUserRow, selectUser } from './store.server.ts'
import { assertNotLastAdmin, userTarget } from './users.server.ts'

/**
 * What an account's deletion removes besides the `users` row, run in order inside the deleting transaction.
 * A feature that keeps private per-user data adds its step here.
 *
 * - Private chat history: the user's conversations and their messages (`deleteChatHistory`; their foreign keys
 *   to `users` also say `on delete cascade`, which the final row delete would apply).
 * - SSO identities: their SHA-256 is kept in `sso_identity_blocks` (spec accounts rule 5, decision 018) before the
 *   `user_identities` rows cascade away.
 *
 * Terms and revisions are NOT removed: their `author_id … references users on delete set null` clears the
 * author link when the row below is deleted. `user_identities` rows cascade with the account.
 */
export interface AccountCleanupStep {
  name: string
  run(tx: EntityManager, userId: string): Promise<unknown>
}

export const ACCOUNT_CLEANUP_STEPS: AccountCleanupStep[] = [
  { name: 'sessions', run: deleteUserSessions },
  { name: 'api keys', run: deleteUserKeys },
  { name: 'chat history', run: deleteChatHistory },
  { name: 'sso identities blocked', run: blockIdentitiesOf },
]

/**
 * `DELETE /account`: the signed-in user deletes their own account after confirming the email (and, for a
 * password account, the password). The last admin cannot. The email may then register again, as a viewer.
 */
export async function deleteOwnAccount(options: {
  userId: string
  confirmEmail: string
  password?: string
  client: ClientInfo
}): Promise<void> {
  const manager = em()
  const user = await selectUser(manager, options.userId)
  if (!user) throw new AppError('not_found', 'This account no longer exists.')
  if (options.confirmEmail.trim().toLowerCase() !== user.email) {
    throw new AppError('forbidden', 'The confirmation email does not match this account.')
  }
  if (user.authType === 'password') {
    if (!options.password) {
      throw validationError([
        { path: 'password', message: 'Enter your password to delete a password account.' },
      ])
    }
    if (!user.passwordHash || !(await verifyPassword(user.passwordHash, options.password))) {
      throw new AppError('forbidden', 'The password does not match.')
    }
  }
  await manager.transactional(async (tx) => {
    await lockAdmins(tx)
    // The role is read again under the lock: it may have changed since the checks above.
    const current = await selectUser(tx, user.id)
    if (!current) throw new AppError('not_found', 'This account no longer exists.')
    if (current.role === 'admin') {
      await assertNotLastAdmin(tx, user.id, 'The last admin cannot delete their account.')
    }
    const removed: Record<string, number> = {}
    for (const step of ACCOUNT_CLEANUP_STEPS) {
      const result = await step.run(tx, user.id)
      if (typeof result === 'number') removed[step.name] = result
    }
    await deleteUserRow(tx, user.id)
    await recordAudit(
      {
        action: 'account.delete',
        actor: { userId: user.id, label: user.email },
        target: userTarget(user.id),
        client: options.client,
        details: { email: user.email, role: current.role, authType: current.authType, removed },
      },
      tx,
    )
  })
}
