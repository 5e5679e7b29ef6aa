import { em } from '#db/orm.ts'
import { deleteRunsBefore } from './store.server.ts'

/** The cleanup's step: deletes AI run records started before `before`; answers how many. */
export async function deleteAiRunsOlderThan(before: Date): Promise<number> {
  return deleteRunsBefore(em(), before)
}
