/**
 * Scan profile: `node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/scan-profile.ts [--runs N]`
 *
 * Builds the matcher of the glossary benchmark (10,000 terms × 5 forms, seeded) and scans a 1 MB text at 2%
 * density N times, printing each scan's time and the split between normalization, the raw automaton and
 * the rest. Meant to run under a profiler (`--cpu-prof`) to see where a scan spends its time.
 */
import { compileAutomaton, automatonFromTables } from '../app/services/matching/automaton.ts'
import { buildMatcher } from '../app/services/matching/matcher.ts'
import { normalizeWithMap, normalizeKey } from '../app/services/matching/normalize.ts'
import { prng, syntheticWords } from './support.ts'

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30
const rand = prng(42)
const { pick, enWord, koWord } = syntheticWords(rand)

const forms: string[] = []
for (let i = 0; i < 10_000; i++) {
  forms.push(
    `${enWord(3)}${i}`,
    enWord(4),
    `${enWord(2)} ${enWord(3)}`,
    koWord(3),
    `${koWord(2)} ${koWord(2)}`,
  )
}
const parts: string[] = []
let size = 0
while (size < 1024 * 1024) {
  const r = rand()
  let piece = r < 0.02 ? pick(forms) : r < 0.55 ? enWord(2 + Math.floor(rand() * 3)) : koWord(2)
  if (rand() < 0.05) piece += '.\n'
  parts.push(piece)
  size += Buffer.byteLength(piece) + 1
}
const text = parts.join(' ')
const matcher = buildMatcher(forms.map((f, i) => ({ id: i, text: f })))
const automaton = automatonFromTables(compileAutomaton([...new Set(forms.map(normalizeKey))]))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const whole: number[] = []
const norm: number[] = []
const raw: number[] = []
const cpuMs: number[] = []
let matches = 0
for (let r = 0; r < RUNS; r++) {
  const cpu = process.cpuUsage()
  let t = performance.now()
  matches = matcher.scan(text).length
  whole.push(performance.now() - t)
  cpuMs.push(process.cpuUsage(cpu).user / 1000)
  t = performance.now()
  const n = normalizeWithMap(text)
  norm.push(performance.now() - t)
  t = performance.now()
  let hits = 0
  automaton.scan(n.units, n.length, () => hits++)
  raw.push(performance.now() - t)
}
console.log(
  `1 MB (${text.length} units, ${matches} matches), ${RUNS} runs, medians: scan ${median(whole).toFixed(1)} ms wall, ${median(cpuMs).toFixed(1)} ms CPU (best ${Math.min(...whole).toFixed(1)} ms); of which normalize ${median(norm).toFixed(1)} ms, raw automaton ${median(raw).toFixed(1)} ms`,
)
