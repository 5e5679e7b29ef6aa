import fs from 'node:fs'
import { getConfig } from '#app/lib/config.server.ts'
import { keyFilePath } from '#app/lib/secrets.server.ts'

/**
 * Where the encryption key of this installation is: never inside a backup, so the operator keeps it apart
 * (docs/decisions/003-encryption-key.md). `present` is false when neither the variable nor the key file exists
 * (then no stored secret can be read, and nothing here creates a key).
 */
export function encryptionKeyLocation(): { where: string; present: boolean } {
  const config = getConfig()
  if (config.encryptionKey)
    return { where: 'the environment variable GLOSSARY_ENCRYPTION_KEY', present: true }
  const file = keyFilePath()
  return { where: `the key file ${file}`, present: fs.existsSync(file) }
}
