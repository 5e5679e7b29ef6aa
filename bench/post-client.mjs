// A client in its own process, as real clients are, so the benchmark's requests do not share the server's
// event loop and cores: POSTs a body file `count` times, one at a time with a pause between (the server
// gathers term candidates after each answer), and prints JSON: the times to the last byte of each answer, the
// size of the last answer and how long the client's JSON.parse of it took.
// Usage: node bench/post-client.mjs <url> <headers as JSON> <body file> [count=15] [pauseMs=500]
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [url, headers, bodyFile, count = '15', pauseMs = '500'] = process.argv.slice(2)
const body = readFileSync(bodyFile)
const times = []
let answer = new ArrayBuffer(0)
for (let i = 0; i < Number(count); i++) {
  const started = performance.now()
  const res = await fetch(url, { method: 'POST', headers: JSON.parse(headers), body })
  answer = await res.arrayBuffer()
  times.push(performance.now() - started)
  if (!res.ok) throw new Error(`${res.status}: ${Buffer.from(answer).toString('utf8').slice(0, 200)}`)
  await new Promise((resolve) => setTimeout(resolve, Number(pauseMs)))
}
const parseStarted = performance.now()
JSON.parse(Buffer.from(answer).toString('utf8'))
const parseMs = performance.now() - parseStarted
console.log(JSON.stringify({ times, bytes: answer.byteLength, parseMs }))
