/**
 * Bodies this process already holds as text or bytes, for the Requests and Responses it builds itself: the Fetch
 * bridge (app/server/fetch-bridge.server.ts) reads and writes these directly instead of through a web stream.
 * An API answer of 125 KB otherwise went text → bytes → ReadableStream → Node stream → socket in many small
 * steps; with the text at hand it is one write (docs/decisions/013-letter-case.md, "Speed of the request path").
 * A Request keeps its own body too; a Response serves its held text to every reader (see HeldTextResponse).
 */
const heldRequests = new WeakMap<Request, Uint8Array>()

/**
 * A JSON answer that keeps its serialized text as its body. Undici's `new Response(text)` converts the text to a
 * USVString (a full scan of it) and builds a web stream for it; and, measured with --trace-gc-nvp, answers
 * built that way survived the young-generation collections (~4.4 MB promoted every other scavenge during the
 * lookup benchmark, ~0.1 MB without them), so the full collections they caused put 10–20 ms pauses into its
 * tail (docs/decisions/013-letter-case.md, "Speed of the request path"). Here the base Response has no
 * body; the bridge writes the text with one `res.end`, and any other reader (tests, Remix) gets the same text
 * through the usual methods or, only when asked for, a stream of it. The text can be read more than once.
 */
class HeldTextResponse extends Response {
  readonly heldText: string
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined

  constructor(text: string, init: ResponseInit) {
    super(null, init)
    this.heldText = text
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Response(this.heldText).body!
    return this.#stream
  }

  override get bodyUsed(): boolean {
    return false
  }

  override text(): Promise<string> {
    return Promise.resolve(this.heldText)
  }

  override json(): Promise<unknown> {
    return Promise.resolve().then(() => JSON.parse(this.heldText) as unknown)
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(new TextEncoder().encode(this.heldText).buffer)
  }

  override blob(): Promise<Blob> {
    return Promise.resolve(new Blob([this.heldText], { type: this.headers.get('Content-Type') ?? '' }))
  }

  override clone(): Response {
    return new HeldTextResponse(this.heldText, this)
  }
}

/**
 * A JSON answer: `value` serialized once and kept as text (the socket encodes it once). `init` names the
 * content type (JSON, or SARIF's JSON).
 */
export function jsonResponse(value: unknown, init: ResponseInit): Response {
  return new HeldTextResponse(JSON.stringify(value), init)
}

/** A Request whose body is `bytes`, remembered for the readers of its body. */
export function requestWithBytes(
  url: string,
  init: RequestInit & { body?: Uint8Array<ArrayBuffer> },
): Request {
  const request = new Request(url, init)
  if (init.body) heldRequests.set(request, init.body)
  return request
}

/** The body of a Response built by this module (UTF-8 when written), or undefined (stream it then). */
export function heldResponseBody(response: Response): string | undefined {
  return response instanceof HeldTextResponse ? response.heldText : undefined
}

/** The bytes of a Request built by this module, or undefined (read its stream then). */
export function heldRequestBody(request: Request): Uint8Array | undefined {
  return heldRequests.get(request)
}
