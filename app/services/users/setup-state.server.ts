import { em } from '#db/orm.ts'
import { anyUserExists } from './store.server.ts'

/** Whether the first administrator exists (the setup page redirects to login once it does). */
export function isSetupDone(): Promise<boolean> {
  return anyUserExists(em())
}
