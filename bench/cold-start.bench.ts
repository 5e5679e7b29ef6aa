// Cold start of the run command: `glossary start` on a fresh GLOSSARY_DATA_DIR (creates the embedded
// database, applies every migration, starts web + worker) until /readyz answers 200; then a warm restart on
// the same folder. Needs `npm run build` first. Prints the figures; run with `npx tsx bench/cold-start.bench.ts`.
import { startService, tempDataDir } from '../tests/e2e/harness.ts'

async function timed(dataDir: string): Promise<number> {
  const started = performance.now()
  const service = await startService('start', { dataDir })
  const ms = performance.now() - started
  await service.stop()
  return ms
}

const runs = Number(process.argv[2] ?? 3)
const cold: number[] = []
const warm: number[] = []
for (let i = 0; i < runs; i++) {
  const dir = tempDataDir()
  cold.push(await timed(dir))
  warm.push(await timed(dir))
}
const fmt = (xs: number[]) => xs.map((x) => `${(x / 1000).toFixed(2)} s`).join(', ')
console.log(`glossary start, fresh data dir until /readyz 200: ${fmt(cold)}`)
console.log(`glossary start, same data dir again:             ${fmt(warm)}`)
