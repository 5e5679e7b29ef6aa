import type { Problem } from './errors.server.ts'

/**
 * How deep a client's JSON may nest arrays and objects (issue 26). The walks that follow a parse (the text
 * rule's, zod's, `JSON.stringify` when a value is stored or answered) recurse, and a body of 5,000 levels
 * overflowed the stack: a 500 on every operation with a JSON body, unauthenticated ones included. No
 * document of this API nests more than a handful of levels, so 64 refuses nothing real.
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/**
 * Whether `text` nests arrays and objects deeper than `limit`. A loop over the text, without recursion and
 * before anything parses it, so the check itself cannot overflow whatever the input; brackets inside strings
 * (escaped quotes included) do not count. Text that is not JSON is left to the parser that comes next.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  if (!opensMoreThan(text, limit)) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) i = closingQuote(text, i)
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--
  }
  return false
}

/**
 * Whether `text` holds more than `limit` opening brackets in all, strings included. Most bodies hold a few (a
 * lookup's 500 texts: two), and then they cannot nest deeper than the limit: counting them with `indexOf` took
 * ~1 µs where the scan took about as long as `JSON.parse` itself (a 15 KB lookup body: ~100 µs each).
 */
function opensMoreThan(text: string, limit: number): boolean {
  let opened = 0
  for (const bracket of ['[', '{']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++opened > limit) return true
    }
  }
  return false
}

/**
 * The index of the quote that ends the string opening at `start` (the text's length when none does). It jumps
 * from quote to quote with `indexOf` rather than looking at every character: the strings are most of a
 * large body (a lookup's 500 texts), and this pass runs on every JSON request.
 */
function closingQuote(text: string, start: number): number {
  let quote = start
  for (;;) {
    quote = text.indexOf('"', quote + 1)
    if (quote === -1) return text.length
    // A quote after an odd number of backslashes is escaped. Each run is counted once: runs end at a quote.
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
  }
}

/** The problem of a JSON text nested deeper than `MAX_JSON_DEPTH`, at `path`, or undefined when it is not. */
export function jsonDepthProblem(text: string, path: string): Problem | undefined {
  if (!nestsDeeperThan(text, MAX_JSON_DEPTH)) return undefined
  return {
    path,
    code: 'too_deep',
    message: `The JSON nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; at most ${MAX_JSON_DEPTH} are accepted.`,
  }
}
