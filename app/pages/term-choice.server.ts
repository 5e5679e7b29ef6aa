import { readCookie } from '#app/lib/cookies.server.ts'
import { detectLang, fill, LANG_COOKIE, translate, type Lang, type MessageKey } from '#app/lib/i18n.ts'
import { termsNamed, type RelationTermDto } from '#app/services/relations/read.server.ts'

/**
 * Terms taken by name in a form (the relation form's two pickers, the wiki's linked terms), resolved on submit
 * in one place, so a form works the same with JavaScript (the picker fills the chosen term's id) and without it
 * (the typed text is all the server gets):
 * - a chosen id counts while the text still names that term (or the text is empty);
 * - otherwise the text is looked up (`termsNamed`: an address written as such, else a whole name or notation,
 *   letter case and width ignored): one term is the answer, several come back as a choice, none is an error
 *   that names the text and says what to do.
 * Messages are written in the reader's language (the root layout's rule: the `lang` cookie, else
 * Accept-Language).
 */

/** A term as the pickers show it (the relation API's term item: its current revision and definition). */
export type PickedTerm = RelationTermDto

/** The language a page request is answered in, for the messages this module writes. */
export function formLang(request: Request): Lang {
  return detectLang(
    readCookie(request.headers.get('cookie'), LANG_COOKIE),
    request.headers.get('accept-language'),
  )
}

export type TermChoice =
  { ok: true; term: PickedTerm } | { ok: false; message: string; options?: PickedTerm[] }

/**
 * One picker field of a posted form: the typed text `<field>` and the chosen term's id `<field>Id` (the hidden
 * input the picker fills with JavaScript, or the radio of a choice the page offered).
 */
export async function chooseTerm(form: FormData, field: string, lang: Lang): Promise<TermChoice> {
  const text = String(form.get(field) ?? '').trim()
  const id = String(form.get(`${field}Id`) ?? '').trim()
  const say = (key: MessageKey, vars: Record<string, string> = {}) => fill(translate(lang, key), vars)
  if (text === '' && id === '') return { ok: false, message: say('picker.empty') }
  const found = await termsNamed({ texts: text ? [text] : [], ids: id ? [id] : [] })
  const named = found.byText.get(text) ?? []
  const chosen = id ? found.byId.get(id) : undefined
  if (chosen && (text === '' || named.some((term) => term.id === chosen.id)))
    return { ok: true, term: chosen }
  if (named.length === 1) return { ok: true, term: named[0]! }
  if (named.length > 1) return { ok: false, message: say('picker.several', { name: text }), options: named }
  return { ok: false, message: say('picker.unknown', { name: text }) }
}

/** One entry of a list of terms that names several of them, with the terms to choose from. */
export interface EntryChoice {
  entry: string
  options: PickedTerm[]
}

export type TermsChoice =
  { ok: true; terms: PickedTerm[] } | { ok: false; message: string; choices: EntryChoice[] }

/** The name of the radio group that settles which term an ambiguous entry of a list means. */
export function pickFieldOf(field: string, entry: string): string {
  return `${field}Pick.${entry}`
}

/**
 * A list of terms typed in one field (`<field>`: one per line or separated by commas), each entry resolved as
 * `chooseTerm` resolves a text; an entry that names several terms is settled by the radio `<field>Pick.<entry>`
 * when the page offered the choice. Unknown entries are named in one message; ambiguous ones come back as
 * choices.
 */
export async function chooseTerms(form: FormData, field: string, lang: Lang): Promise<TermsChoice> {
  const entries = splitEntries(String(form.get(field) ?? ''))
  const picks = entries.map((entry) => String(form.get(pickFieldOf(field, entry)) ?? ''))
  const found = await termsNamed({ texts: entries, ids: picks.filter(Boolean) })
  const terms: PickedTerm[] = []
  const unknown: string[] = []
  const choices: EntryChoice[] = []
  entries.forEach((entry, index) => {
    const named = found.byText.get(entry) ?? []
    const picked = named.find((term) => term.id === picks[index])
    if (picked || named.length === 1) terms.push(picked ?? named[0]!)
    else if (named.length === 0) unknown.push(entry)
    else choices.push({ entry, options: named })
  })
  const say = (key: MessageKey, vars: Record<string, string> = {}) => fill(translate(lang, key), vars)
  if (unknown.length) {
    const names = unknown.map((entry) => `“${entry}”`).join(', ')
    return { ok: false, message: say('picker.unknownMany', { names }), choices }
  }
  if (choices.length) return { ok: false, message: say('picker.severalMany'), choices }
  return { ok: true, terms: [...new Map(terms.map((term) => [term.id, term])).values()] }
}

/** The entries of a list field: one per line or separated by commas, blanks dropped, each once. */
export function splitEntries(value: string): string[] {
  return [
    ...new Set(
      value
        .split(/[,\n\r]/)
        .map((entry) => entry.trim())
        .filter(Boolean),
    ),
  ]
}
