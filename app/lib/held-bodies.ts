/**
 * Answers this process already holds as text or bytes, for the Responses it builds itself: the Fetch bridge
 * (app/server/fetch-bridge.server.ts) writes these directly instead of through a web stream. An API answer of
 * 125 KB otherwise went text → bytes → ReadableStream → Node stream → socket in many small steps; with the text
 * at hand it is one write (docs/decisions/013-letter-case.md, "Speed of the request path"). A Response serves
 * its held body to every reader (see HeldResponse).
 */

/**
 * A JSON answer that keeps its serialized text (or its UTF-8 bytes) as its body. Undici's `new Response(text)`
 * converts the text to a USVString (a full scan of it) and builds a web stream for it; and, measured with
 * --trace-gc-nvp, answers built that way survived the young-generation collections (~4.4 MB promoted every
 * other scavenge during the lookup benchmark, ~0.1 MB without them), so the full collections they caused put
 * 10–20 ms pauses into its tail (docs/decisions/013-letter-case.md, "Speed of the request path"). Here the base
 * Response has no body; the bridge writes the held body with one `res.end`, and any other reader (tests, Remix)
 * gets the same body through the usual methods or, only when asked for, a stream of it. It can be read more
 * than once.
 */
class HeldResponse extends Response {
  readonly held: string | Uint8Array
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined

  constructor(held: string | Uint8Array, init: ResponseInit) {
    super(null, init)
    this.held = held
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Response(this.#bytes()).body!
    return this.#stream
  }

  override get bodyUsed(): boolean {
    return false
  }

  override text(): Promise<string> {
    return Promise.resolve(this.#text())
  }

  override json(): Promise<unknown> {
    return Promise.resolve().then(() => JSON.parse(this.#text()) as unknown)
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes().buffer)
  }

  override blob(): Promise<Blob> {
    return Promise.resolve(new Blob([this.#bytes()], { type: this.headers.get('Content-Type') ?? '' }))
  }

  override clone(): Response {
    return new HeldResponse(this.held, this)
  }

  #text(): string {
    return typeof this.held === 'string' ? this.held : new TextDecoder().decode(this.held)
  }

  /** A fresh copy each time: a reader may keep or transfer what it is given. */
  #bytes(): Uint8Array<ArrayBuffer> {
    return typeof this.held === 'string' ? new TextEncoder().encode(this.held) : new Uint8Array(this.held)
  }
}

/**
 * A JSON answer: `value` serialized once and kept as text (the socket encodes it once). `init` names the
 * content type (JSON, or SARIF's JSON).
 */
export function jsonResponse(value: unknown, init: ResponseInit): Response {
  return new HeldResponse(JSON.stringify(value), init)
}

/** An answer whose body is already encoded (`bytes`, written to the socket as they are). */
export function bytesResponse(bytes: Uint8Array, init: ResponseInit): Response {
  return new HeldResponse(bytes, init)
}

/** The body of a Response built by this module (a text is written as UTF-8), or undefined (stream it then). */
export function heldResponseBody(response: Response): string | Uint8Array | undefined {
  return response instanceof HeldResponse ? response.held : undefined
}
