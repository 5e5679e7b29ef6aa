/**
 * MCP tool-call overhead: `npx tsx bench/mcp.bench.ts [--terms N] [--calls N] [--texts N]`
 *
 * What an agent pays for `lookup_terms` over `/mcp` beyond the REST call it wraps (`POST /api/v1/terms/lookup`),
 * at N terms (default 10,000, seeded, bulk-inserted: bench-db.ts) on embedded PGlite in memory, served on a
 * real HTTP port. One client (the SDK's Client over StreamableHTTPClientTransport, and `fetch` for REST) makes
 * sequential calls, REST and MCP in turns so both see the same process state; each call asks the same texts
 * (default 50 notations of the glossary, so the lookup's per-text memo serves both alike). Timed to the parsed
 * answer: for MCP that includes what any agent's client does (the SDK's JSON-RPC framing and result check).
 * The client runs in the server's process (both share one event loop), as in bench/api-overhead.bench.ts.
 * No assertions: figures for the issue 32 note.
 */
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { benchEnv, loadAverage, percentile, prng, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv()))

const { createHttpApp } = await import('../app/server/http.server.ts')
const { matcherCache } = await import('../app/services/validation/matcher-cache.server.ts')
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
const { closeDb } = await import('../db/orm.ts')

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name)
  return at >= 0 ? Number(process.argv[at + 1]) || fallback : fallback
}
const TERMS = arg('--terms', 10_000)
const CALLS = arg('--calls', 500)
const TEXTS = arg('--texts', 50)

const rand = prng(32)
const { enWord, koWord } = syntheticWords(rand)

/** Unique terms, each an English name with an admitted English phrase and a deprecated Korean word. */
function generate(n: number) {
  const seen = new Set<string>()
  const fresh = (make: () => string) => {
    for (;;) {
      const text = make()
      if (!seen.has(text.toLowerCase())) {
        seen.add(text.toLowerCase())
        return text
      }
    }
  }
  return Array.from({ length: n }, () => {
    const name = fresh(() => enWord(3))
    return {
      name,
      definition: `Definition of ${name}.`,
      notations: [
        { text: fresh(() => `${enWord(2)} ${enWord(2)}`), kind: 'admitted' as const, lang: 'en' },
        { text: fresh(() => koWord(3)), kind: 'deprecated' as const, lang: 'ko' },
      ],
    }
  })
}

const ms = (x: number) => `${x.toFixed(2)} ms`

async function main(): Promise<void> {
  console.log(
    `MCP overhead benchmark: ${TERMS} terms, ${CALLS} calls each, ${TEXTS} texts a call, embedded PGlite, Node ${process.version}, load average at start ${loadAverage()}`,
  )
  const { userId, auth } = await openBenchDatabase()
  const terms = generate(TERMS)
  await insertBenchTerms(terms, userId)
  await matcherCache.get()

  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  // Texts spread over the glossary: names, admitted and deprecated notations.
  const texts = Array.from({ length: TEXTS }, (_, i) => {
    const term = terms[Math.floor((i * TERMS) / TEXTS)]!
    return [term.name, term.notations[0]!.text, term.notations[1]!.text][i % 3]!
  })
  const body = JSON.stringify({ texts })

  const rest = async () => {
    const res = await fetch(`${origin}/api/v1/terms/lookup`, { method: 'POST', headers: auth, body })
    const json = (await res.json()) as { results: { found: boolean }[] }
    if (res.status !== 200 || json.results.filter((r) => r.found).length !== TEXTS) {
      throw new Error(`REST lookup answered ${res.status}`)
    }
  }
  const client = new Client({ name: 'mcp-bench', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { authorization: auth.authorization! } },
    }),
  )
  const mcp = async () => {
    const result = await client.callTool({ name: 'lookup_terms', arguments: { texts } })
    const [content] = result.content as { type: string; text: string }[]
    if (result.isError || (JSON.parse(content!.text) as { found: number }).found !== TEXTS) {
      throw new Error(`MCP lookup_terms failed: ${content?.text}`)
    }
  }

  for (let i = 0; i < 50; i++) {
    await rest()
    await mcp()
  }
  const times = { rest: [] as number[], mcp: [] as number[] }
  for (let i = 0; i < CALLS; i++) {
    for (const [name, call] of [
      ['rest', rest],
      ['mcp', mcp],
    ] as const) {
      const started = performance.now()
      await call()
      times[name].push(performance.now() - started)
    }
  }
  const line = (label: string, values: number[]) =>
    console.log(`${label}: p50 ${ms(percentile(values, 50))}, p95 ${ms(percentile(values, 95))}`)
  line('POST /api/v1/terms/lookup (REST)', times.rest)
  line('lookup_terms over /mcp        ', times.mcp)
  const overhead = times.mcp.map((t, i) => t - times.rest[i]!)
  line('overhead, MCP − REST per pair ', overhead)
  console.log(
    `overhead as the difference of the percentiles: p50 ${ms(percentile(times.mcp, 50) - percentile(times.rest, 50))}, p95 ${ms(percentile(times.mcp, 95) - percentile(times.rest, 95))}`,
  )

  await client.close()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await stopCompileWorker()
  await closeDb()
}

await main()
