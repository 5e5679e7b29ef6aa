/**
 * Term matcher benchmark: `npx tsx bench/matcher.bench.ts [--compare DIR] [--runs N] [--terms N]`
 *
 * Generates (with a seeded PRNG, so runs are comparable) N terms × 4 notations — an English word, an
 * English phrase, a Korean word, a Korean or mixed phrase — and a 1 MiB (UTF-8) mixed Korean/English
 * document full of real occurrences with particles attached, then prints build time, scan time
 * (median of several runs), matches found, and memory for 10,000 and 100,000 terms.
 *
 * --compare DIR: also time npm Aho-Corasick packages installed in DIR (e.g. /tmp/acbench, outside the
 * project: `npm install modern-ahocorasick @monyone/aho-corasick`) on the same normalized notations and
 * text, as raw engines (all overlapping hits, no boundary rules), next to our automaton's raw scan.
 * No assertions on time: this prints figures for docs/decisions/002-term-matching.md.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { buildAutomaton } from '../app/services/matching/automaton.ts'
import { buildMatcher, type MatcherEntry } from '../app/services/matching/matcher.ts'
import { normalizeKey, normalizeWithMap, unitsToString } from '../app/services/matching/normalize.ts'
import { prng } from './support.ts'

// --- helpers ---------------------------------------------------------------------------------------

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function collect(): void {
  for (let k = 0; k < 3; k++) gc()
}

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/** Wall-clock and CPU time of one call. CPU time is the figure to trust on a shared, loaded machine. */
interface Timing {
  wall: number
  cpu: number
}

function time<T>(fn: () => T): [T, Timing] {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const r = fn()
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  return [r, { wall, cpu: (c.user + c.system) / 1000 }]
}

/** "median X ms (min Y)" for wall and CPU. */
function summary(ts: Timing[]): string {
  const w = ts.map((t) => t.wall)
  const c = ts.map((t) => t.cpu)
  return (
    `wall median ${median(w).toFixed(1)} ms (min ${Math.min(...w).toFixed(1)}), ` +
    `CPU median ${median(c).toFixed(1)} ms (min ${Math.min(...c).toFixed(1)})`
  )
}

const ms = (t: Timing): string => `wall ${t.wall.toFixed(0)} ms / CPU ${t.cpu.toFixed(0)} ms`

// --- data ------------------------------------------------------------------------------------------

const CONSONANTS = 'bcdfghjklmnprstvwz'
const VOWELS = 'aeiou'
// Common Hangul syllables, so generated Korean words share prefixes like real vocabulary does.
const HANGUL =
  '가각간갈감강개거건검게격견결경계고공과관광교구국군권규그극근글금기길김나남내너년노누능다단달담당대더데도독동두드등디라락란람랑래량러레력련령로록론료루류르리림마만말망매머메면명모목무문물미민바박반발방배백버번법변보복본부북분불비빌사산상새생서석선설성세소속손송수순술스승시식신실심아안알압앙애야약양어언업에여역연열영예오온완왕외요용우운원월위유육윤으은을음응의이인일임입자작장재저전절점정제조종주준중즈증지직진질집차착찬참창채처천철첨청체초총최추축출충치칙친카커코크키타탄태터테토통투트특티파판패퍼페편평포표품프피필하학한할함합항해행향허현형호화확환활회효후휴흐희'

function pick<T>(rng: () => number, xs: readonly T[] | string): T | string {
  return xs[Math.floor(rng() * xs.length)]
}

function englishWord(rng: () => number, syllables: number): string {
  let w = ''
  for (let k = 0; k < syllables; k++) w += pick(rng, CONSONANTS) + (pick(rng, VOWELS) as string)
  return w
}

function koreanWord(rng: () => number, syllables: number): string {
  let w = ''
  for (let k = 0; k < syllables; k++) w += pick(rng, HANGUL) as string
  return w
}

interface Generated {
  entries: MatcherEntry<{ termId: number; kind: string }>[]
}

/** `terms` terms × 4 notations. Some English notations are capitalized or all caps like real ones. */
export function generateTerms(terms: number, seed: number): Generated {
  const rng = prng(seed)
  const entries: Generated['entries'] = []
  const kinds = ['preferred', 'admitted', 'deprecated']
  const cased = (w: string): string => {
    const r = rng()
    if (r < 0.15) return w.toUpperCase()
    if (r < 0.4) return w[0].toUpperCase() + w.slice(1)
    return w
  }
  for (let t = 0; t < terms; t++) {
    const texts = [
      cased(englishWord(rng, 2 + Math.floor(rng() * 3))),
      `${englishWord(rng, 2 + Math.floor(rng() * 2))} ${englishWord(rng, 2 + Math.floor(rng() * 3))}` +
        (rng() < 0.3 ? ` ${englishWord(rng, 2)}` : ''),
      koreanWord(rng, 2 + Math.floor(rng() * 3)),
      rng() < 0.5
        ? `${koreanWord(rng, 2 + Math.floor(rng() * 2))} ${koreanWord(rng, 2 + Math.floor(rng() * 2))}`
        : `${cased(englishWord(rng, 2))} ${koreanWord(rng, 2 + Math.floor(rng() * 2))}`,
    ]
    texts.forEach((text, k) => {
      entries.push({ id: t * 4 + k, text, payload: { termId: t, kind: kinds[k % 3] } })
    })
  }
  return { entries }
}

const PARTICLES = ['', '', '를', '는', '에서', '의', '으로', '와', '에서는', '이다', '들의', '가', '도']

/**
 * About `bytes` of UTF-8: sentences of Korean and English filler words with notations (about one token
 * in four) followed by particles, punctuation and line breaks.
 */
export function generateText(bytes: number, notations: readonly string[], seed: number): string {
  const rng = prng(seed)
  const parts: string[] = []
  let size = 0
  let sentence = 0
  while (size < bytes) {
    const r = rng()
    let token: string
    if (r < 0.25) {
      token = notations[Math.floor(rng() * notations.length)] + (pick(rng, PARTICLES) as string)
    } else if (r < 0.6) {
      token = koreanWord(rng, 1 + Math.floor(rng() * 4)) + (pick(rng, PARTICLES) as string)
    } else {
      token = englishWord(rng, 1 + Math.floor(rng() * 4))
    }
    sentence++
    const sep = sentence % 12 === 0 ? (rng() < 0.2 ? '.\n\n' : '. ') : rng() < 0.05 ? ', ' : ' '
    parts.push(token, sep)
    size += Buffer.byteLength(token) + sep.length
  }
  return parts.join('').slice(0, bytes)
}

// --- npm engines (optional) -------------------------------------------------------------------------

interface Engine {
  name: string
  build(patterns: string[]): (text: string) => number
}

async function loadEngines(dir: string): Promise<Engine[]> {
  const engines: Engine[] = []
  const load = async (file: string): Promise<Record<string, unknown> | null> => {
    const path = join(dir, 'node_modules', file)
    if (!existsSync(path)) return null
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>
  }
  type Modern = new (p: string[]) => { count(text: string): number; search(text: string): unknown[] }
  type Monyone = new (p: string[]) => { matchInText(text: string): unknown[] }
  for (const [name, file] of [
    ['modern-ahocorasick', 'modern-ahocorasick/dist/index.js'],
    ['modern-ahocorasick/fast', 'modern-ahocorasick/dist/fast.js'],
  ] as const) {
    const mod = await load(file)
    if (!mod) continue
    const Ctor = mod.default as Modern
    engines.push({
      name: `${name} (search)`,
      build: (p) => {
        const ac = new Ctor(p)
        return (t) => ac.search(t).length
      },
    })
  }
  for (const [name, file] of [
    ['@monyone/aho-corasick', '@monyone/aho-corasick/dist/index.mjs'],
    ['@monyone/aho-corasick/fast', '@monyone/aho-corasick/dist/fast.mjs'],
  ] as const) {
    const mod = await load(file)
    if (!mod) continue
    const Ctor = mod.AhoCorasick as Monyone
    engines.push({
      name,
      build: (p) => {
        const ac = new Ctor(p)
        return (t) => ac.matchInText(t).length
      },
    })
  }
  return engines
}

// --- main ------------------------------------------------------------------------------------------

const args = process.argv.slice(2)
const compareDir = args.includes('--compare') ? args[args.indexOf('--compare') + 1] : null
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 7
const TEXT_BYTES = 1024 * 1024

async function main(): Promise<void> {
  const load = (await import('node:os')).loadavg()[0]
  console.log(
    `node ${process.version}, ${runs} scan runs, text ${TEXT_BYTES} bytes of UTF-8, load average ${load.toFixed(1)}`,
  )
  const sizes = args.includes('--terms') ? [Number(args[args.indexOf('--terms') + 1])] : [10_000, 100_000]
  for (const terms of sizes) {
    const { entries } = generateTerms(terms, 42)
    const text = generateText(
      TEXT_BYTES,
      entries.map((e) => e.text),
      7,
    )
    collect()
    const before = process.memoryUsage()
    const peakBefore = process.resourceUsage().maxRSS * 1024
    const [matcher, buildTime] = time(() => buildMatcher(entries))
    const peakAfter = process.resourceUsage().maxRSS * 1024
    collect()
    const after = process.memoryUsage()
    const heapDelta = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)

    const scanTimes: Timing[] = []
    const normTimes: Timing[] = []
    let found = 0
    for (let r = 0; r < runs; r++) {
      const [matches, t] = time(() => matcher.scan(text))
      scanTimes.push(t)
      found = matches.length
      normTimes.push(time(() => normalizeWithMap(text))[1]) // breakdown: normalization alone
    }

    console.log(`\n== ${terms} terms × 4 = ${entries.length} notations (${matcher.stats.notations} distinct)`)
    console.log(`text: ${text.length} UTF-16 units, ${Buffer.byteLength(text)} UTF-8 bytes`)
    console.log(`build: ${ms(buildTime)}, ${matcher.stats.states} states`)
    console.log(`scan: ${summary(scanTimes)}; ${found} matches`)
    console.log(`  of which normalize: ${summary(normTimes)}`)
    console.log(
      `memory: automaton arrays ${mb(matcher.stats.bytes)}, retained heap+buffers ${mb(heapDelta)} ` +
        `(includes the normalized notation strings and groups), RSS delta ${mb(after.rss - before.rss)}, ` +
        `peak RSS rise during build ${mb(Math.max(0, peakAfter - peakBefore))}`,
    )

    if (compareDir && terms === 10_000) await compare(compareDir, entries, text)
  }
}

/**
 * Raw engines on identical input: normalized notations, normalized text, all overlapping hits.
 * Scans are interleaved round by round so that load from other processes hits every engine alike.
 * An engine is first timed on 1/32 and 1/16 of the text; if 1/16 already takes over 150 ms of CPU or
 * costs over 2.5 times 1/32, the full text is skipped (one library is superlinear on Hangul text).
 */
async function compare(dir: string, entries: readonly MatcherEntry[], text: string): Promise<void> {
  const patterns = [...new Set(entries.map((e) => normalizeKey(e.text)))]
  const norm = normalizeWithMap(text)
  const normText = unitsToString(norm.units)
  console.log(`\n-- raw engines, ${patterns.length} patterns, normalized text ${normText.length} units`)
  interface Contender {
    name: string
    build: Timing
    scan: (t: string) => number
    times: Timing[]
    hits: number
  }
  const contenders: Contender[] = []
  const [ours, oursBuild] = time(() => buildAutomaton(patterns))
  contenders.push({
    name: 'own typed-array automaton',
    build: oursBuild,
    scan: () => {
      let hits = 0
      ours.scan(norm.units, norm.length, () => hits++)
      return hits
    },
    times: [],
    hits: 0,
  })
  for (const engine of await loadEngines(dir)) {
    try {
      console.log(`${engine.name}: building...`)
      const [scan, build] = time(() => engine.build(patterns))
      console.log(`${engine.name}: built (${ms(build)}), timing prefixes...`)
      scan(normText.slice(0, 1000)) // warm-up
      const small = time(() => scan(normText.slice(0, normText.length >> 5)))[1]
      const half = time(() => scan(normText.slice(0, normText.length >> 4)))[1]
      // Twice the text should cost about twice the time; much more means superlinear, and the full
      // text could take minutes. Over 150 ms on 1/16 (over 2 s projected) is out of the race anyway.
      const superlinear = half.cpu > 100 && half.cpu > 2.5 * small.cpu
      if (superlinear || half.cpu > 150) {
        console.log(
          `${engine.name}: build ${ms(build)}; full scan skipped (${superlinear ? 'superlinear' : 'too slow'}): ` +
            `CPU ${small.cpu.toFixed(0)} ms on 1/32 of the text, ${half.cpu.toFixed(0)} ms on 1/16`,
        )
        continue
      }
      contenders.push({ name: engine.name, build, scan, times: [], hits: 0 })
    } catch (err) {
      console.log(`${engine.name}: failed: ${(err as Error).message}`)
    }
  }
  for (let r = 0; r < runs; r++) {
    for (const c of contenders) {
      const [hits, t] = time(() => c.scan(normText))
      c.times.push(t)
      c.hits = hits
    }
  }
  for (const c of contenders) {
    console.log(`${c.name}: build ${ms(c.build)}; scan ${summary(c.times)}; ${c.hits} hits`)
  }
}

// Run only when executed directly, so the generators can be imported by ad-hoc profiling scripts.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
