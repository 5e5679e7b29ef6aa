import crypto from 'node:crypto'
import os from 'node:os'
import type { EntityManager } from '@mikro-orm/postgresql'
import { getConfig } from '#app/lib/config.server.ts'
import { insertSettingIfAbsent, selectSetting } from '#app/services/settings/store.server.ts'
import { em } from '#db/orm.ts'
import { parseJson } from '#db/sql.ts'

/** The `app_setting` row of this installation's origin (decision 031, "Identity and hashes"). */
const SYNC_ORIGIN_KEY = 'sync.origin'

interface StoredOrigin {
  id: string
  name: string
}

/**
 * This installation's origin: a UUID made once (app_setting `sync.origin`) and its display name. Two processes
 * making it at once agree on one (`on conflict do nothing`, then read). The name is GLOSSARY_SYNC_NAME while it
 * is set, else the one stored with the id (the host name then): a container's host name changes with every
 * new container, and the receivers show the name next to everything they applied.
 */
export async function syncOrigin(manager: EntityManager = em()): Promise<{ id: string; name: string }> {
  const configured = getConfig().syncName
  const read = async () => {
    const row = await selectSetting(manager, SYNC_ORIGIN_KEY)
    return row && parseJson<StoredOrigin>(row.value)
  }
  let stored = await read()
  if (!stored) {
    await insertSettingIfAbsent(manager, SYNC_ORIGIN_KEY, {
      id: crypto.randomUUID(),
      name: configured ?? hostName(),
    } satisfies StoredOrigin)
    stored = (await read())!
  }
  return { id: stored.id, name: configured ?? stored.name }
}

/** The host name, cut to the bundle's limit of a name; "glossary" when the system has none. */
function hostName(): string {
  return os.hostname().trim().slice(0, 200) || 'glossary'
}
