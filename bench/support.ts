import fs from 'node:fs'
import os from 'node:os'
/** What the benchmarks share: a seeded random source (runs are comparable), percentiles, the environment. */
export { prng } from '../tests/prng.ts'

/** The p-th percentile (nearest rank) of the values, in any order. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/**
 * Times `call` every `everyMs` (a user's pace rather than a flood, so sampling takes little from what it
 * watches) until `until()` says stop; answers the durations in milliseconds.
 */
export async function sampleTimes(
  call: () => Promise<unknown>,
  until: () => boolean,
  everyMs = 250,
): Promise<number[]> {
  const times: number[] = []
  while (!until()) {
    const started = performance.now()
    await call()
    times.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  return times
}

/** A stop condition for `sampleTimes`: true once `ms` have passed. */
export function forMs(ms: number): () => boolean {
  const end = performance.now() + ms
  return () => performance.now() >= end
}

/**
 * The environment of a benchmark: production mode (benchmarks measure what production runs; outside
 * production the API also checks every answer against its documented schema, which costs time), quiet logs,
 * and what production requires (an allowed origin, an encryption key).
 */
export function benchEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    PORT: '3000',
    GLOSSARY_ALLOWED_ORIGINS: 'http://localhost:3000',
    GLOSSARY_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef0123456789',
    ...extra,
  }
}

/** Invented English-like words (consonant + vowel syllables) and random Hangul words, from a seeded source. */
export function syntheticWords(rand: () => number) {
  const pick = <T>(xs: ArrayLike<T>): T => xs[Math.floor(rand() * xs.length)]!
  const C = 'bcdfghjklmnprstvwz'
  const V = 'aeiou'
  return {
    pick,
    enWord: (syllables: number) => Array.from({ length: syllables }, () => pick(C) + pick(V)).join(''),
    koWord: (n: number) =>
      Array.from({ length: n }, () => String.fromCharCode(0xac00 + Math.floor(rand() * 11172))).join(''),
  }
}

/**
 * The content of synthetic term `i` of the share benchmarks: English and Korean names, three notations (one
 * deprecated in English, a Korean one deprecated every third term), the `platform` domain, two tags, a short
 * definition; every 50th term deprecated.
 */
export function syntheticTerm(i: number, words: ReturnType<typeof syntheticWords>) {
  const { enWord, koWord } = words
  const name = `${enWord(3)}${i}`
  return {
    slug: `t-${i}`,
    name,
    fullName: null,
    nameEn: name,
    nameKo: `${koWord(3)}${i}`,
    notations: [
      { text: `${enWord(4)}${i}`, kind: 'admitted' as const, lang: null },
      { text: `${enWord(2)} ${enWord(3)}${i}`, kind: 'deprecated' as const, lang: null },
      {
        text: `${koWord(2)} ${koWord(2)}${i}`,
        kind: i % 3 ? ('admitted' as const) : ('deprecated' as const),
        lang: null,
      },
    ],
    domains: ['platform'],
    categories: [],
    tags: ['bench', `group-${i % 10}`],
    status: i % 50 === 0 ? ('deprecated' as const) : ('active' as const),
    definition: `Definition of ${name}: ${enWord(3)} ${enWord(2)} ${enWord(4)}.`,
    body: '',
  }
}

/** Which parts of a benchmark to run: those named on the command line, or all when none is. */
export function benchParts(): (part: string) => boolean {
  const parts = process.argv.slice(2)
  return (part) => parts.length === 0 || parts.includes(part)
}

/** The machine's load averages (1, 5, 15 min), printed beside every figure. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')
}

/**
 * CPU seconds used so far by the processes named `postgres` on this machine (the local PostgreSQL server's
 * backends and helpers), from /proc; undefined where /proc is not readable. A steadier figure than latency on
 * a busy two-core machine: what a request costs the database server, whoever waits for it.
 */
export function postgresCpuSeconds(): number | undefined {
  const tick = 100 // USER_HZ on Linux
  let total = 0
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return undefined
  }
  for (const pid of entries) {
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      continue // gone since the listing
    }
    const close = stat.lastIndexOf(')')
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue
    const fields = stat.slice(close + 2).split(' ')
    total += (Number(fields[11]) + Number(fields[12])) / tick // utime, stime (fields 14, 15 of stat)
  }
  return total
}
