// A chat client in its own process (as real clients are, so the benchmark's requests do not share the server's
// event loop): POSTs each body of an NDJSON file to `POST /api/v1/chat`, one at a time with a pause between, on
// one kept-alive connection, and prints JSON: for each request the time to the first byte of the answer's body
// and to its last byte, and the answer's trace id (the server's AI run rows of the request carry it, so the
// benchmark can subtract the provider's time). With `stream` = 1 it asks for server-sent events
// (`Accept: text/event-stream`) and reads the trace id from the final `answer` event.
// The first `warmup` bodies are sent the same way but not reported.
// Usage: node bench/chat-client.mjs <url> <headers as JSON> <body file> [pauseMs=50] [warmup=0] [stream=0]
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [url, headers, bodyFile, pauseMs = '50', warmup = '0', stream = '0'] = process.argv.slice(2)
const bodies = readFileSync(bodyFile, 'utf8').split('\n').filter(Boolean)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const streaming = stream === '1'

function post(body) {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body)
    const started = performance.now()
    let firstByte
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...JSON.parse(headers),
          'content-type': 'application/json',
          'content-length': bytes.length,
          accept: streaming ? 'text/event-stream' : 'application/json',
        },
      },
      (res) => {
        const chunks = []
        res.on('data', (chunk) => {
          firstByte ??= performance.now() - started
          chunks.push(chunk)
        })
        res.on('end', () => {
          const total = performance.now() - started
          const text = Buffer.concat(chunks).toString('utf8')
          let answer
          if (streaming) {
            const last = /event: answer\ndata: (.*)\n/.exec(text)
            answer = last ? JSON.parse(last[1]) : undefined
          } else if (res.statusCode === 200) answer = JSON.parse(text)
          if (!answer) return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`))
          resolve({ firstByte, total, traceId: answer.traceId, searchMode: answer.searchMode })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(bytes)
  })
}

const results = []
for (const [i, body] of bodies.entries()) {
  const result = await post(body)
  if (i >= Number(warmup)) results.push(result)
  await new Promise((resolve) => setTimeout(resolve, Number(pauseMs)))
}
agent.destroy()
process.stdout.write(JSON.stringify(results))
