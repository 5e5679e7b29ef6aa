import { endpoint } from '#app/api/endpoint.server.ts'
import {
  SarifLogSchema,
  ValidateBatchResponseSchema,
  ValidateBatchSchema,
  ValidateResponseSchema,
  ValidateSchema,
} from '#app/schemas/validation.ts'
import { validateBatch, validateText } from '#app/services/validation/validate.server.ts'

const access = { kind: 'scoped', scope: 'validate' } as const

/** Text validation against the glossary (docs/decisions/007-validation-and-import.md). */
export const VALIDATION_ENDPOINTS = [
  endpoint({
    method: 'POST',
    path: '/validate',
    operationId: 'validateText',
    summary: 'Check a text against every notation of every active term',
    description:
      'Reports each occurrence with UTF-16 offsets, 1-based line/column, the matched notation, its term, its kind of use, the preferred form and a severity: deprecated notation → `error`, term in status deprecated → `warning`, admitted → `info`, preferred → `none`. Latin notations match on word boundaries (Hangul next to them is a boundary, so `API를` matches `API`); a Korean notation must not follow another Hangul syllable and may be followed only by a particle or ending (`용어를` matches `용어`, `용어집` does not).',
    tag: 'validation',
    access,
    body: ValidateSchema,
    maxBodyBytes: 11 * 1024 * 1024,
    response: ValidateResponseSchema,
    errors: ['payload_too_large'],
    handler: async ({ body }) => validateText(body),
  }),
  endpoint({
    method: 'POST',
    path: '/validate/batch',
    operationId: 'validateBatch',
    summary: 'Check many texts (up to 1,000 / 10 MB); JSON or SARIF 2.1.0',
    description:
      'With `format: "sarif"` the answer is a SARIF 2.1.0 log (`application/sarif+json`) whose results carry `ruleId` `glossary/deprecated-notation` (error), `glossary/deprecated-term` (warning) or `glossary/admitted-notation` (note); each text `id`, percent-encoded as a relative URI reference (every UTF-8 byte except unreserved characters and `/`), is the artifact URI: `docs/a b.md` → `docs/a%20b.md`, and `decodeURIComponent` gives the id back.',
    tag: 'validation',
    access,
    body: ValidateBatchSchema,
    maxBodyBytes: 11 * 1024 * 1024,
    response: ValidateBatchResponseSchema,
    media: { 'application/sarif+json': SarifLogSchema },
    errors: ['payload_too_large'],
    handler: async ({ body }) => validateBatch(body),
  }),
]
