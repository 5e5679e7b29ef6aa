// A client in its own process, as real clients are, so the benchmark's requests do not share the server's
// event loop and cores: POSTs a body file `count` times, one at a time with a pause between (the server
// gathers term candidates after each answer), and prints JSON: the times to the last byte of each answer, the
// size of the last answer and how long the client's JSON.parse of it took.
// The first `warmup` requests are sent the same way but not timed (the server's and this client's code is not
// compiled yet; the first request also opens the connection); their times are printed apart as `warmupTimes`.
// A body file named `*.ndjson` holds one body per line: request i sends line i (the warm-up requests take the
// first lines), so each request can ask something else (the search benchmark's queries). With `answers` = 1
// the parsed answer of every timed request is printed too, as `answers` (the search benchmark's recall).
// Usage: node bench/post-client.mjs <url> <headers as JSON> <body file> [count=15] [pauseMs=500] [warmup=0]
//        [answers=0]
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [url, headers, bodyFile, count = '15', pauseMs = '500', warmup = '0', keepAnswers = '0'] =
  process.argv.slice(2)
const file = readFileSync(bodyFile)
const bodies = bodyFile.endsWith('.ndjson') ? file.toString('utf8').split('\n').filter(Boolean) : [file]
const warmupTimes = []
const times = []
const answers = []
let answer = new ArrayBuffer(0)
for (let i = 0; i < Number(warmup) + Number(count); i++) {
  const started = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: JSON.parse(headers),
    body: bodies[i % bodies.length],
  })
  answer = await res.arrayBuffer()
  const took = performance.now() - started
  if (i < Number(warmup)) warmupTimes.push(took)
  else times.push(took)
  if (!res.ok) throw new Error(`${res.status}: ${Buffer.from(answer).toString('utf8').slice(0, 200)}`)
  if (keepAnswers === '1' && i >= Number(warmup))
    answers.push(JSON.parse(Buffer.from(answer).toString('utf8')))
  await new Promise((resolve) => setTimeout(resolve, Number(pauseMs)))
}
const parseStarted = performance.now()
JSON.parse(Buffer.from(answer).toString('utf8'))
const parseMs = performance.now() - parseStarted
console.log(
  JSON.stringify({
    times,
    warmupTimes,
    bytes: answer.byteLength,
    parseMs,
    ...(keepAnswers === '1' ? { answers } : {}),
  }),
)
