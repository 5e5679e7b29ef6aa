import { z } from 'zod'
import { DEFAULT_SHEET_COLUMNS, SHEET_COLUMNS, type SheetColumn } from '#domain/share.ts'
import { ListTermsQuerySchema } from './terms.ts'

/**
 * The shared sheet's query (`/sheet`, `/embed`; spec part 9): `columns` (comma-separated standard keys, unknown
 * keys ignored), `compact`, `links`, `border` (`1` or `0`, anything else falls back to the default) and the term
 * list's filters. Lenient by design: a shared link never fails because of a parameter.
 */
const flag = (fallback: boolean) =>
  z
    .unknown()
    .optional()
    .transform((v) => (v === '1' ? true : v === '0' ? false : fallback))

export const SheetQuerySchema = z.object({
  columns: z
    .unknown()
    .optional()
    .transform((v): SheetColumn[] => {
      const raw = (Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : '')
        .split(',')
        .map((s) => s.trim())
      const known = new Set<string>(SHEET_COLUMNS)
      const picked = [...new Set(raw.filter((s) => known.has(s)))] as SheetColumn[]
      return picked.length ? picked : [...DEFAULT_SHEET_COLUMNS]
    }),
  compact: flag(false),
  links: flag(true),
  border: flag(true),
  q: ListTermsQuerySchema.shape.q.catch(undefined),
  status: ListTermsQuerySchema.shape.status.catch(undefined),
  domain: ListTermsQuerySchema.shape.domain.catch([]),
  category: ListTermsQuerySchema.shape.category.catch([]),
  tag: ListTermsQuerySchema.shape.tag.catch([]),
})
export type SheetQuery = z.output<typeof SheetQuerySchema>

/** The bodies of the export endpoints, for the OpenAPI document. */
export const EXPORT_MEDIA = {
  csv: z.string().meta({
    description:
      "The import template’s columns (slug, name, fullName, nameEn, nameKo, preferred, admitted, deprecated, domains, categories, tags, status, definition, body, note), UTF-8 with a byte-order mark, CRLF; every cell quoted; lists `;`-separated (a `;` inside an item written `\\;`, a `\\` before `;`, `\\` or the item’s end written `\\\\`); `note` empty. A cell starting with `=`, `+`, `-`, `@`, tab or CR (or with `'`s and one of those) is written with a `'` in front so spreadsheets show it as text (OWASP CSV injection); the import takes that one `'` off again. Re-importing the file changes nothing.",
  }),
  tbx: z.string().meta({
    description:
      'TBX-Basic (ISO 30042:2019, TBX v3 DCA): one conceptEntry per term with its domains (subjectField), a link to its page, and a langSec per language holding a termSec per name and notation with administrativeStatus preferredTerm-admn-sts / admittedTerm-admn-sts / deprecatedTerm-admn-sts; the definition in the langSec of its language. Every text and attribute is escaped (a CR as `&#13;`), so an XML parser reads back exactly the stored value; characters XML 1.0 cannot carry are refused at input.',
  }),
  turtle: z.string().meta({
    description:
      'SKOS in Turtle: the glossary and each domain are ConceptSchemes; a Concept per term (IRI `<origin>/terms/<uuid>`) with prefLabel / altLabel / hiddenLabel by notation kind and language, definition, broader/narrower (approved is_a, part_of), related (related_to), dct:replaces / dct:isReplacedBy (replaces), dct:modified, owl:deprecated for deprecated terms.',
  }),
  jsonld: z.string().meta({
    description:
      'The same SKOS graph as terms.skos.ttl, as JSON-LD with a fixed inline @context and an @graph of node objects.',
  }),
  prh: z.string().meta({
    description:
      'prh rules (version 1) for textlint-rule-prh: a rule per deprecated or admitted notation with `expected` (the preferred form), a regular-expression pattern with the glossary’s word boundaries, and the finding and severity in the `prh` message.',
  }),
} as const
