/**
 * A small reader of server-sent events (the `text/event-stream` format of the WHATWG HTML standard, §9.2.6),
 * enough for a chat model's stream: it turns the body's bytes into the `data` of each event, in order. Lines
 * end in LF, CR or CRLF, possibly split across chunks; several `data:` lines of one event are joined with LF;
 * comments (`:`), `event`, `id` and `retry` fields are skipped. An event is dispatched at its blank line only,
 * so a body that ends mid-event gives nothing for it (the caller decides whether the stream was complete).
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8')
  let buffer = ''
  let data: string[] = []
  let pendingCr = false
  const lineOf = function* (line: string): Generator<string> {
    if (line === '') {
      if (data.length > 0) yield data.join('\n')
      data = []
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    if (field !== 'data') return
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    data.push(value)
  }
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    // A CR that ended the previous chunk was a line end; a LF right after it belongs to it.
    if (pendingCr && buffer.startsWith('\n')) buffer = buffer.slice(1)
    pendingCr = false
    let start = 0
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i)
      if (c !== 10 && c !== 13) continue
      yield* lineOf(buffer.slice(start, i))
      if (c === 13) {
        if (i + 1 === buffer.length) pendingCr = true
        else if (buffer.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    buffer = buffer.slice(start)
  }
  // The last line without its line end cannot end an event; it is dropped like the event it belongs to.
}
