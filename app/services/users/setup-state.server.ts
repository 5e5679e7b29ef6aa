import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'

/** Whether the first administrator exists (the setup page redirects to login once it does). */
export async function isSetupDone(): Promise<boolean> {
  return (await em().count(User, {})) > 0
}
