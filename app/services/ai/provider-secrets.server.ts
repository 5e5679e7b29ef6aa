import type { Problem } from '#app/lib/errors.server.ts'
import { decryptSecret, encryptSecret, UndecryptableSecretError } from '#app/lib/secrets.server.ts'

/**
 * The secret rules every provider setting shares (the search settings' embedding and reranker endpoints, the AI
 * provider of the chat; spec PATCH rule 5 and issue 26): an API key and custom header values are write-only,
 * stored as AES-256-GCM ciphertext (`#app/lib/secrets.server.ts`), and leave the server only decrypted into a
 * provider call. Omitted or empty keeps, `null` deletes, a value replaces; a stored secret belongs to the base URL
 * it was entered for. The limits of the input (at most 20 headers, no line breaks, http/https only) are the
 * schemas' (`app/schemas/rag.ts`).
 */

/** A custom header as stored: its value is ciphertext, or `''` once cleared (the name stays, not configured). */
export interface StoredHeader {
  name: string
  value: string
}

/** A header as a PATCH sends it: an empty or missing value keeps the stored value of that name. */
export interface HeaderInput {
  name: string
  value?: string | null
}

/** The headers a provider call sends: a header whose value was cleared (`''`) is not sent at all. */
export function decryptHeaders(headers: readonly StoredHeader[]): Record<string, string> {
  return Object.fromEntries(
    headers.filter((h) => h.value !== '').map((h) => [h.name, decryptSecret(h.value)]),
  )
}

/** A stored key, decrypted; null when none is stored. Throws `UndecryptableSecretError`. */
export function decryptKey(stored: string | null): string | null {
  return stored ? decryptSecret(stored) : null
}

/** The header rows as reads show them: names, and whether a value is stored (never the value). */
export function headersForRead(headers: readonly StoredHeader[]): { name: string; configured: boolean }[] {
  return headers.map((h) => ({ name: h.name, configured: h.value !== '' }))
}

/** Whether every stored secret (keys and header values) can be decrypted with the current key. */
export function secretsReadable(secrets: readonly (string | null)[]): boolean {
  try {
    for (const secret of secrets) if (secret) decryptSecret(secret)
    return true
  } catch (error) {
    if (error instanceof UndecryptableSecretError) return false
    throw error
  }
}

/** Every stored secret of an endpoint's key and headers, for `secretsReadable`. */
export function storedSecrets(key: string | null, headers: readonly StoredHeader[]): (string | null)[] {
  return [key, ...headers.map((h) => h.value)]
}

/** Omitted or empty keeps, `null` deletes, a value replaces (encrypted). */
export function nextKey(stored: string | null, input: string | null | undefined): string | null {
  if (input === undefined || input === '') return stored
  if (input === null) return null
  return encryptSecret(input)
}

/**
 * The header list given is the new list (a stored header missing from it is deleted); an empty value keeps the
 * stored value of that name (case-insensitive), and a new name without a value is a problem at `path.<i>.value`.
 */
export function nextHeaders(
  stored: readonly StoredHeader[],
  input: readonly HeaderInput[] | undefined,
  path: string,
  problems: Problem[],
): StoredHeader[] {
  if (input === undefined) return [...stored]
  return input.flatMap((row, i) => {
    if (row.value) return [{ name: row.name, value: encryptSecret(row.value) }]
    const kept = stored.find((h) => h.name.toLowerCase() === row.name.toLowerCase())
    if (!kept) {
      problems.push({ path: `${path}.${i}.value`, message: `The new header "${row.name}" needs a value.` })
      return []
    }
    return [{ name: row.name, value: kept.value }]
  })
}

/** One endpoint's address and secrets, before or after a change. */
export interface EndpointSecrets {
  baseUrl: string
  apiKey: string | null
  headers: StoredHeader[]
}

/**
 * A stored key and header values belong to the address they were entered for (issue 26): when the base URL
 * changes, those the request does not send again are cleared, so a stored key never follows a changed address to
 * another host. A header keeps its name (value `''`, `configured: false`). A secret stored while the address was
 * still empty belongs to the first address given. Ciphertext equal to the stored one is a value kept from
 * storage: a value sent now is encrypted anew with a fresh IV. Changes `next` in place; answers what it cleared.
 */
export function clearMovedSecrets(
  stored: EndpointSecrets,
  next: EndpointSecrets,
): { apiKey: boolean; headers: boolean } {
  const cleared = { apiKey: false, headers: false }
  if (stored.baseUrl === '' || next.baseUrl === stored.baseUrl) return cleared
  if (next.apiKey !== null && next.apiKey === stored.apiKey) {
    next.apiKey = null
    cleared.apiKey = true
  }
  const kept = new Set(stored.headers.map((h) => h.value).filter((value) => value !== ''))
  if (next.headers.some((h) => kept.has(h.value))) {
    next.headers = next.headers.map((h) => (kept.has(h.value) ? { name: h.name, value: '' } : h))
    cleared.headers = true
  }
  return cleared
}

/**
 * The stored key and header values of an endpoint, decrypted, for a call to `baseUrl` — only when it is the
 * stored address (a model list for another address sends none), and none when they cannot be decrypted.
 */
export function storedAuthFor(
  stored: EndpointSecrets,
  baseUrl: string,
): { apiKey: string | null; headers: Record<string, string> } {
  if (stored.baseUrl !== baseUrl) return { apiKey: null, headers: {} }
  try {
    return { apiKey: decryptKey(stored.apiKey), headers: decryptHeaders(stored.headers) }
  } catch (error) {
    if (error instanceof UndecryptableSecretError) return { apiKey: null, headers: {} }
    throw error
  }
}

/**
 * The names of the fields whose stored value differs, never the values (the audit record). Secrets compare as
 * ciphertext: a kept one is the same text, one sent anew is encrypted with a new IV, so sending a secret counts
 * as a change. `names` renames columns to the API's field names.
 */
export function changedFields<T extends object>(
  before: T,
  after: T,
  names: Partial<Record<keyof T, string>> = {},
): string[] {
  return (Object.keys(after) as (keyof T)[])
    .filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]))
    .map((key) => names[key] ?? String(key))
}
