import { API_PREFIX, endpoint } from '#app/api/endpoint.server.ts'
import { ndjsonResponse, wantsNdjson } from '#app/lib/ndjson.ts'
import {
  IMPORT_MAX_BYTES,
  ImportJobParamsSchema,
  ImportJobSchema,
  ImportReportSchema,
  ImportSchema,
  ImportTemplateCsvSchema,
} from '#app/schemas/import.ts'
import { followImportJob, getImportJob } from '#app/services/import/import-jobs.server.ts'
import { runImport, type ImportResult } from '#app/services/import/import.server.ts'
import { publishedImportTemplate } from '#app/services/import/template.server.ts'
import { jsonResponse } from '#app/lib/held-bodies.ts'

const jobLocation = (jobId: string) => `${API_PREFIX}/import/${jobId}`

/**
 * The answer to a POST /import: 200 with the dry-run report or the finished job, 202 with a running job, or
 * (when the client accepts `application/x-ndjson`) 200 with the running job's states streamed until it ends.
 */
async function importAnswer(result: ImportResult, options: { stream: boolean }): Promise<Response> {
  if (result.kind === 'report') return jsonAnswer(result.report, 200, {})
  const headers = { Location: jobLocation(result.job.id) }
  if (options.stream) return ndjsonResponse(await followImportJob(result.job.id), { headers })
  return jsonAnswer(result.job, result.finished ? 200 : 202, headers)
}

const jsonAnswer = (body: unknown, status: number, headers: Record<string, string>) =>
  jsonResponse(body, {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  })

/** Term import from CSV or JSON (docs/decisions/007-validation-and-import.md). */
export const IMPORT_ENDPOINTS = [
  endpoint({
    method: 'POST',
    path: '/import',
    operationId: 'importTerms',
    summary: 'Import terms from CSV or JSON (dry run or one-transaction real run)',
    description:
      'Rows are matched to terms by slug (given, or derived from the name; old slugs count): a match is updated, otherwise created. `dryRun: true` answers 200 with the per-row report (created / updated / unchanged / error with reasons) and writes nothing. A real run is ONE transaction (a single bad row applies nothing) and runs as a job: 202 with the job (poll GET /import/{jobId}), or 200 with the finished job when `wait: true`. With `Accept: application/x-ndjson` a real run answers 200 and streams the job as it advances, one JSON line after each batch of rows written, the last line being the finished job with its per-row report; this is the way to follow progress on the embedded database, where the import transaction holds the only connection and a poll waits until it commits. An empty value never erases unasked: with `emptyCells: "keep"` (default) an empty CSV cell, or in JSON an empty text, `null`, an empty list or a notation\'s empty `lang`, keeps the stored value (as a missing field always does); `emptyCells: "clear"` clears the field. A notation without `lang` keeps the language the term gives the same text. Each `updated` row of the report lists its `changes` (field, before, after; values cut at 200 characters). At most 10,000 rows. CSV cells are read as GET /export/terms.csv writes them: a leading `\'` before `=`, `+`, `-`, `@`, tab or CR is removed (formula neutralization), and in list cells `\\;` is a `;` inside an item and `\\\\` a `\\`. A row whose name, notation or definition holds a character XML cannot carry (a control character other than tab, LF, CR; U+FFFE; U+FFFF) is an error of that row naming the field.',
    tag: 'import',
    access: { kind: 'scoped', scope: 'write', minRole: 'editor' },
    body: ImportSchema,
    maxBodyBytes: IMPORT_MAX_BYTES,
    response: ImportReportSchema.or(ImportJobSchema),
    ndjson: ImportJobSchema,
    errors: ['payload_too_large'],
    handler: async ({ body, actor, request }) =>
      importAnswer(await runImport({ input: body, actorId: actor!.user.id }), {
        stream: wantsNdjson(request),
      }),
  }),
  endpoint({
    method: 'GET',
    path: '/import/template.csv',
    operationId: 'getImportTemplate',
    summary: 'The CSV import template (header and two example rows)',
    description:
      'Columns: slug, name, fullName, nameEn, nameKo, preferred, preferredLang, admitted, admittedLang, deprecated, deprecatedLang (notations, `;`-separated; a `…Lang` column\'s n-th item is the language of its kind\'s n-th notation, an empty item none; files without these columns import too, keeping the languages the term has), domains, categories, tags (`;`-separated keys), status, definition, body, note. UTF-8. For a term that exists a missing column keeps the field, and so does an empty cell unless the import sends `emptyCells: "clear"`. The example rows use the first domains and business category of this install (administered at `/domains` and `/categories`), and leave those cells empty when there are none, so the template imports as it is.',
    tag: 'import',
    access: { kind: 'scoped', scope: 'read' },
    media: { 'text/csv': ImportTemplateCsvSchema },
    handler: async () =>
      new Response(await publishedImportTemplate(), {
        headers: {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': 'attachment; filename="glossary-import-template.csv"',
        },
      }),
  }),
  endpoint({
    method: 'GET',
    path: '/import/{jobId}',
    operationId: 'getImportJob',
    summary: 'Progress of an import job, and its per-row report once finished',
    description:
      'With `Accept: application/x-ndjson` the job is streamed as it advances (one JSON line per change, the last being the finished job).',
    tag: 'import',
    access: { kind: 'scoped', scope: 'write', minRole: 'editor' },
    params: ImportJobParamsSchema,
    response: ImportJobSchema,
    ndjson: ImportJobSchema,
    errors: ['not_found'],
    handler: async ({ params, request }) =>
      wantsNdjson(request) ? ndjsonResponse(await followImportJob(params.jobId)) : getImportJob(params),
  }),
]
