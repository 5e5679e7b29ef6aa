import type { HeaderReader, RequestHead } from '#app/lib/auth-gate.server.ts'

/**
 * What the API dispatcher reads of a request: its method, URL, headers and body bytes. The web process
 * (app/server/http.server.ts) hands the dispatcher these straight from Node's request; a Fetch `Request` is
 * made only when a handler asks for one (`ctx.request`: uploads read multipart form data, a few read a header).
 * Making a Fetch `Request` and its `Headers` for every call was ~12% of the term lookup's main-thread time
 * (undici checks every header name and value twice), for answers that never needed it
 * (docs/decisions/013-letter-case.md, "Speed of the request path"). Tests and benchmarks may still dispatch a
 * Fetch `Request` (`ApiRequest.fromFetch`).
 */

export class ApiRequest implements RequestHead {
  #request: Request | undefined
  readonly #makeRequest: () => Request

  /**
   * `makeRequest` builds the Fetch `Request` of the same method, URL, headers and body, the first time a
   * handler asks for it.
   */
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: HeaderReader,
    /** The body as read (already bounded by the web process); undefined for GET and HEAD. */
    readonly body: Uint8Array | undefined,
    makeRequest: () => Request,
  ) {
    this.#makeRequest = makeRequest
  }

  /** The Fetch `Request` of this call, made once when first asked for. */
  toRequest(): Request {
    this.#request ??= this.#makeRequest()
    return this.#request
  }

  /** The dispatcher's view of a Fetch `Request`: its body is read now, from a copy, so handlers can read it too. */
  static async fromFetch(request: Request): Promise<ApiRequest> {
    const body = request.body ? new Uint8Array(await request.clone().arrayBuffer()) : undefined
    return new ApiRequest(request.method, request.url, request.headers, body, () => request)
  }
}
