import { em } from '#db/orm.ts'
import type { ActorUser } from '#domain/identity.ts'
import { userHasIdentity } from './store.server.ts'

/** Whether an account may use sso-refresh: an SSO account, or one with a linked company identity. */
export async function userHasIdentityOrSso(user: ActorUser): Promise<boolean> {
  return user.authType === 'sso' || userHasIdentity(em(), user.id)
}
