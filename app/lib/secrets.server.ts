import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { getConfig } from './config.server.ts'

/**
 * AES-256-GCM for secrets stored in the database (provider API keys, SSO client secret).
 *
 * The key comes from GLOSSARY_ENCRYPTION_KEY. The zero-configuration embedded default has none, so on first start
 * it generates 48 random bytes into `<GLOSSARY_DATA_DIR>/keys/encryption.key` (mode 0600). The database lives in
 * `<GLOSSARY_DATA_DIR>/db`, so a database backup (that folder, or pg_dump) never contains the key; see
 * docs/decisions/003-encryption-key.md. Production must set the variable.
 */
const VERSION = 'v1'
let cachedKey: Buffer | undefined

export function keyFilePath(dataDir = getConfig().dataDir): string {
  return path.join(dataDir, 'keys', 'encryption.key')
}

/** Reads or (first start, embedded default only) creates the key material. */
export function ensureEncryptionKey(): void {
  cachedKey = undefined
  encryptionKey()
}

function encryptionKey(): Buffer {
  if (cachedKey) return cachedKey
  const config = getConfig()
  let material = config.encryptionKey
  if (!material) {
    const file = keyFilePath()
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
      // `wx` refuses to overwrite a key another process created a moment ago.
      try {
        fs.writeFileSync(file, crypto.randomBytes(48).toString('base64') + '\n', { mode: 0o600, flag: 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    }
    material = fs.readFileSync(file, 'utf8').trim()
  }
  cachedKey = Buffer.from(crypto.hkdfSync('sha256', material, 'glossary-secrets', VERSION, 32))
  return cachedKey
}

/** A 32-byte HMAC key for `purpose` (signed cookies), derived from the same key material as the cipher. */
export function signingKey(purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', encryptionKey(), 'glossary-signing', purpose, 32))
}

export function encryptSecret(plaintext: string): string {
  const iv = crypto.randomBytes(12)
  const cipher = crypto.createCipheriv('aes-256-gcm', encryptionKey(), iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
}

/** Thrown when a stored secret cannot be read (key changed or lost); search maps it to 503 rag_not_ready. */
export class UndecryptableSecretError extends Error {
  constructor() {
    super('A stored secret cannot be decrypted with the current GLOSSARY_ENCRYPTION_KEY.')
    this.name = 'UndecryptableSecretError'
  }
}

export function decryptSecret(stored: string): string {
  const [version, data] = stored.split(':', 2)
  if (version !== VERSION || !data) throw new UndecryptableSecretError()
  try {
    const raw = Buffer.from(data, 'base64')
    const decipher = crypto.createDecipheriv('aes-256-gcm', encryptionKey(), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
  } catch {
    throw new UndecryptableSecretError()
  }
}
