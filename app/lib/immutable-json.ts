/**
 * JSON of answers that list frozen items shared between requests: the term lookup remembers its results, frozen,
 * per text until the glossary changes (app/services/validation/lookup.server.ts). Serializing the same results
 * again for every request was a third of a lookup's time (500 results, ~130 KB); here each frozen item is
 * serialized and UTF-8 encoded once, its bytes kept as long as the item lives, and an answer is the
 * concatenation of its items' bytes (docs/decisions/013-letter-case.md, "Speed of the request path").
 * Measured and not kept: joining the items' JSON as text (the 130 KB text is then flattened and encoded for
 * every answer), and a serializer in JavaScript that reused the JSON of nested frozen parts (slower than
 * JSON.stringify on each whole item).
 */

/** Bytes of frozen items. A WeakMap: an item its owner drops (a new snapshot) takes its bytes with it. */
const bytesOfFrozen = new WeakMap<object, Buffer>()

const COMMA = Buffer.from(',')
const END = Buffer.from(']}')

/**
 * The UTF-8 JSON of `value`, whose member `key` lists items: a frozen item's JSON is made once (it must be
 * frozen all the way down, so its JSON never changes: the lookup's results are). The bytes equal
 * `JSON.stringify(value)`'s but for the order of the members (the list comes last).
 */
export function encodeWithFrozenItems(value: Record<string, unknown>, key: string): Buffer {
  const { [key]: items, ...rest } = value
  if (!Array.isArray(items)) return Buffer.from(JSON.stringify(value), 'utf8')
  const others = JSON.stringify(rest)
  const head = Buffer.from(`${others.length > 2 ? `${others.slice(0, -1)},` : '{'}${JSON.stringify(key)}:[`)
  const parts: Buffer[] = [head]
  let total = head.length + END.length
  for (let i = 0; i < items.length; i++) {
    const bytes = itemBytes(items[i])
    if (i > 0) {
      parts.push(COMMA)
      total += 1
    }
    parts.push(bytes)
    total += bytes.length
  }
  parts.push(END)
  return Buffer.concat(parts, total)
}

function itemBytes(item: unknown): Buffer {
  if (typeof item !== 'object' || item === null || !Object.isFrozen(item)) {
    return Buffer.from(JSON.stringify(item) ?? 'null', 'utf8')
  }
  let bytes = bytesOfFrozen.get(item)
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(item), 'utf8')
    bytesOfFrozen.set(item, bytes)
  }
  return bytes
}
