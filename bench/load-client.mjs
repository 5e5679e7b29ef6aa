// A load generator in its own process (autocannon is not a dependency): keeps `concurrency` POSTs of one body in
// flight for `seconds`, each answered in full before the next goes on the same kept-alive connection, and
// spreads them round-robin over the given base URLs (one per web replica), as a load balancer would. Closed
// loop: throughput is what the servers sustain at that concurrency. The first `warmup` seconds run the same way
// and are not counted (code compiling, the matcher built in each replica, connections opening).
// Prints JSON: requests and errors counted, requests/s, latency percentiles (ms, to the last byte), requests
// per target.
// Usage: node bench/load-client.mjs <url[,url…]> <headers as JSON> <body file> [concurrency=4] [seconds=20]
//        [warmup=5]
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [urlList, headers, bodyFile, concurrency = '4', seconds = '20', warmup = '5'] = process.argv.slice(2)
const urls = urlList.split(',')
const body = readFileSync(bodyFile)
const requestHeaders = { ...JSON.parse(headers), 'content-length': body.length }
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) })

/** POSTs the body to `url`; resolves with the status once the whole answer has arrived. */
function post(url) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: requestHeaders }, (res) => {
      res.on('data', () => {})
      res.on('end', () => resolve(res.statusCode))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

const started = performance.now()
const countFrom = started + Number(warmup) * 1000
const stopAt = countFrom + Number(seconds) * 1000
const times = []
const perTarget = urls.map(() => 0)
let errors = 0
let firstError
let next = 0

async function worker() {
  while (performance.now() < stopAt) {
    const target = next++ % urls.length
    const sent = performance.now()
    let status
    try {
      status = await post(urls[target])
    } catch (error) {
      status = String(error)
    }
    const done = performance.now()
    if (sent < countFrom) continue
    if (status !== 200) {
      errors++
      firstError ??= status
      continue
    }
    times.push(done - sent)
    perTarget[target]++
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, worker))
const measured = (performance.now() - countFrom) / 1000
agent.destroy()
times.sort((a, b) => a - b)
console.log(
  JSON.stringify({
    requests: times.length,
    errors,
    firstError,
    seconds: measured,
    perSecond: times.length / measured,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    perTarget,
  }),
)
