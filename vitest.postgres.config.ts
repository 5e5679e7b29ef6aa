import { defineConfig } from 'vitest/config'
import base from './vitest.config.ts'

/**
 * The database-facing tests again, on the machine's PostgreSQL (issue 28): the production engine. Every file
 * opens its database through tests/setup/db.ts, which `GLOSSARY_TEST_ENGINE` points at a copy of the run's
 * migrated template on PostgreSQL (tests/setup/postgres.ts). scripts/test.sh runs this after the embedded pass.
 */
export default defineConfig({
  test: {
    ...base.test,
    name: 'postgres',
    env: { GLOSSARY_TEST_ENGINE: 'postgres' },
    include: [
      'db/migrator.test.ts',
      'pipeline/worker.test.ts',
      'tests/integration/{chat,content,glossary,identity,ops,search,share,sso,sync}/**/*.test.ts',
      // Text the database cannot store (the drivers differ); the import template's dry run.
      'tests/integration/{hardening,import-template,lost-connection}.test.ts',
      // GET /metrics: the scrape-time reads of the queue, heartbeats and the connection pool.
      'tests/integration/metrics/**/*.test.ts',
      // Backup, verify-backup and restore: pg_dump and pg_restore against the machine's server.
      'tests/integration/backup/**/*.test.ts',
      // MCP at /mcp: the tools' service calls, the key check and the chat's conversation rows.
      'tests/integration/mcp/**/*.test.ts',
    ],
    exclude: [
      ...(base.test?.exclude ?? []),
      // Already compare both engines themselves.
      'tests/integration/special-characters.test.ts',
      'tests/integration/identity/deactivate.test.ts',
      // About the embedded engine only: its commit notifications feed the key cache.
      'tests/integration/identity/key-cache.test.ts',
      // Wording, cookies, redirects, headers and markup: the SQL under them runs in the files above. The other
      // files of tests/integration/ (pages, the API's HTTP boundary, access rules, the OpenAPI document) are
      // left out for the same reason; special-characters.test.ts sweeps the whole API on both engines.
      'tests/integration/content/markdown.test.ts',
      'tests/integration/glossary/{action-flashes,history-pages,ui-labels}.test.ts',
      'tests/integration/identity/{cookies,return-addresses}.test.ts',
      'tests/integration/share/embed-csp.test.ts',
      'tests/integration/sso/failure-pages.test.ts',
    ],
  },
})
