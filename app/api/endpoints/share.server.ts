import { endpoint } from '#app/api/endpoint.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { EXPORT_MEDIA } from '#app/schemas/share.ts'
import { exportGlossary } from '#app/services/share/export.server.ts'
import type { ExportFormat } from '#domain/share.ts'

/**
 * A streamed download: the body is pulled from the export's chunks as the client reads, so memory stays flat.
 * The first chunk is read before answering, so a failure before anything was sent still becomes the error
 * envelope; a failure later can only cut the stream (logged).
 */
async function download(format: ExportFormat): Promise<Response> {
  const { contentType, fileName, chunks } = exportGlossary(format)
  const iterator = chunks[Symbol.asyncIterator]()
  const encoder = new TextEncoder()
  const bytes = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
  const first = await iterator.next()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close()
      else controller.enqueue(bytes(first.value))
    },
    async pull(controller) {
      try {
        const next = await iterator.next()
        if (next.done) controller.close()
        else controller.enqueue(bytes(next.value))
      } catch (error) {
        log().error({ err: error, format }, 'export stopped')
        controller.error(error)
      }
    },
    async cancel() {
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

/** Exports of the glossary (issue 14; docs/decisions/019-sharing.md). Session or a `read` key. */
export const EXPORT_ENDPOINTS = [
  endpoint({
    method: 'GET',
    path: '/export/terms.csv',
    operationId: 'exportTermsCsv',
    summary: 'Every term as CSV in the import template’s columns (re-imports unchanged)',
    description:
      'Live terms (merged and deleted ones left out) in slug order, streamed. Known limit: the template has no column for a notation’s language, so a term whose notations carry one comes back with `lang: null` on re-import.',
    tag: 'export',
    access: READ,
    media: { 'text/csv': EXPORT_MEDIA.csv },
    handler: async () => download('terms.csv'),
  }),
  endpoint({
    method: 'GET',
    path: '/export/terms.tbx',
    operationId: 'exportTermsTbx',
    summary: 'Every term as TBX-Basic (ISO 30042) for translation tools',
    tag: 'export',
    access: READ,
    media: { 'application/x-tbx+xml': EXPORT_MEDIA.tbx },
    handler: async () => download('terms.tbx'),
  }),
  endpoint({
    method: 'GET',
    path: '/export/terms.skos.ttl',
    operationId: 'exportTermsSkosTurtle',
    summary: 'The glossary as a SKOS thesaurus in Turtle',
    tag: 'export',
    access: READ,
    media: { 'text/turtle': EXPORT_MEDIA.turtle },
    handler: async () => download('terms.skos.ttl'),
  }),
  endpoint({
    method: 'GET',
    path: '/export/terms.skos.jsonld',
    operationId: 'exportTermsSkosJsonLd',
    summary: 'The glossary as a SKOS thesaurus in JSON-LD',
    tag: 'export',
    access: READ,
    media: { 'application/ld+json': EXPORT_MEDIA.jsonld },
    handler: async () => download('terms.skos.jsonld'),
  }),
  endpoint({
    method: 'GET',
    path: '/export/vale.zip',
    operationId: 'exportValeStyle',
    summary: 'A Vale style generated from the glossary (substitution rules and a vocabulary)',
    description:
      'Unzip into Vale’s StylesPath and add `Vocab = Glossary` and `BasedOnStyles = Vale, Glossary`. Glossary/DeprecatedNotation.yml (substitution, error), Glossary/AdmittedNotation.yml (substitution, suggestion), Glossary/DeprecatedTerm.yml (existence, warning), Glossary/Avoid.yml (existence, error: deprecated notations of deprecated terms), config/vocabularies/Glossary/accept.txt (preferred and admitted forms), README.txt.',
    tag: 'export',
    access: READ,
    media: { 'application/zip': null },
    handler: async () => download('vale.zip'),
  }),
  endpoint({
    method: 'GET',
    path: '/export/prh.yml',
    operationId: 'exportPrhRules',
    summary: 'prh rules for textlint-rule-prh generated from the glossary',
    description:
      'Known limits: prh has no severity (the finding and its severity are in each rule’s message); forms of deprecated terms have no replacement and are not in the file; the Korean particle rule is not expressed (a Korean notation also matches inside a longer Korean word on its right); notations that differ only by letter case are told apart (each matches as written, or with a capital first letter where it has a small one), other notations match in any case, and the wrong-case finding of validation is not expressed.',
    tag: 'export',
    access: READ,
    media: { 'application/yaml': EXPORT_MEDIA.prh },
    handler: async () => download('prh.yml'),
  }),
]
