import { DataFactory, Writer } from 'n3'
import type { NotationKind } from '#domain/terms.ts'
import {
  classificationScheme,
  exportBase,
  formLang,
  termBatches,
  type ApprovedRelation,
  type ClassificationDto,
  type ExportTerm,
} from './terms-source.server.ts'

/**
 * SKOS exports (`terms.skos.ttl`, `terms.skos.jsonld`): both are written from the same statements, one concept
 * at a time, so the two files hold exactly the same RDF graph (the tests parse both back and compare).
 *
 * - the glossary is a `skos:ConceptScheme` (`<base>/terms`), and so is each domain (`<base>/domains/<key>`);
 *   every concept is `inScheme` the glossary and its domains;
 * - labels by kind and language: the names and preferred notations are `prefLabel` (one per language, the
 *   rest `altLabel`), admitted notations `altLabel`, deprecated ones `hiddenLabel` (found by search, never
 *   shown); the language is the notation's own tag, else `ko` for Hangul, else `en`;
 * - approved relations: `is_a` and `part_of` → `broader` / `narrower`, `related_to` → `related`, `replaces`
 *   → `dct:replaces` / `dct:isReplacedBy`; `used_in` and `prerequisite_of` have no SKOS property and are left
 *   out; a term whose status is `deprecated` is `owl:deprecated true`.
 */

const SKOS = 'http://www.w3.org/2004/02/skos/core#'
const DCT = 'http://purl.org/dc/terms/'
const OWL = 'http://www.w3.org/2002/07/owl#'
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type'
const XSD = 'http://www.w3.org/2001/XMLSchema#'

export const SKOS_PREFIXES = { skos: SKOS, dct: DCT, owl: OWL, xsd: XSD }

type Value = { iri: string } | { literal: string; lang?: string; datatype?: string } | { boolean: boolean }

/** One resource and its statements, in a fixed property order. */
interface Node {
  id: string
  type: string
  props: [string, Value[]][]
}

/** JSON-LD's fixed context: the compact keys of every property written, and how each value is read. */
export const SKOS_JSONLD_CONTEXT = {
  ...SKOS_PREFIXES,
  Concept: 'skos:Concept',
  ConceptScheme: 'skos:ConceptScheme',
  prefLabel: 'skos:prefLabel',
  altLabel: 'skos:altLabel',
  hiddenLabel: 'skos:hiddenLabel',
  definition: 'skos:definition',
  inScheme: { '@id': 'skos:inScheme', '@type': '@id' },
  broader: { '@id': 'skos:broader', '@type': '@id' },
  narrower: { '@id': 'skos:narrower', '@type': '@id' },
  related: { '@id': 'skos:related', '@type': '@id' },
  replaces: { '@id': 'dct:replaces', '@type': '@id' },
  isReplacedBy: { '@id': 'dct:isReplacedBy', '@type': '@id' },
  modified: { '@id': 'dct:modified', '@type': 'xsd:dateTime' },
  deprecated: 'owl:deprecated',
} as const

/** Full property IRI → its compact key in the context (and the kind of value the context declares). */
const KEYS = new Map<string, string>(
  Object.entries(SKOS_JSONLD_CONTEXT)
    .filter(([key]) => !(key in SKOS_PREFIXES))
    .map(([key, def]) => {
      const curie = typeof def === 'string' ? def : def['@id']
      const [prefix, local] = curie.split(':') as [keyof typeof SKOS_PREFIXES, string]
      return [SKOS_PREFIXES[prefix] + local, key]
    }),
)

const iri = (id: string): Value => ({ iri: id })
const schemeIri = () => `${exportBase()}/terms`
const domainIri = (key: string) => `${exportBase()}/domains/${encodeURIComponent(key)}`
const conceptIri = (id: string) => `${exportBase()}/terms/${id}`

function schemeNodes(domains: ClassificationDto[]): Node[] {
  const label = (ko: string, en: string): Value[] => [
    ...(en ? [{ literal: en, lang: 'en' }] : []),
    ...(ko ? [{ literal: ko, lang: 'ko' }] : []),
  ]
  return [
    {
      id: schemeIri(),
      type: `${SKOS}ConceptScheme`,
      props: [[`${SKOS}prefLabel`, label('용어집', 'Glossary')]],
    },
    ...domains.map((d) => ({
      id: domainIri(d.key),
      type: `${SKOS}ConceptScheme`,
      props: [[`${SKOS}prefLabel`, label(d.nameKo, d.nameEn)]] as [string, Value[]][],
    })),
  ]
}

const LABEL_OF_KIND: Record<NotationKind, 'prefLabel' | 'altLabel' | 'hiddenLabel'> = {
  preferred: 'prefLabel',
  admitted: 'altLabel',
  deprecated: 'hiddenLabel',
}

function conceptNode(term: ExportTerm, relations: ApprovedRelation[]): Node {
  const c = term.content
  const labels = { prefLabel: [] as Value[], altLabel: [] as Value[], hiddenLabel: [] as Value[] }
  const seen = new Set<string>()
  const prefLangs = new Set<string>()
  const add = (text: string | null, kind: NotationKind, lang: string) => {
    if (!text || seen.has(`${lang}\u0000${text}`)) return
    seen.add(`${lang}\u0000${text}`)
    let slot = LABEL_OF_KIND[kind]
    // SKOS allows one prefLabel per language; further preferred forms are alternatives.
    if (slot === 'prefLabel' && prefLangs.has(lang)) slot = 'altLabel'
    if (slot === 'prefLabel') prefLangs.add(lang)
    labels[slot].push({ literal: text, lang })
  }
  add(c.name, 'preferred', formLang(c.name, null))
  add(c.nameEn, 'preferred', 'en')
  add(c.nameKo, 'preferred', 'ko')
  add(c.fullName, 'admitted', formLang(c.fullName ?? '', null))
  for (const n of c.notations) add(n.text, n.kind, formLang(n.text, n.lang))

  const linked = { broader: [] as Value[], narrower: [] as Value[], related: [] as Value[] }
  const replaces: Value[] = []
  const replacedBy: Value[] = []
  for (const r of relations) {
    const isSource = r.sourceId === term.id
    if (!isSource && r.targetId !== term.id) continue
    const other = iri(conceptIri(isSource ? r.targetId : r.sourceId))
    if (r.type === 'is_a' || r.type === 'part_of') (isSource ? linked.broader : linked.narrower).push(other)
    else if (r.type === 'related_to') linked.related.push(other)
    else if (r.type === 'replaces') (isSource ? replaces : replacedBy).push(other)
  }
  const props: [string, Value[]][] = [
    [`${SKOS}inScheme`, [iri(schemeIri()), ...c.domains.map((d) => iri(domainIri(d)))]],
    [`${SKOS}prefLabel`, labels.prefLabel],
    [`${SKOS}altLabel`, labels.altLabel],
    [`${SKOS}hiddenLabel`, labels.hiddenLabel],
    [`${SKOS}definition`, c.definition ? [{ literal: c.definition }] : []],
    [`${SKOS}broader`, linked.broader],
    [`${SKOS}narrower`, linked.narrower],
    [`${SKOS}related`, linked.related],
    [`${DCT}replaces`, replaces],
    [`${DCT}isReplacedBy`, replacedBy],
    [`${DCT}modified`, [{ literal: term.updatedAt, datatype: `${XSD}dateTime` }]],
    [`${OWL}deprecated`, c.status === 'deprecated' ? [{ boolean: true }] : []],
  ]
  return { id: conceptIri(term.id), type: `${SKOS}Concept`, props: props.filter(([, v]) => v.length) }
}

/** Every node of the export, schemes first, then concepts in slug order, one batch at a time. */
async function* skosNodes(): AsyncGenerator<Node[]> {
  const { domains } = await classificationScheme()
  yield schemeNodes(domains)
  for await (const { terms, relations } of termBatches({ withRelations: true })) {
    yield terms.map((t) => conceptNode(t, relations))
  }
}

// ── Turtle (n3's Writer) ────────────────────────────────────────────────────────────────────────────────

const { namedNode, literal, quad } = DataFactory

function rdfObject(value: Value) {
  if ('iri' in value) return namedNode(value.iri)
  if ('boolean' in value) return literal(String(value.boolean), namedNode(`${XSD}boolean`))
  if (value.lang) return literal(value.literal, value.lang)
  return literal(value.literal, value.datatype ? namedNode(value.datatype) : undefined)
}

/** `terms.skos.ttl`, written by n3's Writer into a sink that hands out what it wrote after each batch. */
export async function* termsSkosTurtle(): AsyncGenerator<string> {
  let pending = ''
  const writer = new Writer(
    { write: (chunk: string) => void (pending += chunk), end: () => undefined } as never,
    { prefixes: SKOS_PREFIXES },
  )
  for await (const nodes of skosNodes()) {
    for (const node of nodes) {
      const subject = namedNode(node.id)
      writer.addQuad(quad(subject, namedNode(RDF_TYPE), namedNode(node.type)))
      for (const [predicate, values] of node.props) {
        for (const value of values) writer.addQuad(quad(subject, namedNode(predicate), rdfObject(value)))
      }
    }
    const out = pending
    pending = ''
    yield out
  }
  writer.end()
  yield pending
}

// ── JSON-LD (a fixed context, one node object per line) ─────────────────────────────────────────────────

function jsonValue(key: string, value: Value): unknown {
  if ('iri' in value) return value.iri
  if ('boolean' in value) return value.boolean
  if (key === 'modified') return value.literal
  return value.lang ? { '@value': value.literal, '@language': value.lang } : value.literal
}

function jsonNode(node: Node): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '@id': node.id,
    '@type': node.type === `${SKOS}Concept` ? 'Concept' : 'ConceptScheme',
  }
  for (const [predicate, values] of node.props) {
    const key = KEYS.get(predicate)!
    const items = values.map((v) => jsonValue(key, v))
    out[key] = items.length === 1 ? items[0] : items
  }
  return out
}

/**
 * `terms.skos.jsonld`: a JSON-LD document `{ "@context": <fixed>, "@graph": [...] }`, streamed one node at a
 * time (each node is serialized by JSON.stringify, so escaping is the JSON library's).
 */
export async function* termsSkosJsonLd(): AsyncGenerator<string> {
  yield `{\n"@context": ${JSON.stringify(SKOS_JSONLD_CONTEXT)},\n"@graph": [`
  let count = 0
  for await (const nodes of skosNodes()) {
    yield nodes.map((node) => `${count++ === 0 ? '' : ','}\n${JSON.stringify(jsonNode(node))}`).join('')
  }
  yield '\n]\n}\n'
}
