/**
 * Bundle file benchmark: `npx tsx bench/bundle-io.bench.ts [--terms N] [--image-mb N]`
 *
 * Writes one full sync bundle (sync/bundle-io.ts) of synthetic, seeded content: 10,000 terms (~2 KB Markdown
 * bodies, Korean and English), 20,000 relations, 2,000 wiki pages (~1.5 KB each) and 50 MB of images (100
 * incompressible images of 500 KB, like PNG or JPEG bytes), then verifies it (`verifyBundle`) and reads its
 * records (`readBundleRecords`). Prints each phase's time, the process's peak RSS after it, and the file's
 * size; then recompresses the same uncompressed bytes with gzip levels 1 and 6 (time and size), which is how
 * the writer's level was chosen. No database: the content is built in memory, one batch at a time.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import { createBundleWriter, readBundleRecords, verifyBundle } from '../sync/bundle-io.ts'
import { itemHash, type BundleItem, type BundleHeader, type SyncItemType } from '../sync/bundle-schema.ts'
import { prng } from './support.ts'

const arg = (name: string, fallback: number) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback
const TERMS = arg('--terms', 10_000)
const RELATIONS = TERMS * 2
const PAGES = TERMS / 5
const IMAGE_BYTES = 500 * 1024
const IMAGES = Math.round((arg('--image-mb', 50) * 1024 * 1024) / IMAGE_BYTES)

const random = prng(30)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
const WORDS = (
  'payment ledger gateway settlement batch account invoice refund token session cache queue index search ' +
  'policy review approval domain service client server network latency 결제 정산 원장 배치 계좌 환불 토큰 ' +
  '세션 캐시 대기열 색인 검색 정책 검토 승인 도메인 서비스'
).split(' ')
const sentence = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ')
const uuid = () => crypto.randomUUID()

function item(type: SyncItemType, id: string, content: unknown): BundleItem {
  return {
    record: 'item',
    type,
    id,
    revision: 1 + Math.floor(random() * 5),
    hash: itemHash(type, content),
    updatedAt: '2026-11-27T08:00:00.000Z',
    author: 'Kim Editor',
    content,
  } as BundleItem
}

// What travels, built once (the writer streams it; an export would build it a batch at a time).
const imageIds = Array.from({ length: IMAGES }, uuid)
const termIds = Array.from({ length: TERMS }, uuid)
const items: BundleItem[] = [
  item('domain', uuid(), { key: 'it', nameKo: '정보기술', nameEn: 'IT', sort: 1 }),
  item('category', uuid(), { key: 'core', nameKo: '핵심', nameEn: 'Core', sort: 1 }),
  ...termIds.map((id, i) =>
    item('term', id, {
      slug: `term-${i}`,
      name: `Term ${i} ${pick(WORDS)}`,
      fullName: null,
      nameEn: `term ${i}`,
      nameKo: `용어 ${i}`,
      notations: [{ text: `term-${i}`, kind: 'preferred', lang: 'en' }],
      domains: ['it'],
      categories: ['core'],
      tags: [pick(WORDS)],
      status: 'active',
      definition: sentence(30),
      body: `${sentence(300)}${i < IMAGES ? `\n\n![figure](/api/v1/attachments/${imageIds[i]})` : ''}`,
      oldSlugs: [],
      mergedInto: null,
    }),
  ),
  ...Array.from({ length: RELATIONS }, () =>
    item('relation', uuid(), {
      sourceTermId: pick(termIds),
      targetTermId: pick(termIds),
      relationType: 'related_to',
      evidenceMd: sentence(12),
    }),
  ),
  ...Array.from({ length: PAGES }, (_, i) =>
    item('wiki', uuid(), {
      slug: `page-${i}`,
      title: `Page ${i}`,
      content: sentence(220),
      summary: null,
      sourceUrl: null,
      domain: ['it'],
      status: 'published',
      termIds: [pick(termIds)],
    }),
  ),
]
const count = (type: SyncItemType) => items.filter((i) => i.type === type).length
const header: BundleHeader = {
  record: 'header',
  format: 'glossary-sync',
  formatVersion: 1,
  release: '0.3.3',
  origin: { id: uuid(), name: 'bench' },
  label: null,
  exportedAt: new Date().toISOString(),
  sequence: 1,
  kind: 'full',
  previous: null,
  counts: {
    items: {
      domain: count('domain'),
      category: count('category'),
      term: count('term'),
      relation: count('relation'),
      wiki: count('wiki'),
    },
    attachments: IMAGES,
    tombstones: 0,
  },
  manifest: items.map(({ type, id, hash, revision }) => ({ type, id, hash, revision })),
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const peakRss = () => mb(process.resourceUsage().maxRSS * 1024)
/** Runs a phase and prints its wall time, its CPU time (main thread and zlib's threads), and the peak RSS. */
async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const result = await run()
  const { user, system } = process.cpuUsage(cpu)
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2).padStart(6)} s`
  console.log(
    `${label.padEnd(20)} ${seconds(performance.now() - started)}  CPU ${seconds((user + system) / 1000)}   peak RSS ${peakRss()}`,
  )
  return result
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-bench-'))
const file = path.join(dir, 'bench.glossary-sync.json.gz')
console.log(
  `${TERMS} terms, ${RELATIONS} relations, ${PAGES} wiki pages, ${IMAGES} images of ${IMAGE_BYTES / 1024} KB`,
)
console.log(`content built in memory                 peak RSS ${peakRss()}`)
try {
  const written = await timed('write (gzip 6)', async () => {
    const writer = await createBundleWriter(file, header)
    for (const i of items) await writer.item(i)
    for (const id of imageIds) {
      // One image at a time, as an export reads them: never all of them in memory.
      const bytes = crypto.randomBytes(IMAGE_BYTES)
      const sha256 = crypto.createHash('sha256').update(bytes).digest('hex')
      const data = bytes.toString('base64')
      await writer.attachment({
        record: 'attachment',
        id,
        sha256,
        contentType: 'image/png',
        size: bytes.length,
        data,
      })
    }
    return writer.finish()
  })
  console.log(`bundle: ${mb(written.bytes)}, ${written.records} records`)
  await timed('verifyBundle', () => verifyBundle(file))
  await timed('readBundleRecords', async () => {
    let records = 0
    for await (const _ of readBundleRecords(file)) records++
    return records
  })

  let uncompressed = 0
  for (const level of [1, 6]) {
    let size = 0
    const started = performance.now()
    await pipeline(
      fs.createReadStream(file),
      zlib.createGunzip(),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          uncompressed += level === 1 ? chunk.length : 0
          done()
        },
      }),
    )
    const gunzipMs = performance.now() - started
    const compressStarted = performance.now()
    await pipeline(
      fs.createReadStream(file),
      zlib.createGunzip(),
      zlib.createGzip({ level }),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          size += chunk.length
          done()
        },
      }),
    )
    const ms = performance.now() - compressStarted - gunzipMs
    console.log(`gzip level ${level}: ${mb(size)} (compression ≈ ${(ms / 1000).toFixed(2)} s)`)
  }
  console.log(`uncompressed: ${mb(uncompressed)}`)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
