import { createCB } from 'xmlbuilder2'
import type { XMLBuilderCB } from 'xmlbuilder2/lib/interfaces.js'
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

/**
 * `terms.tbx`: one `conceptEntry` per term (id `t-<uuid>`), its domains as `subjectField`, a link to its page,
 * and one `langSec` per language holding a `termSec` per name and notation with its `administrativeStatus`;
 * the definition goes in the language section of its own language (Hangul → ko, else en; else the first).
 * Written by xmlbuilder2's streaming (callback) builder, one batch of terms at a time.
 */
export async function* termsTbx(): AsyncGenerator<string> {
  const chunks: string[] = []
  const xml = createCB({ data: (chunk: string) => void chunks.push(chunk), prettyPrint: true })
  const drain = () => chunks.splice(0).join('')
  const { domains } = await classificationScheme()
  xml
    .dec({ version: '1.0', encoding: 'UTF-8' })
    .ele(TBX_NAMESPACE, 'tbx', { type: 'TBX-Basic', style: 'dca', 'xml:lang': 'en' })
    .ele('tbxHeader')
    .ele('fileDesc')
    .ele('sourceDesc')
    .ele('p')
    .txt(`Exported from the glossary at ${exportBase()} on ${new Date().toISOString()}.`)
    .up()
    .up()
    .up()
    .up()
    .ele('text')
    .ele('body')
  yield drain()
  for await (const { terms } of termBatches()) {
    for (const term of terms) conceptEntry(xml, term, domains)
    yield drain()
  }
  xml.up().up().up().end()
  yield drain()
}

function conceptEntry(xml: XMLBuilderCB, term: ExportTerm, domains: ClassificationDto[]): void {
  const c = term.content
  xml.ele('conceptEntry', { id: `t-${term.id}` })
  for (const key of c.domains) {
    const domain = domains.find((d) => d.key === key)
    xml
      .ele('descrip', { type: 'subjectField' })
      .txt(domain ? `${domain.nameEn || domain.nameKo} (${key})` : key)
      .up()
  }
  xml
    .ele('xref', { type: 'externalCrossReference', target: `${exportBase()}/terms/${term.id}` })
    .txt(c.name)
    .up()
  const sections = languageSections(term)
  const definitionLang = sections.has(formLang(c.definition, null))
    ? formLang(c.definition, null)
    : [...sections.keys()][0]
  for (const [lang, forms] of sections) {
    xml.ele('langSec', { 'xml:lang': lang })
    if (c.definition && lang === definitionLang) {
      xml.ele('descrip', { type: 'definition' }).txt(c.definition).up()
    }
    for (const form of forms) {
      xml
        .ele('termSec')
        .ele('term')
        .txt(form.text)
        .up()
        .ele('termNote', { type: 'administrativeStatus' })
        .txt(ADMINISTRATIVE_STATUS[form.kind])
        .up()
        .up()
    }
    xml.up()
  }
  xml.up()
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
