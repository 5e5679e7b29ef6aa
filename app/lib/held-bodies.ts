/**
 * Bodies this process already holds as text or bytes, for the Requests and Responses it builds itself: the Fetch
 * bridge (app/server/fetch-bridge.server.ts) reads and writes these directly instead of through a web stream.
 * An API answer of 125 KB otherwise went text → bytes → ReadableStream → Node stream → socket in many small
 * steps; with the text at hand it is one `res.end(text)` (docs/decisions/013-letter-case.md, "Speed").
 * The Request or Response keeps its own body too, so any other reader sees the same content.
 */
const held = new WeakMap<Request | Response, Uint8Array | string>()

/**
 * A JSON answer: `value` serialized once and remembered as text (the socket encodes it once; a Response made
 * from a string is also four times cheaper to construct than one made from bytes).
 */
export function jsonResponse(value: unknown, init: ResponseInit): Response {
  const text = JSON.stringify(value)
  const response = new Response(text, init)
  held.set(response, text)
  return response
}

/** A Request whose body is `bytes`, remembered for the readers of its body. */
export function requestWithBytes(
  url: string,
  init: RequestInit & { body?: Uint8Array<ArrayBuffer> },
): Request {
  const request = new Request(url, init)
  if (init.body) held.set(request, init.body)
  return request
}

/** The body of a Response built by this module (UTF-8 when written), or undefined (stream it then). */
export function heldResponseBody(response: Response): Uint8Array | string | undefined {
  return held.get(response)
}

/** The bytes of a Request built by this module, or undefined (read its stream then). */
export function heldRequestBody(request: Request): Uint8Array | undefined {
  const body = held.get(request)
  return typeof body === 'string' ? undefined : body
}
