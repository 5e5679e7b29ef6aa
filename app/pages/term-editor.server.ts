import crypto from 'node:crypto'
import {
  data,
  unstable_parseMultipartFormData,
  type AppLoadContext,
  type UploadHandler,
} from '@remix-run/node'
import { AppError, expectedError } from '#app/lib/errors.server.ts'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { CreateTermSchema, UpdateTermSchema } from '#app/schemas/terms.ts'
import { ATTACHMENT_MAX_BYTES, storeAttachment } from '#app/services/attachments/attachments.server.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { getRevision } from '#app/services/terms/read.server.ts'
import { createTerm, updateTerm } from '#app/services/terms/write.server.ts'
import {
  appendToBody,
  EMPTY_NOTATION,
  errorsToRows,
  inputOfValues,
  valuesFromForm,
  type ConflictInfo,
  type EditorResult,
  type EditorValues,
} from '#app/components/terms/editor-values.ts'
import { formErrorOf, pageMessage, problemsOf } from './forms.server.ts'
import { requireUserAction } from './session.server.ts'

/** What a form part too large to keep reads as (the rest of the form still arrives). */
const TOO_LARGE = '\u0000too-large'

/**
 * Every editor part (text fields and the image) is held in memory up to the attachment limit; a larger part
 * is drained and marked, so the user's text survives an oversized image.
 */
const uploadHandler: UploadHandler = async ({ filename, contentType, data: stream }) => {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of stream) {
    size += chunk.byteLength
    if (size <= ATTACHMENT_MAX_BYTES) chunks.push(chunk)
  }
  if (size > ATTACHMENT_MAX_BYTES) return TOO_LARGE
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  if (typeof filename === 'string') return new File([bytes], filename, { type: contentType })
  return new TextDecoder().decode(bytes)
}

async function readForm(request: Request): Promise<FormData> {
  const type = request.headers.get('content-type') ?? ''
  if (!type.startsWith('multipart/form-data')) return request.formData()
  return unstable_parseMultipartFormData(request, uploadHandler)
}

function reply(result: Omit<EditorResult, 'nonce'>, status = 200) {
  return data<EditorResult>({ ...result, nonce: crypto.randomUUID() }, { status })
}

function failure(
  answer: (result: Omit<EditorResult, 'nonce' | 'baseRevision'>, status?: number) => ReturnType<typeof reply>,
  error: AppError,
  intent: string,
  values: EditorValues,
  rowOf: number[] = [],
) {
  return answer(
    {
      ok: false,
      intent,
      values,
      formError: formErrorOf(error),
      fieldErrors: errorsToRows(problemsOf(error), rowOf),
      code: error.code,
    },
    error.status,
  )
}

const termPath = (slug: string) => `/terms/${encodeURIComponent(slug)}`

/**
 * The action of the new-term and edit pages. Intents: `save` (default), `add-notation` and
 * `remove-notation-<row>` (the notation editor without JavaScript), `preview` (the Markdown preview without
 * JavaScript) and `upload` (an image stored as an attachment and referenced from the body).
 */
export async function termEditorAction(options: {
  request: Request
  /** The request's load context (where the confirmation's cookie is written). */
  context: AppLoadContext
  /** The term being edited; absent on the new-term page. */
  idOrSlug?: string
}): Promise<Response | ReturnType<typeof reply>> {
  const actor = await requireUserAction(options.request, 'editor')
  const form = await readForm(options.request)
  for (const [name, value] of form) {
    if (value === TOO_LARGE && name !== 'image') {
      throw data({ message: `The field ${name} is too large.` }, { status: 413 })
    }
  }
  const intent = String(form.get('intent') ?? 'save')
  const values = valuesFromForm(form)
  const baseRevision = Number(form.get('baseRevision') ?? 0) || undefined
  const answer = (result: Omit<EditorResult, 'nonce' | 'baseRevision'>, status = 200) =>
    reply({ ...result, baseRevision }, status)

  if (intent === 'add-notation') {
    values.notations.push({ ...EMPTY_NOTATION })
    return answer({ ok: true, intent, values })
  }
  if (intent.startsWith('remove-notation-')) {
    values.notations.splice(Number(intent.slice('remove-notation-'.length)), 1)
    return answer({ ok: true, intent, values })
  }
  if (intent === 'preview') {
    return answer({ ok: true, intent, values, previewHtml: renderMarkdown(values.body) })
  }
  if (intent === 'upload') {
    const file = form.get('image')
    if (file === TOO_LARGE) {
      const limit = `${ATTACHMENT_MAX_BYTES / 1024 / 1024} MB`
      return answer(
        {
          ok: false,
          intent,
          values,
          fieldErrors: { image: pageMessage('fieldError.imageTooLarge', { size: limit }) },
        },
        413,
      )
    }
    if (!(file instanceof File) || file.size === 0) {
      return answer({
        ok: false,
        intent,
        values,
        fieldErrors: { image: pageMessage('fieldError.imageMissing') },
      })
    }
    try {
      const attachment = await storeAttachment({
        bytes: new Uint8Array(await file.arrayBuffer()),
        declaredType: file.type,
        actorId: actor.user.id,
      })
      const alt = (
        String(form.get('alt') ?? '').trim() ||
        file.name.replace(/\.[^.]*$/, '') ||
        'image'
      ).replace(/[[\]\n\r]/g, ' ')
      const markdown = `![${alt}](${attachment.url})`
      // The whole editor was posted (no JavaScript): put the reference at the end of the body.
      if (form.has('body')) values.body = appendToBody(values.body, markdown)
      return answer({ ok: true, intent, values, markdown })
    } catch (error) {
      if (error instanceof AppError) {
        return answer({ ok: false, intent, values, fieldErrors: { image: formErrorOf(error) } }, error.status)
      }
      throw error
    }
  }

  const { input, rowOf } = inputOfValues(values)
  try {
    if (!options.idOrSlug) {
      const parsed = CreateTermSchema.safeParse(input)
      if (!parsed.success) throw parsed.error
      const term = await createTerm({ input: parsed.data, actorId: actor.user.id })
      return redirectWithFlash(
        termPath(term.slug),
        {
          kind: 'success',
          message: 'flash.termCreated',
          values: { name: term.name, revision: `${term.revision}` },
        },
        options.context,
      )
    }
    const rebase = Number(form.get('rebase') ?? 0)
    const parsed = UpdateTermSchema.safeParse({
      ...input,
      baseRevision: rebase > 0 ? rebase : baseRevision,
    })
    if (!parsed.success) throw parsed.error
    const term = await updateTerm({ idOrSlug: options.idOrSlug, input: parsed.data, actorId: actor.user.id })
    // Identical content creates no revision: say so instead of "saved".
    const unchanged = term.revision === parsed.data.baseRevision
    return redirectWithFlash(
      termPath(term.slug),
      {
        kind: unchanged ? 'info' : 'success',
        message: unchanged ? 'flash.termUnchanged' : 'flash.termSaved',
        values: { name: term.name, revision: `${term.revision}` },
      },
      options.context,
    )
  } catch (error) {
    const appError = expectedError(error)
    if (!appError) throw error
    if (appError.code === 'revision_conflict' && options.idOrSlug) {
      const details = appError.details as { currentRevision: number; baseRevision: number }
      const current = await getRevision({ idOrSlug: options.idOrSlug, revision: details.currentRevision })
      const conflict: ConflictInfo = {
        baseRevision: details.baseRevision,
        currentRevision: details.currentRevision,
        savedBy: current.author?.name ?? null,
        savedAt: current.createdAt,
        slug: current.content.slug,
      }
      return answer(
        { ok: false, intent, values, code: appError.code, formError: formErrorOf(appError), conflict },
        409,
      )
    }
    return failure(answer, appError, intent, values, rowOf)
  }
}
