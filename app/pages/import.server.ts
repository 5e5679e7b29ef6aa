import {
  MaxPartSizeExceededError,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
} from '@remix-run/node'
import { AppError, validationError } from '#app/lib/errors.server.ts'
import { IMPORT_MAX_BYTES, ImportSchema, type ImportInput } from '#app/schemas/import.ts'
import { jsonDepthProblem } from '#app/lib/json-depth.ts'
import { decodeUtf8Text } from '#app/lib/text-input.ts'

/**
 * Reads the import page's form (an uploaded file or pasted content; CSV or JSON, chosen or detected) into
 * the import input. Shared by the page's action (dry runs, and applying without JavaScript) and the
 * streamed apply route. A form that cannot be read is an AppError, which `formAction` shows on the form.
 */

export type ImportFormat = 'csv' | 'json'

export interface ImportForm {
  input: ImportInput
  intent: 'apply' | 'dry-run'
  content: string
  format: ImportFormat
  fileName: string
}

const uploadHandler = unstable_createMemoryUploadHandler({ maxPartSize: IMPORT_MAX_BYTES })

const unreadable = (message: string) => validationError([{ path: 'file', message }], message)

export async function readImportForm(request: Request): Promise<ImportForm> {
  let form: FormData
  try {
    // The page posts multipart (a file); a form without JavaScript's upload may come URL-encoded (pasted).
    form = (request.headers.get('content-type') ?? '').startsWith('multipart/form-data')
      ? await unstable_parseMultipartFormData(request, uploadHandler)
      : await request.formData()
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) {
      throw new AppError(
        'payload_too_large',
        `The file may be at most ${Math.floor(IMPORT_MAX_BYTES / 1024 / 1024)} MB.`,
      )
    }
    throw error
  }
  const intent = form.get('intent') === 'apply' ? 'apply' : 'dry-run'
  const file = form.get('file')
  const fileName = file instanceof File && file.size > 0 ? file.name : String(form.get('fileName') ?? '')
  const content =
    file instanceof File && file.size > 0
      ? decodeUtf8Text(new Uint8Array(await file.arrayBuffer()), 'file') // the text rule, for uploads too
      : String(form.get('content') ?? '').replace(/\r\n/g, '\n')
  if (!content.trim()) throw unreadable('Choose a CSV or JSON file, or paste its content.')
  const chosen = String(form.get('format') ?? 'auto')
  const format: ImportFormat =
    chosen === 'csv' || chosen === 'json'
      ? chosen
      : /\.json$/i.test(fileName) || /^\s*[[{]/.test(content.replace(/^\uFEFF/, ''))
        ? 'json'
        : 'csv'
  let body: Record<string, unknown>
  if (format === 'json') {
    // The API's limit, for the same reason: what the parse builds is walked and stored recursively.
    const tooDeep = jsonDepthProblem(content, 'file')
    if (tooDeep) throw unreadable(tooDeep.message)
    let parsedJson: unknown
    try {
      parsedJson = JSON.parse(content.replace(/^\uFEFF/, ''))
    } catch {
      throw unreadable('The file is not valid JSON.')
    }
    const rows = Array.isArray(parsedJson) ? parsedJson : (parsedJson as { rows?: unknown } | null)?.rows
    if (!Array.isArray(rows))
      throw unreadable('JSON must be an array of terms, or an object with a `rows` array.')
    body = { format, rows }
  } else {
    body = { format, csv: content }
  }
  // The checkbox "empty cells clear fields": unchecked (absent) is the API's default, keep.
  const emptyCells = form.get('emptyCells') === 'clear' ? 'clear' : 'keep'
  const input = ImportSchema.safeParse({ ...body, emptyCells, dryRun: intent === 'dry-run' })
  if (!input.success) {
    throw unreadable(input.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join(' '))
  }
  return { input: input.data, intent, content, format, fileName }
}
