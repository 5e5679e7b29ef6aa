import { endpoint } from '#app/api/endpoint.server.ts'
import {
  SarifLogSchema,
  UpdateValidationConfigSchema,
  ValidateBatchResponseSchema,
  ValidateBatchSchema,
  ValidateResponseSchema,
  ValidateSchema,
  ValidationConfigSchema,
} from '#app/schemas/validation.ts'
import { AnnotateResponseSchema, AnnotateSchema } from '#app/schemas/annotate.ts'
import { annotate } from '#app/services/annotate/annotate.server.ts'
import { getValidationConfig, updateValidationConfig } from '#app/services/settings/settings.server.ts'
import { toSarif } from '#app/services/validation/sarif.server.ts'
import { validateBatch, validateText } from '#app/services/validation/validate.server.ts'
import { encodeValidateAnswer } from '#app/api/validate-answer.server.ts'
import { RELEASE } from '#domain/release.ts'
import { auditActorOf, clientOf } from './identity.server.ts'
import { jsonResponse } from '#app/lib/held-bodies.ts'

const access = { kind: 'scoped', scope: 'validate' } as const

/** Text validation against the glossary (docs/decisions/007-validation-and-import.md). */
export const VALIDATION_ENDPOINTS = [
  endpoint({
    method: 'POST',
    path: '/validate',
    operationId: 'validateText',
    summary: 'Check a text against every notation of every active term',
    description:
      "Reports each occurrence with UTF-16 offsets, 1-based line/column, the matched notation, its term, its kind of use, a finding, the preferred form and a severity: `deprecated-notation` → `error`, `deprecated-term` (term in status deprecated) → `warning`, `wrong-case` → the administrator's setting (default `warning`), `admitted-notation` → `info`, `correct` → `none`. Width and spacing fold; letter case decides between notations that differ only by case (`Github` deprecated, `GitHub` preferred), and a use whose case matches none of the notations where case matters (a word with a capital after its first letter: `API`, `GitHub`, `iOS`) is `wrong-case`; a capital first letter at a sentence start is never a case error. Latin notations match on word boundaries (Hangul next to them is a boundary, so `API를` matches `API`); a Korean notation must not follow another Hangul syllable and may be followed only by a particle or ending (`용어를` matches `용어`, `용어집` does not).",
    tag: 'validation',
    access,
    body: ValidateSchema,
    maxBodyBytes: 11 * 1024 * 1024,
    response: ValidateResponseSchema,
    encode: encodeValidateAnswer,
    errors: ['payload_too_large'],
    handler: async ({ body }) => validateText(body),
  }),
  endpoint({
    method: 'POST',
    path: '/validate/batch',
    operationId: 'validateBatch',
    summary: 'Check many texts (up to 1,000 / 10 MB); JSON or SARIF 2.1.0',
    description:
      'With `format: "sarif"` the answer is a SARIF 2.1.0 log (`application/sarif+json`) whose results carry `ruleId` `glossary/<finding>`: `glossary/deprecated-notation` (error), `glossary/deprecated-term` (warning), `glossary/wrong-case` (the administrator\'s severity, default warning) or `glossary/admitted-notation` (note); each text `id`, percent-encoded as a relative URI reference (every UTF-8 byte except unreserved characters and `/`), is the artifact URI: `docs/a b.md` → `docs/a%20b.md`, and `decodeURIComponent` gives the id back.',
    tag: 'validation',
    access,
    body: ValidateBatchSchema,
    maxBodyBytes: 11 * 1024 * 1024,
    response: ValidateBatchResponseSchema,
    media: { 'application/sarif+json': SarifLogSchema },
    errors: ['payload_too_large'],
    handler: async ({ body }) => {
      const { format, ...input } = body
      const answer = await validateBatch(input)
      if (format === 'json') return answer
      return jsonResponse(toSarif(answer.results, RELEASE, answer.glossary), {
        status: 200,
        headers: { 'Content-Type': 'application/sarif+json; charset=utf-8' },
      })
    },
  }),
  endpoint({
    method: 'POST',
    path: '/annotate',
    operationId: 'annotateText',
    summary: 'Find the uses of terms in a text: spans, and HTML with term links and definitions',
    description:
      'The term links wiki pages show, for other tools: every use of a glossary term in the text (the matcher of `POST /validate`: letter case, Korean particles, word boundaries) as `spans` with UTF-16 offsets of the input, and `html`, the text with each preferred or admitted use linked to its term and described by its definition (a tooltip shown on hover and keyboard focus by the `term`/`term-def` classes, no script needed), and each deprecated notation marked with the form to write. Against the newest committed glossary (`glossary.version`).',
    tag: 'validation',
    access,
    body: AnnotateSchema,
    maxBodyBytes: 11 * 1024 * 1024,
    response: AnnotateResponseSchema,
    errors: ['payload_too_large'],
    handler: async ({ body }) => annotate(body),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/validation-config',
    operationId: 'getValidationConfig',
    summary: 'Validation settings: the severity of wrong-case findings',
    tag: 'admin',
    access: { kind: 'session', minRole: 'admin' },
    response: ValidationConfigSchema,
    handler: async () => getValidationConfig(),
  }),
  endpoint({
    method: 'PATCH',
    path: '/admin/validation-config',
    operationId: 'updateValidationConfig',
    summary: 'Change the validation settings (any subset)',
    description:
      '`wrongCaseSeverity`: `error`, `warning` (default), `info`, or `none` (wrong-case uses are then reported as correct). Applies to the next validation in every process; recorded in the audit log as `settings.validation`.',
    tag: 'admin',
    access: { kind: 'session', minRole: 'admin' },
    body: UpdateValidationConfigSchema,
    response: ValidationConfigSchema,
    handler: async (ctx) =>
      updateValidationConfig({
        input: ctx.body,
        audit: { actor: auditActorOf(ctx.actor), client: clientOf(ctx) },
      }),
  }),
]
