import { create, fragment } from 'xmlbuilder2'
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js'
import type { NotationKind } from '#domain/terms.ts'
import {
  classificationScheme,
  exportBase,
  formLang,
  termBatches,
  type ClassificationDto,
  type ExportTerm,
} from './terms-source.server.ts'

/** TBX v3 (ISO 30042:2019), the TBX-Basic dialect in its DCA style. */
export const TBX_NAMESPACE = 'urn:iso:std:iso:30042:ed-2'

/** TBX-Basic's picklist of `administrativeStatus`, by notation kind. Names are preferred. */
export const ADMINISTRATIVE_STATUS: Record<NotationKind, string> = {
  preferred: 'preferredTerm-admn-sts',
  admitted: 'admittedTerm-admn-sts',
  deprecated: 'deprecatedTerm-admn-sts',
}

/** Where the concept entries go in the serialized envelope. */
const ENTRIES = 'concept entries'

/**
 * What to hand xmlbuilder2 so that a parser reads back exactly `value`. Its serializer (4.0.3, BaseWriter's
 * `nonEntityAmpersandRegex`) escapes `&` only where it does not already start something shaped like a
 * reference, so `Ent &bogus; x` went out as an undefined entity and `&amp;` came back as `&`. Writing every
 * `&` as `&amp;` here leaves it nothing to guess (it keeps those references; `<` and `>` it escapes itself).
 * CR is written as a reference because a parser reads a raw one as LF (XML end-of-line handling); in an
 * attribute, tab and LF too, which a parser would read as spaces. Characters XML cannot carry at all are
 * refused at input (app/schemas/xml-text.ts); BUILDER turns any stored before that rule into U+FFFD.
 */
const builderText = (value: string) => value.replace(/&/g, '&amp;').replace(/\r/g, '&#13;')
const builderAttr = (value: string) => builderText(value).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;')
const BUILDER = { invalidCharReplacement: '\uFFFD' } as const

/**
 * `terms.tbx`: one `conceptEntry` per term (id `t-<uuid>`), its domains as `subjectField`, a link to its page,
 * and one `langSec` per language holding a `termSec` per name and notation with its `administrativeStatus`;
 * the definition goes in the language section of its own language (Hangul → ko, else en; else the first).
 * xmlbuilder2 writes the envelope once (split where the entries go) and each entry as a fragment of its own,
 * so the cost is linear in the number of terms and one batch is in memory at a time. (Its streaming
 * callback builder was tried first: it slows down as the document grows, 1.5 ms per entry by 2,000.)
 */
export async function* termsTbx(): AsyncGenerator<string> {
  const { domains } = await classificationScheme()
  const envelope = create({ ...BUILDER, version: '1.0', encoding: 'UTF-8' })
    .ele(TBX_NAMESPACE, 'tbx', { type: 'TBX-Basic', style: 'dca', 'xml:lang': 'en' })
    .ele('tbxHeader')
    .ele('fileDesc')
    .ele('sourceDesc')
    .ele('p')
    .txt(builderText(`Exported from the glossary at ${exportBase()} on ${new Date().toISOString()}.`))
    .up()
    .up()
    .up()
    .up()
    .ele('text')
    .ele('body')
    .com(ENTRIES)
    .doc()
    .end({ prettyPrint: true })
  const [head, tail] = envelope.split(`<!--${ENTRIES}-->`) as [string, string]
  yield head.trimEnd()
  for await (const { terms } of termBatches()) {
    yield terms.map((term) => `\n${conceptEntry(term, domains)}`).join('')
  }
  yield `\n${tail.replace(/^\s+/, '    ')}`
}

function conceptEntry(term: ExportTerm, domains: ClassificationDto[]): string {
  const c = term.content
  const entry: XMLBuilder = fragment(BUILDER).ele('conceptEntry', { id: builderAttr(`t-${term.id}`) })
  for (const key of c.domains) {
    const domain = domains.find((d) => d.key === key)
    entry
      .ele('descrip', { type: 'subjectField' })
      .txt(builderText(domain ? `${domain.nameEn || domain.nameKo} (${key})` : key))
  }
  entry
    .ele('xref', { type: 'externalCrossReference', target: builderAttr(`${exportBase()}/terms/${term.id}`) })
    .txt(builderText(c.name))
  const sections = languageSections(term)
  const definitionLang = sections.has(formLang(c.definition, null))
    ? formLang(c.definition, null)
    : [...sections.keys()][0]
  for (const [lang, forms] of sections) {
    const langSec = entry.ele('langSec', { 'xml:lang': builderAttr(lang) })
    if (c.definition && lang === definitionLang)
      langSec.ele('descrip', { type: 'definition' }).txt(builderText(c.definition))
    for (const form of forms) {
      const termSec = langSec.ele('termSec')
      termSec.ele('term').txt(builderText(form.text))
      termSec.ele('termNote', { type: 'administrativeStatus' }).txt(ADMINISTRATIVE_STATUS[form.kind])
    }
  }
  return entry.end({ prettyPrint: true, headless: true, offset: 3 })
}

/** The names (preferred) and notations by language, each text once per language, names first. */
function languageSections(term: ExportTerm): Map<string, { text: string; kind: NotationKind }[]> {
  const c = term.content
  const out = new Map<string, { text: string; kind: NotationKind }[]>()
  const add = (text: string | null, kind: NotationKind, lang: string) => {
    if (!text) return
    const forms = out.get(lang) ?? []
    if (!forms.some((f) => f.text === text)) forms.push({ text, kind })
    out.set(lang, forms)
  }
  add(c.name, 'preferred', formLang(c.name, null))
  add(c.nameEn, 'preferred', 'en')
  add(c.nameKo, 'preferred', 'ko')
  add(c.fullName, 'preferred', formLang(c.fullName ?? '', null))
  for (const n of c.notations) add(n.text, n.kind, formLang(n.text, n.lang))
  return out
}
