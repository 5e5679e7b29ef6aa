import type { Actor } from '#domain/identity.ts'
import type { ExportFormat } from '#domain/share.ts'
import { termsCsv } from './csv.server.ts'
import { exportCaller, holdingSlot, takeExportSlot } from './export-slots.server.ts'
import { prhYml, valeZip } from './linters.server.ts'
import { termsSkosJsonLd, termsSkosTurtle } from './skos.server.ts'
import { termsTbx } from './tbx.server.ts'

/** One export: its media type and the chunks of its body, produced as they are read. */
export interface GlossaryExport {
  contentType: string
  fileName: string
  /** Text chunks (UTF-8) or bytes; generated lazily, one batch of terms at a time. */
  chunks: AsyncIterable<string | Uint8Array>
}

const FORMATS: Record<
  ExportFormat,
  { contentType: string; fileName: string; chunks: () => AsyncIterable<string | Uint8Array> }
> = {
  'terms.csv': { contentType: 'text/csv; charset=utf-8', fileName: 'glossary-terms.csv', chunks: termsCsv },
  'terms.tbx': {
    contentType: 'application/x-tbx+xml; charset=utf-8',
    fileName: 'glossary-terms.tbx',
    chunks: termsTbx,
  },
  'terms.skos.ttl': {
    contentType: 'text/turtle; charset=utf-8',
    fileName: 'glossary-terms.skos.ttl',
    chunks: termsSkosTurtle,
  },
  'terms.skos.jsonld': {
    contentType: 'application/ld+json; charset=utf-8',
    fileName: 'glossary-terms.skos.jsonld',
    chunks: termsSkosJsonLd,
  },
  'vale.zip': { contentType: 'application/zip', fileName: 'glossary-vale.zip', chunks: valeZip },
  'prh.yml': { contentType: 'application/yaml; charset=utf-8', fileName: 'glossary-prh.yml', chunks: prhYml },
}

/**
 * Exports the glossary (live, unmerged terms) in one of the formats of docs/decisions/019-sharing.md, for
 * `actor`. Takes one of the export slots first (export-slots.server.ts: 429 `rate_limited` when the caller or
 * the process runs as many as allowed), held until `chunks` end, fail or are given up (`return`): the caller
 * must read them to the end or call `return`. Nothing is read until the caller iterates `chunks`; the caller
 * streams them to the client.
 */
export function exportGlossary(format: ExportFormat, actor: Actor): GlossaryExport {
  const { contentType, fileName, chunks } = FORMATS[format]
  const slot = takeExportSlot(exportCaller(actor))
  try {
    return { contentType, fileName, chunks: holdingSlot(chunks(), slot) }
  } catch (error) {
    slot.release()
    throw error
  }
}
