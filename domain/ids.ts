/** Row ids are UUIDs (any version, any case). The one pattern of it; zod's `z.uuid()` checks the API's. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether `value` can be a row id. Services look ids up only when it can: a page address such as
 * `/meetings/abc` reaches them unparsed, and PostgreSQL refuses to compare `abc` with a uuid column (an
 * error, not "no row"), so an impossible id is answered as not found before any query.
 */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value)
}
