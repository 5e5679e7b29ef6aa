import fs from 'node:fs'
import path from 'node:path'

/** Scratch space of the test runs (git-ignored). Each `vitest run` works in its own `run-*` folder below it. */
export const TEST_TMP = path.resolve('tests/.tmp')

/** The two engines the database-facing tests run on: embedded PGlite, and the machine's PostgreSQL. */
export type TestEngine = 'pglite' | 'postgres'

/**
 * The engine of a run: `GLOSSARY_TEST_ENGINE` (vitest.postgres.config.ts sets `postgres`), else the embedded
 * one. `env` is the workers' environment; global setup passes the one its config gives them.
 */
export function testEngine(env: Record<string, string | undefined> = process.env): TestEngine {
  const value = env.GLOSSARY_TEST_ENGINE || 'pglite'
  if (value !== 'pglite' && value !== 'postgres') {
    throw new Error(`GLOSSARY_TEST_ENGINE must be "pglite" or "postgres", not "${value}".`)
  }
  return value
}

/** The embedded engine's migrated template of this run, made by global-setup.ts (not in a PostgreSQL run). */
export function templatePath(): string {
  const file = process.env.GLOSSARY_TEST_TEMPLATE
  if (!file)
    throw new Error('GLOSSARY_TEST_TEMPLATE is not set: run the tests through vitest (global setup).')
  if (!fs.existsSync(file))
    throw new Error('This run made no embedded template: it runs on PostgreSQL (GLOSSARY_TEST_ENGINE).')
  return file
}

/** The environment every test process starts from: embedded database in a temp folder, quiet logs. */
export function testEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const runDir = process.env.GLOSSARY_TEST_TEMPLATE
    ? path.dirname(process.env.GLOSSARY_TEST_TEMPLATE)
    : TEST_TMP
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    GLOSSARY_DATA_DIR: path.join(runDir, `data-${process.env.VITEST_POOL_ID ?? '0'}-${process.pid}`),
    GLOSSARY_ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef0123456789',
    PORT: '3000',
    ...extra,
  }
}
