/**
 * First sightings of looked-up texts: `npx tsx bench/first-sightings.bench.ts [--rounds N]`
 *
 * The lookup's memo remembers a text the second time it is asked (app/services/validation/lookup.server.ts),
 * so it must note every text asked once. Compares, over rounds of 500 texts no round asked before (as a
 * lookup request of new texts), a set of the strings (cleared past 20,000, as the memo was until session 9)
 * with `FirstSightings` (one bit per hash): the time of a round (median and p99) and the garbage collector's
 * pauses while the rounds ran. Each way runs in a child process of its own, alternately, so neither inherits
 * the other's heap. No assertions: figures for app/services/validation/first-sightings.ts and decision 013.
 */
import { execFileSync } from 'node:child_process'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { FirstSightings } from '../app/services/validation/first-sightings.ts'
import { LOOKUP_MEMO_MAX } from '../app/services/validation/lookup.server.ts'
import { percentile } from './support.ts'

const arg = (name: string, fallback: number) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback
const ROUNDS = arg('--rounds', 2000)
const way = process.argv.includes('--way') ? process.argv[process.argv.indexOf('--way') + 1] : undefined

/** The way the memo noted first sightings before: the strings in a set, a string taken out when seen again. */
function setOfStrings(): (text: string) => boolean {
  const askedOnce = new Set<string>()
  return (text) => {
    if (askedOnce.has(text)) {
      askedOnce.delete(text)
      return true
    }
    if (askedOnce.size >= LOOKUP_MEMO_MAX) askedOnce.clear()
    askedOnce.add(text)
    return false
  }
}

/** Runs the rounds one way in this process and prints one line. */
function measure(name: string): void {
  const seen =
    name === 'bits'
      ? (
          (s) => (text: string) =>
            s.seen(text)
        )(new FirstSightings(LOOKUP_MEMO_MAX))
      : setOfStrings()
  let pauses = 0
  let pauseMs = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauses++
      pauseMs += entry.duration
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const times: number[] = []
  let n = 0
  let mistaken = 0
  for (let r = 0; r < ROUNDS; r++) {
    // New strings each round, as JSON.parse makes them of a request's body.
    const texts = JSON.parse(
      JSON.stringify(Array.from({ length: 500 }, () => `VoraTixel ${n++}`)),
    ) as string[]
    const t0 = performance.now()
    for (const text of texts) if (seen(text)) mistaken++
    times.push(performance.now() - t0)
  }
  // Entries reach the observer after the task that made them.
  setTimeout(() => {
    observer.disconnect()
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`
    console.log(
      `${name === 'bits' ? 'FirstSightings (bits)' : 'Set of strings      '}: ${ROUNDS} rounds of 500 new texts: median ${us(percentile(times, 50))}, p99 ${us(percentile(times, 99))}; GC ${pauses} pauses, ${pauseMs.toFixed(1)} ms in all; new texts taken for seen ones: ${mistaken}`,
    )
  }, 50)
}

if (way) measure(way)
else {
  console.log(`first sightings, Node ${process.version}`)
  for (let run = 0; run < 2; run++) {
    for (const name of ['set', 'bits']) {
      process.stdout.write(
        execFileSync(process.execPath, [
          '--import',
          'tsx',
          import.meta.filename,
          '--way',
          name,
          '--rounds',
          String(ROUNDS),
        ]),
      )
    }
  }
}
