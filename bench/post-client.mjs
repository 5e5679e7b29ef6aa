// A client in its own process, as real clients are, so the benchmark's requests do not share the server's
// event loop and cores: POSTs a body file `count` times, one at a time with a pause between (the server
// gathers term candidates after each answer), and prints JSON: the times to the last byte of each answer, the
// size of the last answer and how long the client's JSON.parse of it took.
// The first `warmup` requests are sent the same way but not timed (the server's and this client's code is not
// compiled yet; the first request also opens the connection); their times are printed apart as `warmupTimes`.
// A body file named `*.ndjson` holds one body per line: request i sends line i (the warm-up requests take the
// first lines), so each request can ask something else (the search benchmark's queries). With `answers` = 1
// the parsed answer of every timed request is printed too, as `answers` (the search benchmark's recall).
// With `client` = http the requests go through node:http with one kept-alive connection instead of fetch:
// undici's fetch turns every answer into a web stream, which costs this client ~1.5 ms of a 130 KB answer at
// p50 and several at p99 (decision 013, session 9), time that is the client's, not the server's.
// Usage: node bench/post-client.mjs <url> <headers as JSON> <body file> [count=15] [pauseMs=500] [warmup=0]
//        [answers=0] [client=fetch|http]
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [
  url,
  headers,
  bodyFile,
  count = '15',
  pauseMs = '500',
  warmup = '0',
  keepAnswers = '0',
  client = 'fetch',
] = process.argv.slice(2)
const file = readFileSync(bodyFile)
const bodies = bodyFile.endsWith('.ndjson') ? file.toString('utf8').split('\n').filter(Boolean) : [file]
const warmupTimes = []
const times = []
const answers = []
let answer = new ArrayBuffer(0)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

/** POSTs `body` with node:http on the kept-alive connection; the status and the whole answer. */
function postWithHttp(body) {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body)
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...JSON.parse(headers), 'content-length': bytes.length },
      },
      (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode, answer: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(bytes)
  })
}

/** POSTs `body` with fetch; the status and the whole answer. */
async function postWithFetch(body) {
  const res = await fetch(url, { method: 'POST', headers: JSON.parse(headers), body })
  return { status: res.status, answer: await res.arrayBuffer() }
}

const post = client === 'http' ? postWithHttp : postWithFetch
for (let i = 0; i < Number(warmup) + Number(count); i++) {
  const started = performance.now()
  const { status, answer: received } = await post(bodies[i % bodies.length])
  answer = received
  const took = performance.now() - started
  if (i < Number(warmup)) warmupTimes.push(took)
  else times.push(took)
  if (status < 200 || status > 299)
    throw new Error(`${status}: ${Buffer.from(answer).toString('utf8').slice(0, 200)}`)
  if (keepAnswers === '1' && i >= Number(warmup))
    answers.push(JSON.parse(Buffer.from(answer).toString('utf8')))
  await new Promise((resolve) => setTimeout(resolve, Number(pauseMs)))
}
const parseStarted = performance.now()
JSON.parse(Buffer.from(answer).toString('utf8'))
const parseMs = performance.now() - parseStarted
agent.destroy()
console.log(
  JSON.stringify({
    times,
    warmupTimes,
    bytes: answer.byteLength,
    parseMs,
    ...(keepAnswers === '1' ? { answers } : {}),
  }),
)
