import type { EntityManager } from '@mikro-orm/postgresql'
import { uuidArray } from '#db/sql.ts'

/** The definitions a term link shows (the current revision's), by term id. */
export async function selectDefinitions(
  manager: EntityManager,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map()
  const rows = await manager.execute<{ id: string; definition: string }[]>(
    `select t.id, coalesce(r.content->>'definition', '') as definition
       from terms t join term_revisions r on r.term_id = t.id and r.revision = t.revision
      where t.id = any(?::uuid[])`,
    [uuidArray(ids)],
  )
  return new Map(rows.map((r) => [r.id, r.definition]))
}
