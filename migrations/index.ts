import type { MigrationObject } from '@mikro-orm/core'
import { Migration20261121000000_init } from './Migration20261121000000_init.ts'
import { Migration20261121000100_users } from './Migration20261121000100_users.ts'
import { Migration20261121000200_auth } from './Migration20261121000200_auth.ts'
import { Migration20261121000300_identity } from './Migration20261121000300_identity.ts'
import { Migration20261121000400_glossary } from './Migration20261121000400_glossary.ts'
import { Migration20261121000500_content } from './Migration20261121000500_content.ts'
import { Migration20261121000600_trigram } from './Migration20261121000600_trigram.ts'
import { Migration20261121000700_case_distinct_notations } from './Migration20261121000700_case_distinct_notations.ts'
import { Migration20261121000800_import_job_input } from './Migration20261121000800_import_job_input.ts'
import { Migration20261121000900_index_queue_action } from './Migration20261121000900_index_queue_action.ts'
import { Migration20261123000100_credentials_notify } from './Migration20261123000100_credentials_notify.ts'
import { Migration20261123001000_rag } from './Migration20261123001000_rag.ts'
import { Migration20261123002000_sso } from './Migration20261123002000_sso.ts'
import { Migration20261123003000_glossary_notify } from './Migration20261123003000_glossary_notify.ts'
import { Migration20261126001000_sso_used_states } from './Migration20261126001000_sso_used_states.ts'
import { Migration20261127001000_users_deactivated } from './Migration20261127001000_users_deactivated.ts'
import { Migration20261128001000_index_driver } from './Migration20261128001000_index_driver.ts'
import { Migration20261129001000_reindex_runs } from './Migration20261129001000_reindex_runs.ts'
import { Migration20261201001000_ai_run_indexes } from './Migration20261201001000_ai_run_indexes.ts'
import { Migration20261201002000_ai_provider } from './Migration20261201002000_ai_provider.ts'
import { Migration20261201003000_chat } from './Migration20261201003000_chat.ts'
import { Migration20261202001000_sync } from './Migration20261202001000_sync.ts'
import { Migration20261203001000_release } from './Migration20261203001000_release.ts'
import { Migration20261203002000_wiki_term_links } from './Migration20261203002000_wiki_term_links.ts'
import { Migration20261204001000_hnsw_build_breadth } from './Migration20261204001000_hnsw_build_breadth.ts'
import { Migration20261205001000_embedded_chunk_seq } from './Migration20261205001000_embedded_chunk_seq.ts'

/**
 * Every migration in order. Listed explicitly rather than found on disk so that the bundled server build,
 * the CLI and the tests apply exactly the same set. A new migration is added at the end of this list.
 */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_init', class: Migration20261121000000_init },
  { name: 'Migration20261121000100_users', class: Migration20261121000100_users },
  { name: 'Migration20261121000200_auth', class: Migration20261121000200_auth },
  { name: 'Migration20261121000300_identity', class: Migration20261121000300_identity },
  { name: 'Migration20261121000400_glossary', class: Migration20261121000400_glossary },
  { name: 'Migration20261121000500_content', class: Migration20261121000500_content },
  { name: 'Migration20261121000600_trigram', class: Migration20261121000600_trigram },
  {
    name: 'Migration20261121000700_case_distinct_notations',
    class: Migration20261121000700_case_distinct_notations,
  },
  { name: 'Migration20261121000800_import_job_input', class: Migration20261121000800_import_job_input },
  { name: 'Migration20261121000900_index_queue_action', class: Migration20261121000900_index_queue_action },
  { name: 'Migration20261123000100_credentials_notify', class: Migration20261123000100_credentials_notify },
  { name: 'Migration20261123001000_rag', class: Migration20261123001000_rag },
  { name: 'Migration20261123002000_sso', class: Migration20261123002000_sso },
  { name: 'Migration20261123003000_glossary_notify', class: Migration20261123003000_glossary_notify },
  { name: 'Migration20261126001000_sso_used_states', class: Migration20261126001000_sso_used_states },
  { name: 'Migration20261127001000_users_deactivated', class: Migration20261127001000_users_deactivated },
  { name: 'Migration20261128001000_index_driver', class: Migration20261128001000_index_driver },
  { name: 'Migration20261129001000_reindex_runs', class: Migration20261129001000_reindex_runs },
  { name: 'Migration20261201001000_ai_run_indexes', class: Migration20261201001000_ai_run_indexes },
  { name: 'Migration20261201002000_ai_provider', class: Migration20261201002000_ai_provider },
  { name: 'Migration20261201003000_chat', class: Migration20261201003000_chat },
  { name: 'Migration20261202001000_sync', class: Migration20261202001000_sync },
  { name: 'Migration20261203001000_release', class: Migration20261203001000_release },
  { name: 'Migration20261203002000_wiki_term_links', class: Migration20261203002000_wiki_term_links },
  { name: 'Migration20261204001000_hnsw_build_breadth', class: Migration20261204001000_hnsw_build_breadth },
  { name: 'Migration20261205001000_embedded_chunk_seq', class: Migration20261205001000_embedded_chunk_seq },
]
