// A user's pace in a process of its own: GETs `url` every `everyMs` (each answered in full before the next
// waits), until a line arrives on stdin; then prints the durations (ms, to the last byte) as a JSON array.
// Its own process, so nothing the benchmark's process does (a provider stand-in computing vectors) delays it.
// Usage: node bench/sample-client.mjs <url> <headers as JSON> [everyMs=250]
import http from 'node:http'
import { performance } from 'node:perf_hooks'

const [url, headers, everyMs = '250'] = process.argv.slice(2)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const times = []
let running = true
process.stdin.once('data', () => (running = false))

function get() {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: JSON.parse(headers) }, (res) => {
        res.on('data', () => {})
        res.on('end', resolve)
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

while (running) {
  const started = performance.now()
  await get()
  times.push(performance.now() - started)
  await new Promise((resolve) => setTimeout(resolve, Number(everyMs)))
}
console.log(JSON.stringify(times))
process.exit(0)
