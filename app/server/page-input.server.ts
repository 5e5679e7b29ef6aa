import { Readable } from 'node:stream'
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express'
import { assertSameOrigin } from '#app/lib/auth-gate.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import { textDefect } from '#app/lib/text-input.ts'
import { isForbiddenMethod, readBody, requestHeaders, toFetchRequest } from './fetch-bridge.server.ts'

/**
 * The input boundary of the pages: before Remix runs a loader or an action, the URL (path segments and query
 * values) and a form body (URL-encoded or multipart text fields) must be well-formed text without NUL — the
 * same rule the API applies to its inputs (app/lib/text-input.ts). A failure here is a 4xx page, never a
 * 500 from deep inside a loader. Uploaded files are not text and are left to the action that reads them.
 */

/** A page request refused before Remix saw it; the HTTP layer renders it as a plain error page. */
export class PageInputError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'PageInputError'
  }
}

const FORM_URLENCODED = 'application/x-www-form-urlencoded'
const MULTIPART = 'multipart/form-data'

/**
 * Page actions that take large uploads (offline sync bundles, up to 1 GB: app/pages/sync-page.server.ts). Their
 * multipart body goes to the action as the stream it is — the action writes each file to disk as it arrives,
 * under its own size cap, and reads its few text fields itself — instead of being read whole into memory up to
 * MAX_BODY_BYTES and checked here. The address and the origin are checked as for every form.
 */
const STREAMED_UPLOADS = new Set(['/admin/sync'])

function isStreamedUpload(req: ExpressRequest, headers: Headers): boolean {
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  return req.method === 'POST' && type === MULTIPART && STREAMED_UPLOADS.has(req.path)
}

/** Checks the page request and turns it into the Fetch request Remix handles. */
export async function readPageRequest(req: ExpressRequest, res: ExpressResponse): Promise<Request> {
  if (isForbiddenMethod(req.method)) {
    throw new PageInputError(405, `${req.method} is not supported.`, { Allow: 'GET, HEAD, POST' })
  }
  checkUrl(req.originalUrl)
  const headers = requestHeaders(req)
  let body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | undefined
  if (isStreamedUpload(req, headers)) {
    checkFormOrigin(req.method, headers)
    body = Readable.toWeb(req) as ReadableStream<Uint8Array>
  } else if (req.method !== 'GET' && req.method !== 'HEAD') {
    body = new Uint8Array(
      await readBody(req).catch((error: unknown) => {
        if (error instanceof AppError) throw new PageInputError(error.status, error.message)
        throw error
      }),
    )
    await checkForm(headers, body)
    checkFormOrigin(req.method, headers)
  }
  return toFetchRequest(req, res, pageUrl(req), body, headers)
}

/**
 * The cross-site rule of form posts, before Remix sees them. An `Origin` (or `Referer`) that is present must be
 * one of GLOSSARY_ALLOWED_ORIGINS (the auth gate's rule; each action also requires it for signed-in writes):
 * otherwise a plain 403 page. Remix 2 has a check of its own that compares `Origin` with `Host` and answers a
 * bare 500 when they differ — which a foreign origin would hit first, and a reverse proxy that rewrites `Host`
 * would hit on every legitimate post. Once the origin is known to be allowed, the request handed to Remix
 * carries that origin's host, so only our rule decides.
 */
function checkFormOrigin(method: string, headers: Headers): void {
  try {
    assertSameOrigin({ method, headers }, false)
  } catch (error) {
    if (error instanceof AppError) throw new PageInputError(403, error.message)
    throw error
  }
  const origin = headers.get('origin')
  if (origin && origin !== 'null') {
    headers.set('host', new URL(origin).host)
    headers.delete('x-forwarded-host')
  }
}

function checkUrl(originalUrl: string): void {
  const q = originalUrl.indexOf('?')
  const path = q < 0 ? originalUrl : originalUrl.slice(0, q)
  const query = q < 0 ? '' : originalUrl.slice(q + 1)
  for (const segment of path.split('/')) checkText(segment, 'The address', false)
  for (const piece of query.split('&')) checkText(piece.replace(/\+/g, ' '), 'The query string', false)
}

async function checkForm(headers: Headers, body: Uint8Array<ArrayBuffer>): Promise<void> {
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (!type) {
    // A post without a body (curl -X POST, a bare fetch) is an empty form, which the action then refuses
    // with its own message; anything else without a type cannot be read as a form.
    if (body.byteLength > 0)
      throw new PageInputError(415, 'Send the form as a form (no content type was given).')
    headers.set('content-type', FORM_URLENCODED)
    return
  }
  if (type === FORM_URLENCODED) {
    const text = Buffer.from(body).toString('latin1') // percent-encoded: the bytes are ASCII when well-formed
    for (const piece of text.split('&')) {
      for (const part of piece.split('=')) checkText(part.replace(/\+/g, ' '), 'A form field', true)
    }
    return
  }
  if (type === MULTIPART) {
    let form: FormData
    try {
      form = await new Response(body, {
        headers: { 'content-type': headers.get('content-type')! },
      }).formData()
    } catch {
      throw new PageInputError(400, 'The form could not be read (malformed multipart body).')
    }
    for (const [name, value] of form) {
      const defect = textDefect(name) ?? (typeof value === 'string' ? textDefect(value) : undefined)
      if (defect) throw new PageInputError(400, `The form field "${printable(name)}" ${defect}`)
    }
    return
  }
  throw new PageInputError(415, `Pages accept forms only (got "${type}").`)
}

/** Percent-decodes strictly (malformed escapes and invalid UTF-8 are refused) and applies the text rule. */
function checkText(encoded: string, what: string, isForm: boolean): void {
  let decoded: string
  try {
    decoded = decodeURIComponent(encoded)
  } catch {
    throw new PageInputError(400, `${what} has malformed percent-encoding or is not valid UTF-8.`)
  }
  // Raw bytes outside ASCII in a URL-encoded body are not valid form encoding either.
  if (isForm && /[^\x20-\x7e]/.test(encoded)) {
    throw new PageInputError(400, `${what} is not URL-encoded.`)
  }
  const defect = textDefect(decoded)
  if (defect) throw new PageInputError(400, `${what} ${defect}`)
}

function printable(name: string): string {
  return name.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?').slice(0, 60)
}

/** The page URL as Remix expects it: this server's scheme and host, the path as sent. */
function pageUrl(req: ExpressRequest): string {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`
  try {
    return new URL(req.originalUrl, base).href
  } catch {
    return new URL(req.originalUrl, `${req.protocol}://localhost`).href
  }
}
