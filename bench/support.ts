/** What the benchmarks share: a seeded random source (runs are comparable), percentiles, the environment. */
export { prng } from '../tests/prng.ts'

/** The p-th percentile (nearest rank) of the values, in any order. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
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
