import { endpoint } from '#app/api/endpoint.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { EXPORT_MEDIA } from '#app/schemas/share.ts'
import { exportGlossary } from '#app/services/share/export.server.ts'
import type { Actor } from '#domain/identity.ts'
import type { ExportFormat } from '#domain/share.ts'

/**
 * What one read of a download's stream gathers before handing it on: an export yields small pieces (a slice of
 * terms, one linter rule), each after a turn of the event loop, and writing each to the socket on its own made
 * the downloads up to twice as slow (a write, and a read by the client, per piece).
 */
const WRITE_BYTES = 64 * 1024

/**
 * A streamed download: the body is pulled from the export's chunks as the client reads, so memory stays flat.
 * The first chunk is read before answering, so a failure before anything was sent still becomes the error
 * envelope (a refused one too: 429 when the caller or the process runs as many exports as allowed); a failure
 * later can only cut the stream (logged). The export's slot is given back when the chunks end or fail, and
 * when the stream is cancelled (the client went away, or a HEAD request that sends no body).
 */
async function download(format: ExportFormat, actor: Actor): Promise<Response> {
  const { contentType, fileName, chunks } = exportGlossary(format, actor)
  const iterator = chunks[Symbol.asyncIterator]()
  const encoder = new TextEncoder()
  const bytes = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
  const first = await iterator.next()
  let cancelled = false
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close()
      else controller.enqueue(bytes(first.value))
    },
    async pull(controller) {
      try {
        const pieces: Uint8Array[] = []
        let size = 0
        let done = false
        while (size < WRITE_BYTES && !done) {
          const next = await iterator.next()
          // A client that went away meanwhile: the stream is closed, nothing more goes into it.
          if (cancelled) return
          if (next.done) done = true
          else {
            pieces.push(bytes(next.value))
            size += pieces.at(-1)!.byteLength
          }
        }
        if (size > 0) controller.enqueue(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces))
        if (done) controller.close()
      } catch (error) {
        if (cancelled) return
        log().error({ err: error, format }, 'export stopped')
        controller.error(error)
      }
    },
    async cancel() {
      cancelled = true
      await iterator.return?.(undefined)
    },
  })
  return new Response(first.done ? null : body, {
    headers: {
      'Content-Type': contentType,
      'Content-Disposition': `attachment; filename="${fileName}"`,
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    },
  })
}

const READ = { kind: 'scoped', scope: 'read' } as const

/** The limit every export shares (app/services/share/export-slots.server.ts), in each one's description. */
const LIMIT =
  'Downloads are limited: at most GLOSSARY_EXPORTS_PER_CALLER (default 2) at a time per caller (an API key, or the user of a session) and GLOSSARY_EXPORTS_PER_PROCESS (default 4) in all per web process; beyond that the request is answered 429 `rate_limited` with `Retry-After` (seconds). A download counts from its request until its last byte is sent or its client goes away.'

/** Exports of the glossary (issue 14; docs/decisions/019-sharing.md). Session or a `read` key. */
export const EXPORT_ENDPOINTS = [
  endpoint({
    method: 'GET',
    path: '/export/terms.csv',
    operationId: 'exportTermsCsv',
    summary: 'Every term as CSV in the import template’s columns (re-imports unchanged)',
    description:
      "Live terms (merged and deleted ones left out) in slug order, streamed. Known limits: the template has no column for a notation’s language, so a term whose notations carry one comes back with `lang: null` on re-import; it has one column per notation kind, so notations come back grouped by kind (preferred, admitted, deprecated). Every cell is quoted; a cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) is written with a leading `'`, which the import removes (docs/decisions/019-sharing.md).\n\n" +
      LIMIT,
    tag: 'export',
    access: READ,
    media: { 'text/csv': EXPORT_MEDIA.csv },
    errors: ['rate_limited'],
    handler: async ({ actor }) => download('terms.csv', actor!),
  }),
  endpoint({
    method: 'GET',
    path: '/export/terms.tbx',
    operationId: 'exportTermsTbx',
    summary: 'Every term as TBX-Basic (ISO 30042) for translation tools',
    description: LIMIT,
    tag: 'export',
    access: READ,
    media: { 'application/x-tbx+xml': EXPORT_MEDIA.tbx },
    errors: ['rate_limited'],
    handler: async ({ actor }) => download('terms.tbx', actor!),
  }),
  endpoint({
    method: 'GET',
    path: '/export/terms.skos.ttl',
    operationId: 'exportTermsSkosTurtle',
    summary: 'The glossary as a SKOS thesaurus in Turtle',
    description: LIMIT,
    tag: 'export',
    access: READ,
    media: { 'text/turtle': EXPORT_MEDIA.turtle },
    errors: ['rate_limited'],
    handler: async ({ actor }) => download('terms.skos.ttl', actor!),
  }),
  endpoint({
    method: 'GET',
    path: '/export/terms.skos.jsonld',
    operationId: 'exportTermsSkosJsonLd',
    summary: 'The glossary as a SKOS thesaurus in JSON-LD',
    description: LIMIT,
    tag: 'export',
    access: READ,
    media: { 'application/ld+json': EXPORT_MEDIA.jsonld },
    errors: ['rate_limited'],
    handler: async ({ actor }) => download('terms.skos.jsonld', actor!),
  }),
  endpoint({
    method: 'GET',
    path: '/export/vale.zip',
    operationId: 'exportValeStyle',
    summary: 'A Vale style generated from the glossary (substitution rules and a vocabulary)',
    description:
      'Unzip into Vale’s StylesPath and add `Vocab = Glossary` and `BasedOnStyles = Vale, Glossary`. Glossary/DeprecatedNotation.yml (substitution, error), Glossary/AdmittedNotation.yml (substitution, suggestion), Glossary/DeprecatedTerm.yml (existence, warning), Glossary/Avoid.yml (existence, error: deprecated notations of deprecated terms), config/vocabularies/Glossary/accept.txt (preferred and admitted forms), README.txt.\n\n' +
      LIMIT,
    tag: 'export',
    access: READ,
    media: { 'application/zip': null },
    errors: ['rate_limited'],
    handler: async ({ actor }) => download('vale.zip', actor!),
  }),
  endpoint({
    method: 'GET',
    path: '/export/prh.yml',
    operationId: 'exportPrhRules',
    summary: 'prh rules for textlint-rule-prh generated from the glossary',
    description:
      'Known limits: prh has no severity (the finding and its severity are in each rule’s message); forms of deprecated terms have no replacement and are not in the file; the Korean particle rule is not expressed (a Korean notation also matches inside a longer Korean word on its right); notations that differ only by letter case are told apart (each matches as written, or with a capital first letter where it has a small one), other notations match in any case, and the wrong-case finding of validation is not expressed.\n\n' +
      LIMIT,
    tag: 'export',
    access: READ,
    media: { 'application/yaml': EXPORT_MEDIA.prh },
    errors: ['rate_limited'],
    handler: async ({ actor }) => download('prh.yml', actor!),
  }),
]
