// The clients of bench/export-load.bench.ts, each in a process of its own (forked with an IPC channel), so
// neither shares the server's event loop and cores nor the other's: the downloads' reading would otherwise
// delay the probe's own timing.
//
// `node bench/export-load-client.mjs exporters <config JSON>`: config { url, workers: [headers…] }. Each worker
// downloads `url` to the end and starts again; on a 429 it waits the answer's Retry-After (as a polite client
// does) and asks again. It sends { ready: true } once every worker has had the headers of its first answer, and on the
// message 'stop' destroys the downloads in flight (a client that goes away mid-download) and sends
// { stats: { ok, limited, aborted, failed, bytes, durations } } (durations: ms of each whole download), then exits.
//
// `node bench/export-load-client.mjs probe <config JSON>`: config { url, headers, warmup, pauseMs, seconds,
// minCount }. GETs `url` one at a time over one kept-alive connection, `warmup` untimed first, then timed (to
// the last byte), a pause between, until `seconds` have passed and at least `minCount` were timed. Sends
// { times, warmupTimes, statuses }.
import http from 'node:http'
import { performance } from 'node:perf_hooks'

const [mode, configText] = process.argv.slice(2)
const config = JSON.parse(configText)
const send = (message) => new Promise((resolve) => process.send(message, resolve))

if (mode === 'probe') await probe()
else if (mode === 'exporters') await exporters()
else throw new Error(`unknown mode ${mode}`)

async function probe() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = () =>
    new Promise((resolve, reject) => {
      const req = http.get(config.url, { agent, headers: config.headers }, (res) => {
        res.on('data', () => {})
        res.on('end', () => resolve(res.statusCode))
        res.on('error', reject)
      })
      req.on('error', reject)
    })
  const times = []
  const warmupTimes = []
  const statuses = {}
  const started = performance.now()
  for (let i = 0; ; i++) {
    const t0 = performance.now()
    const status = await get()
    const took = performance.now() - t0
    statuses[status] = (statuses[status] ?? 0) + 1
    if (i < config.warmup) warmupTimes.push(took)
    else times.push(took)
    if (times.length >= config.minCount && performance.now() - started > config.seconds * 1000) break
    await new Promise((resolve) => setTimeout(resolve, config.pauseMs))
  }
  agent.destroy()
  await send({ times, warmupTimes, statuses })
  process.exit(0)
}

async function exporters() {
  const stats = { ok: 0, limited: 0, aborted: 0, failed: 0, bytes: 0, durations: [] }
  const inFlight = new Set()
  let stopping = false
  let answered = 0
  const firstAnswer = () => {
    if (++answered === config.workers.length) void send({ ready: true })
  }
  const download = (headers, onAnswer) =>
    new Promise((resolve) => {
      const started = performance.now()
      const req = http.get(config.url, { headers, agent: false }, (res) => {
        onAnswer()
        const retryAfter = Number(res.headers['retry-after'] ?? 1)
        res.on('data', (chunk) => (stats.bytes += chunk.length))
        res.on('end', () => {
          inFlight.delete(req)
          if (res.statusCode === 429) stats.limited++
          else if (res.statusCode === 200) {
            stats.ok++
            stats.durations.push(performance.now() - started)
          } else stats.failed++
          resolve(res.statusCode === 429 ? retryAfter : 0)
        })
        res.on('error', () => {})
        if (res.statusCode !== 200) res.resume()
      })
      inFlight.add(req)
      req.on('close', () => {
        if (inFlight.delete(req)) {
          if (stopping) stats.aborted++
          else stats.failed++
          resolve(0)
        }
      })
      req.on('error', () => {})
    })
  const worker = async (headers) => {
    let first = true
    while (!stopping) {
      const waitSeconds = await download(headers, () => {
        if (first) firstAnswer()
        first = false
      })
      if (waitSeconds && !stopping) await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000))
    }
  }
  process.on('message', async (message) => {
    if (message !== 'stop') return
    stopping = true
    for (const req of [...inFlight]) req.destroy()
    await send({ stats })
    process.exit(0)
  })
  await Promise.all(config.workers.map((headers) => worker(headers)))
}
