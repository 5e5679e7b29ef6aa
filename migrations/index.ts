import type { MigrationObject } from '@mikro-orm/core'
import { Migration20261121000000_init } from './Migration20261121000000_init.ts'
import { Migration20261121000100_users } from './Migration20261121000100_users.ts'
import { Migration20261121000200_auth } from './Migration20261121000200_auth.ts'

/**
 * Every migration in order. Listed explicitly rather than found on disk so that the bundled server build,
 * the CLI and the tests apply exactly the same set. A new migration is added at the end of this list.
 */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_init', class: Migration20261121000000_init },
  { name: 'Migration20261121000100_users', class: Migration20261121000100_users },
  { name: 'Migration20261121000200_auth', class: Migration20261121000200_auth },
]
