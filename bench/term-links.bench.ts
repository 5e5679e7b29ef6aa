/**
 * Term links on a wiki page (issue 32): what rendering a 50 KB page with term links adds to rendering it
 * without, at TERMS terms (default 10,000), on the embedded database (DATABASE_URL: PostgreSQL). The page is
 * prose made of the glossary's words with a use of a term every ~12 words, plus headings, links and code.
 * - `plain`: `getWikiPage` as the API reads it (Markdown rendered, no links);
 * - `warm`: as the wiki page reads it with term links, the cache holding this revision (goal: ≤ 5 ms added at p95);
 * - `cold`: the same with the cache emptied before each read (goal: ≤ 30 ms added at p95).
 * Run: `npx tsx bench/term-links.bench.ts` (ROUNDS=200 by default).
 */
import os from 'node:os'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { createBenchPostgres, insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { benchEnv, loadAverage, percentile, prng, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv()))
const TERMS = Number(process.env.TERMS ?? 10_000)
const ROUNDS = Number(process.env.ROUNDS ?? 200)

const postgres = process.env.DATABASE_URL ? await createBenchPostgres(process.env.DATABASE_URL) : undefined
const { userId } = await openBenchDatabase({ databaseUrl: postgres?.url })
const { closeDb } = await import('../db/orm.ts')
const { matcherCache } = await import('../app/services/validation/matcher-cache.server.ts')
const { createWikiPage } = await import('../app/services/wiki/write.server.ts')
const { getWikiPage } = await import('../app/services/wiki/read.server.ts')
const { clearPageLinkCache } = await import('../app/services/annotate/page-links.server.ts')
const { CreateWikiPageSchema } = await import('../app/schemas/wiki.ts')
const { ENGLISH_LABELS } = await import('../app/services/annotate/annotate.server.ts')
console.log(
  `${postgres ? `PostgreSQL (database ${postgres.name})` : 'embedded PGlite'}; cpus ${os.cpus().length}, load average at start ${loadAverage()}`,
)

const rand = prng(32)
const words = syntheticWords(rand)
const names = Array.from({ length: TERMS }, (_, i) => `${words.enWord(3)}${i}`)
await insertBenchTerms(
  names.map((name, i) => ({
    name,
    notations: [
      { text: `${words.enWord(4)}${i}`, kind: i % 10 === 0 ? 'deprecated' : 'admitted', lang: null },
    ],
    definition: `Definition of ${name}: ${words.enWord(3)} ${words.enWord(2)} ${words.enWord(4)} of the ledger.`,
  })),
  userId,
)
await matcherCache.whenIdle()

/** ~50 KB of Markdown: paragraphs of words with a term every ~12 words, a heading, a link and code now and then. */
const blocks: string[] = []
let size = 0
for (let b = 0; size < 50_000; b++) {
  let block: string
  if (b % 10 === 0) block = `## Section ${b} ${names[Math.floor(rand() * TERMS)]}`
  else if (b % 10 === 5) block = `\`\`\`\n${names[Math.floor(rand() * TERMS)]} = 1\n\`\`\``
  else {
    const sentence: string[] = []
    for (let w = 0; w < 60; w++)
      sentence.push(w % 12 === 0 ? names[Math.floor(rand() * TERMS)]! : words.enWord(2))
    block = `${sentence.join(' ')}. See [${names[Math.floor(rand() * TERMS)]}](https://example.test/x).`
  }
  blocks.push(block)
  size += block.length + 2
}
const content = blocks.join('\n\n')
await createWikiPage({
  input: CreateWikiPageSchema.parse({
    title: 'Bench page',
    slug: 'bench-page',
    content,
    status: 'published',
  }),
  actor: { id: userId, name: 'Bench' },
})
const linked = await getWikiPage({ slug: 'bench-page', termLinks: ENGLISH_LABELS })
console.log(
  `page: ${(content.length / 1000).toFixed(1)} KB Markdown, ${(linked.html.match(/class="term-link"/g) ?? []).length} term links, ` +
    `${(linked.html.match(/class="term-deprecated"/g) ?? []).length} deprecated marks; HTML ${(linked.html.length / 1000).toFixed(0)} KB with links`,
)

async function time(read: () => Promise<unknown>, before?: () => void): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < ROUNDS + 20; i++) {
    before?.()
    const started = performance.now()
    await read()
    if (i >= 20) times.push(performance.now() - started)
  }
  return times
}

const plain = await time(() => getWikiPage({ slug: 'bench-page' }))
const warm = await time(() => getWikiPage({ slug: 'bench-page', termLinks: ENGLISH_LABELS }))
const cold = await time(
  () => getWikiPage({ slug: 'bench-page', termLinks: ENGLISH_LABELS }),
  clearPageLinkCache,
)
const line = (label: string, t: number[]) =>
  `${label}: p50 ${percentile(t, 50).toFixed(1)} ms, p95 ${percentile(t, 95).toFixed(1)} ms`
console.log(line('plain (no links)     ', plain))
console.log(
  `${line('with links, warm cache', warm)}   added p95 ${(percentile(warm, 95) - percentile(plain, 95)).toFixed(1)} ms (goal ≤ 5)`,
)
console.log(
  `${line('with links, cold      ', cold)}   added p95 ${(percentile(cold, 95) - percentile(plain, 95)).toFixed(1)} ms (goal ≤ 30)`,
)
console.log(`load average at end ${loadAverage()}`)
await closeDb()
await postgres?.drop()
process.exit(0)
