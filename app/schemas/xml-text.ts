import type { z } from 'zod'

/**
 * The characters XML 1.0 cannot carry at all (outside its `Char` production): the C0 controls other than tab,
 * LF and CR, and U+FFFE and U+FFFF. NUL and lone surrogates are refused earlier, for every input, by the text
 * rule (app/lib/text-input.ts). Names, notations and definitions are written to TBX (XML), so such a character
 * would either make the file unreadable or have to be dropped there; refusing it at input keeps every export
 * exactly what was stored (docs/decisions/012-hardening.md, round two).
 */
// eslint-disable-next-line no-control-regex -- the class lists the control characters XML refuses, on purpose
const XML_INCOMPATIBLE = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/

/** The rule in words, for the OpenAPI descriptions of the schemas that apply it. */
export const XML_TEXT_RULE =
  'Names, notations and definitions may not contain control characters other than tab, LF and CR, nor U+FFFE or U+FFFF (XML 1.0, and so the TBX export, cannot carry them): 400 `validation_failed` naming the field.'

/** Why `value` cannot be written to XML, naming its first such character, or undefined when it can. */
function xmlCharDefect(value: string): string | undefined {
  const found = XML_INCOMPATIBLE.exec(value)
  if (!found) return undefined
  const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')
  const what = found[0] < ' ' ? 'a control character' : 'a noncharacter'
  return `Contains U+${code} (${what}), which XML 1.0 and so the TBX export cannot carry; remove it.`
}

/** `schema` refusing what xmlCharDefect finds, so the API, page forms and import share one rule. */
export function xmlText<T extends z.ZodString>(schema: T): T {
  return schema.check((ctx) => {
    const message = xmlCharDefect(ctx.value)
    if (message) ctx.issues.push({ code: 'custom', message, input: ctx.value })
  }) as T
}
