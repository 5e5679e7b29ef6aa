import path from 'node:path'

/** The environment every test process starts from: embedded database in a temp folder, quiet logs. */
export const TEST_TMP = path.resolve('tests/.tmp')
export const TEMPLATE_PATH = path.join(TEST_TMP, 'template.tar.gz')

export function testEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    GLOSSARY_DATA_DIR: path.join(TEST_TMP, `data-${process.env.VITEST_POOL_ID ?? '0'}-${process.pid}`),
    GLOSSARY_ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef0123456789',
    PORT: '3000',
    ...extra,
  }
}
