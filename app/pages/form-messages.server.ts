import { ZodError, type z } from 'zod'
import type { AppError, ErrorCode, Problem } from '#app/lib/errors.server.ts'
import { fill, isMessageKey, translate, type Lang, type MessageKey } from '#app/lib/i18n.ts'
import { CALL_LIMITS } from '#app/services/ai/provider.server.ts'
import { AI_FAILURE_CLASSES, type AiFailureClass } from '#domain/rag.ts'

/**
 * The words of a refused form, in the reader's language (issue 27 item 6): a message per field saying what is
 * wrong and what to do, a form-level message naming the fields, and what failed when a service behind the page
 * failed. Used only by the form adapter (forms.server.ts); the API keeps its English messages and codes.
 *
 * A zod issue is worded from its kind and limits (too short, not one of the options…), never from zod's
 * developer wording ("Invalid UUID"). A message a schema or service wrote itself (a refinement's, a service's
 * `details.problems`) is matched against the known messages below; one that is not known is shown as written
 * in English and, in Korean, after a Korean "check this value".
 */

type ZodIssue = z.core.$ZodIssue
export type FieldErrors = Record<string, string>

/** The words of a refused form. */
export interface Worded {
  formError: string
  fieldErrors: FieldErrors
}

const t = (lang: Lang, key: MessageKey, vars: Record<string, string | number> = {}) =>
  fill(translate(lang, key), vars)

// ---------------------------------------------------------------------------------------------------------
// Field labels, for the form-level message: a field's path (numeric segments dropped) → its label.

const FIELD_LABELS: Record<string, MessageKey> = {
  email: 'fieldLabel.email',
  password: 'fieldLabel.password',
  name: 'fieldLabel.name',
  fullName: 'fieldLabel.fullName',
  nameEn: 'fieldLabel.nameEn',
  nameKo: 'fieldLabel.nameKo',
  confirmEmail: 'fieldLabel.confirmEmail',
  scopes: 'fieldLabel.scopes',
  role: 'fieldLabel.role',
  slug: 'fieldLabel.slug',
  status: 'fieldLabel.status',
  notations: 'fieldLabel.notations',
  tags: 'fieldLabel.tags',
  domains: 'fieldLabel.domains',
  domain: 'fieldLabel.domains',
  categories: 'fieldLabel.categories',
  definition: 'fieldLabel.definition',
  body: 'fieldLabel.body',
  note: 'fieldLabel.note',
  image: 'fieldLabel.image',
  into: 'fieldLabel.into',
  title: 'fieldLabel.title',
  content: 'fieldLabel.content',
  summary: 'fieldLabel.summary',
  sourceUrl: 'fieldLabel.sourceUrl',
  termSlugs: 'fieldLabel.linkedTerms',
  terms: 'fieldLabel.linkedTerms',
  sourceTermId: 'fieldLabel.sourceTerm',
  sourceRevision: 'fieldLabel.sourceTerm',
  source: 'fieldLabel.sourceTerm',
  targetTermId: 'fieldLabel.targetTerm',
  targetRevision: 'fieldLabel.targetTerm',
  target: 'fieldLabel.targetTerm',
  relationType: 'fieldLabel.relationType',
  evidence: 'fieldLabel.evidence',
  evidenceMd: 'fieldLabel.evidence',
  query: 'fieldLabel.query',
  q: 'fieldLabel.query',
  text: 'fieldLabel.text',
  file: 'fieldLabel.file',
  csv: 'fieldLabel.file',
  rows: 'fieldLabel.file',
  format: 'fieldLabel.format',
  wrongCaseSeverity: 'fieldLabel.wrongCaseSeverity',
  enabled: 'fieldLabel.searchEnabled',
  embeddingProvider: 'fieldLabel.embeddingProvider',
  embeddingBaseUrl: 'fieldLabel.embeddingBaseUrl',
  embeddingModel: 'fieldLabel.embeddingModel',
  embeddingApiKey: 'fieldLabel.embeddingApiKey',
  embeddingHeaders: 'fieldLabel.embeddingHeaders',
  rerankerEnabled: 'fieldLabel.rerankerEnabled',
  rerankerProvider: 'fieldLabel.rerankerProvider',
  rerankerBaseUrl: 'fieldLabel.rerankerBaseUrl',
  rerankerModel: 'fieldLabel.rerankerModel',
  rerankerApiKey: 'fieldLabel.rerankerApiKey',
  rerankerHeaders: 'fieldLabel.rerankerHeaders',
  chunkSize: 'fieldLabel.chunkSize',
  chunkOverlap: 'fieldLabel.chunkOverlap',
  topK: 'fieldLabel.topK',
  baseUrl: 'fieldLabel.baseUrl',
  mode: 'fieldLabel.ssoMode',
  issuer: 'fieldLabel.issuer',
  clientId: 'fieldLabel.clientId',
  clientSecret: 'fieldLabel.clientSecret',
  authorizationEndpoint: 'fieldLabel.authorizationEndpoint',
  tokenEndpoint: 'fieldLabel.tokenEndpoint',
  userinfoEndpoint: 'fieldLabel.userinfoEndpoint',
  jwksUri: 'fieldLabel.jwksUri',
  nameClaims: 'fieldLabel.claims',
  emailClaims: 'fieldLabel.claims',
  groupClaims: 'fieldLabel.claims',
  allowedGroups: 'fieldLabel.groups',
  adminGroups: 'fieldLabel.groups',
  buttonLabel: 'fieldLabel.buttonLabel',
  passwordLoginEnabled: 'fieldLabel.passwordLogin',
}

/** Paths that name no field: a problem there is about the whole form. */
const FORM_PATHS = new Set(['', '(root)', '(body)', '(path)'])

function segmentsOf(path: string): string[] {
  return path.split('.').filter((segment) => segment !== '' && !/^\d+$/.test(segment))
}

/** The label of the field at `path` (`notations.2.text` → Notations), or undefined for a field not listed. */
export function fieldLabel(lang: Lang, path: string): string | undefined {
  const segments = segmentsOf(path)
  const key =
    FIELD_LABELS[segments.join('.')] ?? FIELD_LABELS[segments[0] ?? ''] ?? FIELD_LABELS[segments.at(-1) ?? '']
  return key ? translate(lang, key) : undefined
}

// ---------------------------------------------------------------------------------------------------------
// Option labels: the values of an enum as the pages label them ("Choose one of: Admin, Editor, Viewer").

const OPTION_PREFIXES: Record<string, string[]> = {
  role: ['role.'],
  status: ['status.', 'wiki.status.'],
  kind: ['kind.'],
  wrongCaseSeverity: ['severity.'],
  mode: ['sso.mode.'],
  relationType: ['type.'],
  type: ['type.'],
}

/** The label of `key` when it is one. */
function labelOf(lang: Lang, key: string): string | undefined {
  return isMessageKey(key) ? translate(lang, key) : undefined
}

function optionLabels(lang: Lang, path: string, values: readonly unknown[]): string {
  const field = segmentsOf(path).at(-1) ?? ''
  for (const prefix of OPTION_PREFIXES[field] ?? []) {
    const keys = values.map((value) => `${prefix}${String(value)}`)
    if (keys.every(isMessageKey)) return keys.map((key) => translate(lang, key)).join(', ')
  }
  return values.map(String).join(', ')
}

// ---------------------------------------------------------------------------------------------------------
// Messages schemas and services wrote themselves, by their English text.

interface Known {
  pattern: RegExp
  key: MessageKey
  vars?: (match: RegExpExecArray, lang: Lang) => Record<string, string>
}

/** Field-level messages of refinements and of services' `details.problems`. */
const KNOWN_FIELD_MESSAGES: Known[] = [
  { pattern: /^use lowercase letters, digits and single hyphens$/i, key: 'fieldError.slugFormat' },
  { pattern: /^a slug must not look like a UUID$/i, key: 'fieldError.slugUuid' },
  { pattern: /^this slug is reserved$/i, key: 'fieldError.slugReserved' },
  { pattern: /^already used by another term$/i, key: 'fieldError.slugTaken' },
  { pattern: /^already used by another entry$/i, key: 'fieldError.keyTaken' },
  { pattern: /^This notation is empty once normalized\.$/, key: 'fieldError.notationEmpty' },
  { pattern: /^"(.*)" is listed twice\b/, key: 'fieldError.notationTwice', vars: (m) => ({ text: m[1]! }) },
  {
    pattern: /^"(.*)" is the term's name "(.*)", so it cannot be \w+\.$/,
    key: 'fieldError.notationIsName',
    vars: (m) => ({ text: m[1]! }),
  },
  { pattern: /^Give the evidence\b/, key: 'fieldError.required' },
  {
    pattern: /^Give the page a title\.$|^Write the page content\.$|^Give the record a title\.$/,
    key: 'fieldError.required',
  },
  { pattern: /^The record has no text\.$|^Enter a name\.$/, key: 'fieldError.required' },
  {
    pattern: /^The \w+ may have at most ([\d,]+) characters\.$/,
    key: 'fieldError.tooLong',
    vars: (m) => ({ max: m[1]! }),
  },
  { pattern: /^The target must be a different term than the source\.$/, key: 'fieldError.sameTerm' },
  { pattern: /^(Use|Enter) an http:\/\/ or https:\/\/ address\.$/, key: 'fieldError.url' },
  { pattern: /^Give the address without credentials, query or fragment/, key: 'fieldError.urlPlain' },
  { pattern: /^A header name is letters, digits/, key: 'fieldError.headerName' },
  { pattern: /^This header is set by the service itself\.$/, key: 'fieldError.headerReserved' },
  { pattern: /may not contain line breaks\.$/, key: 'fieldError.lineBreak' },
  { pattern: /^At most (\d+) custom headers\.$/, key: 'fieldError.tooMany', vars: (m) => ({ max: m[1]! }) },
  { pattern: /^Each header name may appear once\.$/, key: 'fieldError.headerTwice' },
  {
    pattern: /^The new header "(.*)" needs a value\.$/,
    key: 'fieldError.headerValue',
    vars: (m) => ({ name: m[1]! }),
  },
  { pattern: /^Give the provider address\.$/, key: 'fieldError.providerAddress' },
  { pattern: /^Give a search query\.$/, key: 'fieldError.query' },
  {
    pattern: /^chunkOverlap must be smaller than chunkSize \((\d+)\)\.$/,
    key: 'fieldError.chunkOverlap',
    vars: (m) => ({ size: m[1]! }),
  },
  { pattern: /^Set the embedding base URL and model\b/, key: 'fieldError.embeddingFirst' },
  { pattern: /^Set the reranker base URL and model\b/, key: 'fieldError.rerankerFirst' },
  { pattern: /^Send at least one field to change\.$/, key: 'fieldError.nothingToChange' },
  {
    pattern: /^Contains U\+([0-9A-F]{4,6}) \(/,
    key: 'fieldError.xmlChar',
    vars: (m) => ({ code: m[1]! }),
  },
  { pattern: /^(The value|A field name) contains /, key: 'fieldError.textDefect' },
  { pattern: /^The text is not valid UTF-8\.$/, key: 'fieldError.notUtf8' },
  { pattern: /^No term "(.*)"\.$/, key: 'fieldError.noTerm', vars: (m) => ({ name: m[1]! }) },
  { pattern: /^no such term$/i, key: 'fieldError.noSuchTerm' },
  {
    pattern: /^the (?:source|target) term has no revision (\d+) \(current: (\d+)\)$/,
    key: 'fieldError.noRevision',
    vars: (m) => ({ revision: m[1]!, current: m[2]! }),
  },
  { pattern: /^Unknown domain "(.*)"\.$/, key: 'fieldError.unknownDomain', vars: (m) => ({ key: m[1]! }) },
  {
    pattern: /^Unknown business category "(.*)"\.$/,
    key: 'fieldError.unknownCategory',
    vars: (m) => ({ key: m[1]! }),
  },
  { pattern: /^A term cannot be merged into itself\.$/, key: 'fieldError.mergeSelf' },
  { pattern: /^Enter your password to delete\b/, key: 'fieldError.passwordToDelete' },
  {
    pattern: /^(\w+) is needed to enable (.+)\.$/,
    key: 'fieldError.neededForMode',
    vars: (m, lang) => ({ mode: labelOf(lang, `sso.mode.${m[2]!}`) ?? m[2]! }),
  },
  { pattern: /^Choose a CSV or JSON file, or paste its content\.$/, key: 'fieldError.importEmpty' },
  { pattern: /^The file is not valid JSON\.$/, key: 'fieldError.notJson' },
  { pattern: /^JSON must be an array of terms\b/, key: 'fieldError.jsonShape' },
  {
    pattern: /^At most (\d+) rows per import\.$/,
    key: 'fieldError.importRows',
    vars: (m) => ({ max: m[1]! }),
  },
  {
    pattern: /^Unknown column "(.*)"\. Columns: /,
    key: 'serviceError.csvColumn',
    vars: (m) => ({ column: m[1]! }),
  },
]

/** Form-level messages of services' AppErrors that a page may show. */
const KNOWN_FORM_MESSAGES: Known[] = [
  { pattern: /^The email or password is incorrect\.$/, key: 'formError.badCredentials' },
  { pattern: /^Setup is already done; sign in instead\.$/, key: 'serviceError.setupDone' },
  { pattern: /^No account exists yet\b/, key: 'serviceError.noAccountYet' },
  { pattern: /^This account no longer exists\.$/, key: 'serviceError.accountGone' },
  { pattern: /^The confirmation email does not match this account\.$/, key: 'serviceError.confirmEmail' },
  { pattern: /^The password does not match\.$/, key: 'serviceError.passwordMismatch' },
  { pattern: /^The last (active )?admin cannot /, key: 'serviceError.lastAdmin' },
  { pattern: /^An agent account can never be an admin\.$/, key: 'serviceError.agentAdmin' },
  { pattern: /^You cannot deactivate your own account\b/, key: 'serviceError.selfDeactivate' },
  { pattern: /^This term was merged into another one\b/, key: 'serviceError.termMerged' },
  { pattern: /^The surviving term was itself merged\b/, key: 'serviceError.mergedSurvivor' },
  {
    pattern: /^The address "(.*)" is already used by another term\.$/,
    key: 'serviceError.slugTaken',
    vars: (m) => ({ slug: m[1]! }),
  },
  { pattern: /^No term "(.*)"\.$/, key: 'serviceError.noTerm', vars: (m) => ({ name: m[1]! }) },
  { pattern: /^This relation is already rejected\.$/, key: 'serviceError.relationRejected' },
  { pattern: /^A term changed since this relation was proposed\./, key: 'serviceError.relationStale' },
  { pattern: /^This candidate was already promoted\b/, key: 'serviceError.candidatePromoted' },
  { pattern: /^This candidate is already \w+\.$/, key: 'serviceError.candidateDone' },
  {
    pattern: /^The [\w ]+ "(.*)" already exists\.$/,
    key: 'serviceError.classExists',
    vars: (m) => ({ key: m[1]! }),
  },
  {
    pattern: /^Your role does not allow keys with the scope\(s\): (.*)\.$/,
    key: 'serviceError.roleScopes',
    vars: (m) => ({ scopes: m[1]! }),
  },
  { pattern: /^Your role does not allow this operation\.$/, key: 'serviceError.roleForbids' },
  { pattern: /^Images may be at most \d+ bytes\.$/, key: 'serviceError.imageTooLarge' },
  {
    pattern: /^Only PNG, JPEG, GIF and WebP images\b|^The file is \S+, not \S+\.$/,
    key: 'serviceError.imageType',
  },
  { pattern: /^The upload is empty\.$/, key: 'serviceError.uploadEmpty' },
  {
    pattern: /^The file may be at most (\d+) MB\.$/,
    key: 'serviceError.fileTooLarge',
    vars: (m) => ({ size: m[1]! }),
  },
  { pattern: /^Password login is switched off\b/, key: 'errorCode.password_login_disabled' },
  { pattern: /^Search by meaning is switched off\.$/, key: 'failure.notReady.off' },
  {
    pattern: /^Search by meaning has no embedding provider configured\.$/,
    key: 'failure.notReady.no_provider',
  },
]

function known(table: Known[], lang: Lang, message: string): string | undefined {
  for (const entry of table) {
    const match = entry.pattern.exec(message)
    if (match) return t(lang, entry.key, entry.vars?.(match, lang) ?? {})
  }
  return undefined
}

/** A message the code does not know: as written in English; in Korean, "check this value" with it. */
function unknownFieldMessage(lang: Lang, message: string): string {
  return lang === 'en' ? message : t(lang, 'fieldError.invalidWithReason', { reason: message })
}

// ---------------------------------------------------------------------------------------------------------
// Field messages.

/** Lists whose items are picked from given options (a too-short list means "choose more"). */
const CHOICE_LISTS = new Set(['scopes', 'domains', 'categories'])

/** A zod issue worded for the reader, from its kind and limits. */
export function issueMessage(lang: Lang, issue: ZodIssue, path: string): string {
  const field = segmentsOf(path).at(-1) ?? ''
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return t(lang, 'fieldError.wholeNumber')
      if (issue.expected === 'number' || issue.expected === 'bigint') return t(lang, 'fieldError.number')
      if (issue.expected === 'date') return t(lang, 'fieldError.date')
      return t(lang, 'fieldError.required')
    case 'too_small': {
      const min = Number(issue.minimum) + (issue.inclusive === false && issue.origin !== 'string' ? 1 : 0)
      if (issue.origin === 'string') {
        return min <= 1 ? t(lang, 'fieldError.required') : t(lang, 'fieldError.tooShort', { min })
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        const choice = CHOICE_LISTS.has(field)
        if (min <= 1) return t(lang, choice ? 'fieldError.chooseOne' : 'fieldError.giveOne')
        return t(lang, choice ? 'fieldError.chooseAtLeast' : 'fieldError.tooFew', { min })
      }
      if (issue.origin === 'date') return t(lang, 'fieldError.date')
      return t(lang, 'fieldError.numberMin', { min })
    }
    case 'too_big': {
      const max = Number(issue.maximum) - (issue.inclusive === false && issue.origin !== 'string' ? 1 : 0)
      if (issue.origin === 'string') return t(lang, 'fieldError.tooLong', { max })
      if (issue.origin === 'array' || issue.origin === 'set') return t(lang, 'fieldError.tooMany', { max })
      if (issue.origin === 'date') return t(lang, 'fieldError.date')
      return t(lang, 'fieldError.numberMax', { max })
    }
    case 'invalid_format':
      switch (issue.format) {
        case 'email':
          return t(lang, 'fieldError.email')
        case 'url':
          return t(lang, 'fieldError.url')
        case 'uuid':
        case 'guid':
          // The user never types an id: the field is an item picked from a list.
          return t(
            lang,
            /term/i.test(field) || field === 'into' ? 'fieldError.pickTerm' : 'fieldError.pickItem',
          )
        case 'date':
        case 'datetime':
        case 'time':
          return t(lang, 'fieldError.date')
        default:
          // A pattern's own message (the schema's words) when it is known, else the kind.
          return known(KNOWN_FIELD_MESSAGES, lang, issue.message) ?? t(lang, 'fieldError.format')
      }
    case 'invalid_value':
      return t(lang, 'fieldError.choose', { options: optionLabels(lang, path, issue.values) })
    case 'unrecognized_keys':
      return t(lang, 'fieldError.unknownField')
    case 'invalid_union': {
      // The branch that came nearest (fewest issues) says what is wrong.
      const nearest = [...issue.errors].sort((a, b) => a.length - b.length)[0]?.[0]
      return nearest ? issueMessage(lang, nearest, path) : t(lang, 'fieldError.invalid')
    }
    case 'custom':
      return known(KNOWN_FIELD_MESSAGES, lang, issue.message) ?? unknownFieldMessage(lang, issue.message)
    default:
      return t(lang, 'fieldError.invalid')
  }
}

/** A problem of a service's `details.problems` (no zod issue behind it) worded for the reader. */
function problemMessage(lang: Lang, problem: Problem): string {
  if (problem.code === 'invalid_text') {
    return known(KNOWN_FIELD_MESSAGES, lang, problem.message) ?? t(lang, 'fieldError.textDefect')
  }
  return known(KNOWN_FIELD_MESSAGES, lang, problem.message) ?? unknownFieldMessage(lang, problem.message)
}

function pathOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.') || '(root)'
}

/** The first message of each field: zod issues worded by kind. */
export function zodFieldErrors(lang: Lang, error: ZodError, prefix?: string): FieldErrors {
  const fieldErrors: FieldErrors = {}
  for (const issue of error.issues) {
    const path = [prefix, pathOf(issue.path)].filter(Boolean).join('.')
    fieldErrors[path] ??= issueMessage(lang, issue, path)
  }
  return fieldErrors
}

/** The first message of each field among a service's problems. */
export function problemFieldErrors(lang: Lang, problems: readonly Problem[]): FieldErrors {
  const fieldErrors: FieldErrors = {}
  for (const problem of problems) fieldErrors[problem.path] ??= problemMessage(lang, problem)
  return fieldErrors
}

/** The per-field messages of a failure: its zod issues when a ZodError is behind it, else its problems. */
export function failureFieldErrors(lang: Lang, error: AppError): FieldErrors {
  if (error.cause instanceof ZodError) return zodFieldErrors(lang, error.cause)
  return problemFieldErrors(lang, (error.details?.problems ?? []) as Problem[])
}

// ---------------------------------------------------------------------------------------------------------
// Form-level messages.

/**
 * The form-level message of refused fields: "Check the marked fields: Name, Definition." A problem about the
 * whole form says itself; a field with no label in the list keeps its message here, so nothing is lost when
 * the page has no place for it.
 */
export function checkFieldsMessage(lang: Lang, fieldErrors: FieldErrors): string {
  const labels: string[] = []
  const loose: string[] = []
  for (const [path, message] of Object.entries(fieldErrors)) {
    if (FORM_PATHS.has(path)) {
      loose.push(message)
      continue
    }
    const label = fieldLabel(lang, path)
    if (label === undefined) loose.push(message)
    else if (!labels.includes(label)) labels.push(label)
  }
  const parts = labels.length ? [t(lang, 'formError.checkFields', { fields: labels.join(', ') })] : []
  parts.push(...loose)
  return parts.join(' ') || t(lang, 'formError.checkForm')
}

const CODE_MESSAGES = {
  validation_failed: 'errorCode.validation_failed',
  bad_request: 'errorCode.bad_request',
  unauthorized: 'errorCode.unauthorized',
  forbidden: 'errorCode.forbidden',
  password_login_disabled: 'errorCode.password_login_disabled',
  not_found: 'errorCode.not_found',
  method_not_allowed: 'errorCode.method_not_allowed',
  email_taken: 'errorCode.email_taken',
  identity_mismatch: 'errorCode.identity_mismatch',
  conflict: 'errorCode.conflict',
  revision_conflict: 'errorCode.revision_conflict',
  operation_conflict: 'errorCode.operation_conflict',
  duplicate_relation: 'errorCode.duplicate_relation',
  slug_taken: 'errorCode.slug_taken',
  term_merged: 'errorCode.term_merged',
  payload_too_large: 'errorCode.payload_too_large',
  unsupported_media_type: 'errorCode.unsupported_media_type',
  header_too_large: 'errorCode.header_too_large',
  rate_limited: 'errorCode.rate_limited',
  internal_error: 'errorCode.internal_error',
  rag_provider_error: 'errorCode.rag_provider_error',
  rag_not_ready: 'errorCode.rag_not_ready',
  not_ready: 'errorCode.not_ready',
} as const satisfies Record<ErrorCode, MessageKey>

/** What an error code means for the reader, in a sentence. */
export function codeMessage(lang: Lang, code: ErrorCode): string {
  return translate(lang, CODE_MESSAGES[code])
}

function isFailureClass(value: unknown): value is AiFailureClass {
  return (AI_FAILURE_CLASSES as readonly unknown[]).includes(value)
}

/** What failed behind the page (the search provider), in words, and what to do. */
export function providerFailureMessage(lang: Lang, failureClass: AiFailureClass): string {
  const seconds = Math.round(CALL_LIMITS.timeoutMs / 100) / 10
  return `${t(lang, `failure.${failureClass}`, { seconds })} ${t(lang, `failure.todo.${failureClass}`)}`
}

/** The form-level message of a failure that is not about fields. */
function failureMessage(lang: Lang, error: AppError): string {
  const details = error.details ?? {}
  if (isFailureClass(details.failureClass)) return providerFailureMessage(lang, details.failureClass)
  if (error.code === 'rag_not_ready' && typeof details.reason === 'string') {
    const key = `failure.notReady.${details.reason}`
    if (isMessageKey(key)) return translate(lang, key)
  }
  if (error.code === 'rate_limited') {
    const seconds = Number(details.retryAfterSeconds)
    return Number.isFinite(seconds) && seconds > 0
      ? t(lang, 'errorCode.rate_limited_after', { seconds: Math.ceil(seconds) })
      : codeMessage(lang, 'rate_limited')
  }
  const knownMessage = known(KNOWN_FORM_MESSAGES, lang, error.message)
  if (knownMessage) return knownMessage
  // A service's own English sentence says more than its code; in another language the code's sentence.
  if (lang === 'en' && error.status < 500) return error.message
  return codeMessage(lang, error.code)
}

/** A failure (an expected AppError) in the reader's words: the form-level message and each field's. */
export function wordFailure(lang: Lang, error: AppError): Worded {
  const fieldErrors = failureFieldErrors(lang, error)
  if (error.code === 'validation_failed') {
    return { formError: checkFieldsMessage(lang, fieldErrors), fieldErrors }
  }
  return { formError: failureMessage(lang, error), fieldErrors }
}

/**
 * The message of an error page for a failure (a loader's bad filter, an unknown item): each refused field
 * with its label ("Status: Choose one of: …"), or what failed.
 */
export function errorPageMessage(lang: Lang, error: AppError): string {
  if (error.code !== 'validation_failed') return failureMessage(lang, error)
  const lines = Object.entries(failureFieldErrors(lang, error)).map(([path, message]) => {
    const label = FORM_PATHS.has(path) ? undefined : fieldLabel(lang, path)
    return label ? t(lang, 'formError.fieldList', { label, message }) : message
  })
  return lines.join(' ') || codeMessage(lang, 'validation_failed')
}
