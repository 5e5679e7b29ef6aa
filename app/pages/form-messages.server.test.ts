import { describe, expect, it } from 'vitest'
import { z, type ZodError } from 'zod'
import { AppError, expectedError, validationError } from '#app/lib/errors.server.ts'
import { checkFieldsMessage, errorPageMessage, wordFailure, zodFieldErrors } from './form-messages.server.ts'

/** The wording of refused forms, failure by failure (the pages' side; the API envelope is not touched). */

function zodErrorOf(schema: z.ZodType, value: unknown): ZodError {
  const result = schema.safeParse(value)
  if (result.success) throw new Error('accepted')
  return result.error
}

describe('zod issues are worded by kind, never in zod’s words', () => {
  const schema = z.object({
    name: z.string().trim().min(1),
    password: z.string().min(8),
    note: z.string().max(5),
    scopes: z.array(z.enum(['read', 'write'])).min(1),
    role: z.enum(['admin', 'editor', 'viewer']),
    into: z.uuid(),
    topK: z.coerce.number().int().min(1).max(50),
    sourceUrl: z.url(),
  })
  const error = zodErrorOf(schema, {
    name: ' ',
    password: 'short',
    note: 'far too long',
    scopes: [],
    role: 'owner',
    into: 'api-gateway',
    topK: '99',
    sourceUrl: 'not a url',
  })

  it('in English', () => {
    expect(zodFieldErrors('en', error)).toEqual({
      name: 'Fill in this field.',
      password: 'Enter at least 8 characters.',
      note: 'Enter at most 5 characters (now too long).',
      scopes: 'Choose at least one.',
      role: 'Choose one of: Admin, Editor, Viewer.',
      into: 'Choose a term from the list.',
      topK: 'Enter a number of at most 50.',
      sourceUrl: 'Enter a web address starting with http:// or https://.',
    })
  })

  it('in Korean', () => {
    const ko = zodFieldErrors('ko', error)
    expect(ko.password).toBe('8자 이상 입력하세요.')
    expect(ko.into).toBe('목록에서 용어를 고르세요.')
    expect(ko.role).toBe('다음 중 하나를 고르세요: 관리자, 편집자, 열람자.')
    for (const message of Object.values(ko)) expect(message).not.toMatch(/Invalid|expected/)
  })

  it('a service that parsed with zod keeps its issues for the page (the cause), the API its envelope', () => {
    const failure = expectedError(error)!
    expect(failure.code).toBe('validation_failed')
    expect((failure.details?.problems as { message: string }[])[5]!.message).toBe('Invalid UUID')
    expect(wordFailure('en', failure).fieldErrors.into).toBe('Choose a term from the list.')
  })
})

describe('a service’s problems and failures', () => {
  it('known messages are translated; an unknown one is kept, after a Korean “check this value”', () => {
    const failure = validationError([
      { path: 'domains.0', message: 'Unknown domain "platform".' },
      { path: 'title', message: 'A brand-new rule nobody translated.' },
    ])
    const en = wordFailure('en', failure)
    expect(en.fieldErrors).toEqual({
      'domains.0':
        'There is no domain “platform”. Choose one of the defined domains (an administrator adds them).',
      title: 'A brand-new rule nobody translated.',
    })
    expect(en.formError).toBe('Check the marked fields: Domains, Title.')
    const ko = wordFailure('ko', failure)
    expect(ko.fieldErrors['domains.0']).toMatch(/^“platform” 도메인이 없습니다\./)
    expect(ko.fieldErrors.title).toBe('이 값을 확인하세요: A brand-new rule nobody translated.')
    expect(ko.formError).toBe('표시된 항목을 확인하세요: 도메인, 제목.')
  })

  it('a problem about the whole form, or at a field the list does not know, is said in the form-level message', () => {
    expect(
      checkFieldsMessage('en', { '(root)': 'Change at least one field.', baseRevision: 'Enter a number.' }),
    ).toBe('Change at least one field. Enter a number.')
    expect(checkFieldsMessage('en', {})).toBe('Check the marked fields.')
  })

  it('a failure with a code and no field: the service’s English, or the code’s sentence in Korean', () => {
    const conflict = new AppError('email_taken', 'An account with this email already exists.')
    expect(wordFailure('en', conflict).formError).toBe('An account with this email already exists.')
    expect(wordFailure('ko', conflict).formError).toBe('이 이메일로 된 계정이 이미 있습니다.')
    const limited = new AppError('rate_limited', 'Too many requests; try again later.', {
      details: { retryAfterSeconds: 42 },
    })
    expect(wordFailure('en', limited).formError).toBe('Too many attempts. Try again in 42 seconds.')
    expect(wordFailure('ko', limited).formError).toBe('시도가 너무 많습니다. 42초 뒤 다시 해 보세요.')
  })

  it('a provider failure says what failed and what to do, never its class key', () => {
    const failure = new AppError('rag_provider_error', 'The provider call failed (authentication): x', {
      details: { failureClass: 'authentication' },
    })
    expect(wordFailure('en', failure).formError).toBe(
      'The search provider refused the API key or a custom header. Check the API key and headers in the search settings.',
    )
    expect(wordFailure('ko', failure).formError).not.toContain('authentication')
  })

  it('an error page names the refused field with its label', () => {
    const failure = expectedError(zodErrorOf(z.object({ status: z.enum(['active', 'deprecated']) }), {}))!
    expect(errorPageMessage('en', failure)).toBe('Status: Choose one of: Active, Deprecated.')
  })
})
