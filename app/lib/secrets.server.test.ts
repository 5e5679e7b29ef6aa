import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from './config.server.ts'
import {
  decryptSecret,
  encryptSecret,
  ensureEncryptionKey,
  keyFilePath,
  UndecryptableSecretError,
} from './secrets.server.ts'
import { testEnv } from '#tests/setup/test-env.ts'

afterEach(() => {
  setConfig(parseConfig(testEnv()))
  ensureEncryptionKey()
})

describe('stored secrets', () => {
  it('round-trips with AES-256-GCM and a fresh IV each time', () => {
    const a = encryptSecret('sk-provider-key')
    const b = encryptSecret('sk-provider-key')
    expect(a).not.toBe(b)
    expect(a).not.toContain('sk-provider-key')
    expect(decryptSecret(a)).toBe('sk-provider-key')
  })

  it('cannot be read under another key, nor after tampering', () => {
    const stored = encryptSecret('secret')
    setConfig(parseConfig(testEnv({ GLOSSARY_ENCRYPTION_KEY: 'another-key-another-key-another-key!' })))
    ensureEncryptionKey()
    expect(() => decryptSecret(stored)).toThrow(UndecryptableSecretError)
    setConfig(parseConfig(testEnv()))
    ensureEncryptionKey()
    const tampered = stored.slice(0, -2) + (stored.endsWith('AA') ? 'BB' : 'AA')
    expect(() => decryptSecret(tampered)).toThrow(UndecryptableSecretError)
    expect(() => decryptSecret('garbage')).toThrow(UndecryptableSecretError)
  })

  it('the embedded default generates a 0600 key file beside (not inside) the database folder, once', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-key-'))
    setConfig(parseConfig({ ...testEnv(), GLOSSARY_ENCRYPTION_KEY: undefined, GLOSSARY_DATA_DIR: dataDir }))
    ensureEncryptionKey()
    const file = keyFilePath()
    expect(file).toBe(path.join(dataDir, 'keys', 'encryption.key'))
    expect(path.relative(path.join(dataDir, 'db'), file).startsWith('..')).toBe(true)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const stored = encryptSecret('kept across restarts')
    const material = fs.readFileSync(file, 'utf8')
    ensureEncryptionKey() // a restart reads the same file
    expect(fs.readFileSync(file, 'utf8')).toBe(material)
    expect(decryptSecret(stored)).toBe('kept across restarts')
  })
})
