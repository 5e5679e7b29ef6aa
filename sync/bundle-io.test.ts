import crypto from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BundleError,
  createBundleWriter,
  readBundleHeader,
  readBundleRecords,
  verifyBundle,
  type BundleProblem,
} from './bundle-io.ts'
import {
  itemHash,
  type BundleAttachment,
  type BundleHeader,
  type BundleItem,
  type BundleTombstone,
  type ItemContent,
  type SyncItemType,
} from './bundle-schema.ts'

let dir: string
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bundle-io-'))
})
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true })
})

let fileNumber = 0
/** A fresh path in the test's folder (a sub-folder that does not exist yet: the writer makes it). */
const newFile = () => path.join(dir, `out-${++fileNumber}`, `bundle-${fileNumber}.glossary-sync.json.gz`)

// Fixed ids and bytes: a written bundle is the same file on every run, so a flipped byte does the same harm.
let uuidNumber = 0
const uuid = () => `00000000-0000-4000-8000-${String(++uuidNumber).padStart(12, '0')}`
/** `size` bytes that look random (SHA-256 in counter mode) and are the same on every run. */
function bytesOf(size: number, seed = 'image'): Buffer {
  const blocks = Array.from({ length: Math.ceil(size / 32) }, (_, i) =>
    crypto.createHash('sha256').update(`${seed} ${i}`).digest(),
  )
  return Buffer.concat(blocks).subarray(0, size)
}

const imageId = uuid()

function item<T extends SyncItemType>(type: T, content: ItemContent<T>, revision = 1): BundleItem {
  return {
    record: 'item',
    type,
    id: uuid(),
    revision,
    hash: itemHash(type, content),
    updatedAt: '2026-11-27T08:00:00.000Z',
    author: '김 편집',
    content,
  } as BundleItem
}

function term(slug: string, body = ''): BundleItem {
  return item(
    'term',
    {
      slug,
      name: slug.toUpperCase(),
      fullName: null,
      nameEn: slug,
      nameKo: '용어',
      notations: [{ text: slug, kind: 'preferred', lang: 'en' }],
      domains: ['it'],
      categories: ['core'],
      tags: ['sync'],
      status: 'active',
      definition: `What ${slug} means.`,
      body,
      oldSlugs: [],
      mergedInto: null,
    },
    3,
  )
}

function attachment(bytes: Buffer, id = imageId): BundleAttachment {
  return {
    record: 'attachment',
    id,
    sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
    contentType: 'image/png',
    size: bytes.length,
    data: bytes.toString('base64'),
  }
}

interface Content {
  items: BundleItem[]
  attachments: BundleAttachment[]
  tombstones: BundleTombstone[]
}

/** One item of every type (in the format's order), an image the term references, and no tombstones. */
function fullContent(): Content {
  const api = term('api', `See ![diagram](/api/v1/attachments/${imageId}).`)
  const rest = term('rest')
  return {
    items: [
      item('domain', { key: 'it', nameKo: '정보기술', nameEn: 'IT', sort: 1 }),
      item('category', { key: 'core', nameKo: '핵심', nameEn: 'Core', sort: 2 }),
      api,
      rest,
      item('relation', {
        sourceTermId: api.id,
        targetTermId: rest.id,
        relationType: 'related_to',
        evidenceMd: 'Both name web interfaces.',
      }),
      item('wiki', {
        slug: 'web-apis',
        title: 'Web APIs',
        content: '# Web APIs',
        summary: null,
        sourceUrl: null,
        domain: ['it'],
        status: 'published',
        termIds: [api.id, rest.id],
      }),
    ],
    attachments: [attachment(bytesOf(2000))],
    tombstones: [],
  }
}

const entryOf = ({ type, id, hash, revision }: BundleItem) => ({ type, id, hash, revision })

function headerOf(
  content: Content,
  options: Partial<Pick<BundleHeader, 'kind' | 'previous' | 'manifest'>> = {},
): BundleHeader {
  const count = (type: SyncItemType) => content.items.filter((i) => i.type === type).length
  return {
    record: 'header',
    format: 'glossary-sync',
    formatVersion: 1,
    release: '0.3.3',
    origin: { id: '7d3c4f8e-2b1a-4c5d-9e6f-0a1b2c3d4e5f', name: 'Seoul office' },
    label: null,
    exportedAt: '2026-11-27T08:00:00.000Z',
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
      attachments: content.attachments.length,
      tombstones: content.tombstones.length,
    },
    manifest: content.items.map(entryOf),
    ...options,
  }
}

async function writeBundle(content: Content, header = headerOf(content), file = newFile()) {
  const writer = await createBundleWriter(file, header)
  for (const i of content.items) await writer.item(i)
  for (const a of content.attachments) await writer.attachment(a)
  for (const t of content.tombstones) await writer.tombstone(t)
  return writer.finish()
}

async function collect(file: string) {
  const records = []
  for await (const record of readBundleRecords(file)) records.push(record)
  return records
}

/** The refusal of `promise`: its problem and message (it must be a BundleError). */
async function refusal(promise: Promise<unknown>): Promise<{ problem: BundleProblem; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(BundleError)
  const { problem, message } = error as BundleError
  return { problem, message }
}

// ── Forgeries: a written bundle, decompressed, edited line by line and compressed again ────────────────────

async function lines(file: string): Promise<string[]> {
  return zlib
    .gunzipSync(await fs.readFile(file))
    .toString('utf8')
    .split('\n')
    .slice(0, -1)
}

/** The file with its lines edited; `reseal` writes an end record that matches the edited lines. */
async function forge(
  file: string,
  edit: (records: string[]) => string[],
  options: { reseal?: boolean } = {},
) {
  let edited = edit(await lines(file))
  if (options.reseal) {
    edited = edited.filter((line) => !line.startsWith('{"record":"end"'))
    const sha256 = crypto
      .createHash('sha256')
      .update(edited.map((l) => `${l}\n`).join(''))
      .digest('hex')
    edited.push(JSON.stringify({ record: 'end', records: edited.length, sha256 }))
  }
  const forged = file.replace(/\.glossary-sync/, '-forged.glossary-sync')
  await fs.writeFile(forged, zlib.gzipSync(edited.map((l) => `${l}\n`).join('')))
  return forged
}

const editRecord =
  (index: number, change: (record: Record<string, unknown>) => Record<string, unknown>) =>
  (records: string[]) =>
    records.map((line, i) =>
      i === index ? JSON.stringify(change(JSON.parse(line) as Record<string, unknown>)) : line,
    )

describe('a bundle written and read back', () => {
  it('verifies and reads every record as written, in order', async () => {
    const content = fullContent()
    const written = await writeBundle(content)
    expect(written.records).toBe(1 + 6 + 1 + 1)
    expect(written.bytes).toBe((await fs.stat(written.file)).size)
    await expect(fs.access(`${written.file}.partial`)).rejects.toThrow()

    const verified = await verifyBundle(written.file)
    expect(verified).toEqual({
      file: written.file,
      header: headerOf(content),
      bytes: written.bytes,
      records: 9,
    })
    expect(await readBundleHeader(written.file)).toEqual(headerOf(content))
    expect(await collect(written.file)).toEqual([...content.items, ...content.attachments])
  })

  it('carries an incremental: changed items only, the full manifest, tombstones', async () => {
    const content = fullContent()
    const changed = term('graphql')
    const increment: Content = {
      items: [changed],
      attachments: [],
      tombstones: [{ record: 'tombstone', type: 'term', id: uuid(), deletedAt: '2026-11-27T09:00:00Z' }],
    }
    const header = headerOf(increment, {
      kind: 'incremental',
      previous: { sequence: 1, exportedAt: '2026-11-26T08:00:00.000Z' },
      manifest: [...content.items, changed].map(entryOf),
    })
    const written = await writeBundle(increment, header)
    expect((await verifyBundle(written.file)).records).toBe(4)
    expect(await collect(written.file)).toEqual([changed, ...increment.tombstones])
  })

  it('carries a 5 MB image as one line', async () => {
    const content = fullContent()
    const image = bytesOf(5 * 1024 * 1024)
    content.attachments = [attachment(image)]
    const written = await writeBundle(content)
    await verifyBundle(written.file)
    const read = (await collect(written.file)).find((r) => r.record === 'attachment')!
    expect(Buffer.from(read.data, 'base64').equals(image)).toBe(true)
  })
})

describe('the writer', () => {
  it('refuses at finish when what it wrote differs from the header counts, and leaves no file', async () => {
    const content = fullContent()
    const file = newFile()
    const writer = await createBundleWriter(file, headerOf(content))
    for (const i of content.items) await writer.item(i)
    const { problem, message } = await refusal(writer.finish())
    expect(problem).toBe('invalid')
    expect(message).toBe(
      `Cannot write ${path.basename(file)}: it holds 0 attachments, but its header counts 1.`,
    )
    expect(await fs.readdir(path.dirname(file))).toEqual([])
  })

  it('refuses a record out of order, and then anything more', async () => {
    const content = fullContent()
    const file = newFile()
    const writer = await createBundleWriter(file, headerOf(content))
    await writer.item(content.items[2]!)
    const { message } = await refusal(writer.item(content.items[0]!))
    expect(message).toMatch(
      /record 3 \(domain .*\) comes after the term items; a bundle holds domain items, category items, term items/,
    )
    expect(await fs.readdir(path.dirname(file))).toEqual([])
    await expect(writer.item(content.items[3]!)).rejects.toThrow(/already aborted/)
  })

  it('refuses an item whose hash is not its content', async () => {
    const content = fullContent()
    const writer = await createBundleWriter(newFile(), headerOf(content))
    const { message } = await refusal(writer.item({ ...content.items[0]!, hash: 'f'.repeat(64) }))
    expect(message).toMatch(/record 2: the content of domain .* does not match its hash/)
  })

  it('refuses a header the format does not allow, before it makes a file', async () => {
    const content = fullContent()
    const file = newFile()
    const badSequence = { ...headerOf(content), sequence: 0 }
    expect((await refusal(createBundleWriter(file, badSequence))).message).toBe(
      `Cannot write ${path.basename(file)}: header: sequence: Too small: expected number to be >=1.`,
    )
    const orphan = { ...headerOf(content), kind: 'incremental' as const }
    expect((await refusal(createBundleWriter(file, orphan))).message).toMatch(
      /it is incremental but its header names no previous export/,
    )
    await expect(fs.access(path.dirname(file))).rejects.toThrow()
  })

  it('keeps the order of calls that were not awaited one by one', async () => {
    const content = fullContent()
    const writer = await createBundleWriter(newFile(), headerOf(content))
    const calls = [...content.items.map((i) => writer.item(i)), writer.attachment(content.attachments[0]!)]
    const finished = writer.finish()
    await Promise.all(calls)
    expect(await collect((await finished).file)).toEqual([...content.items, ...content.attachments])
  })

  it('leaves nothing after abort', async () => {
    const content = fullContent()
    const file = newFile()
    const writer = await createBundleWriter(file, headerOf(content))
    await writer.item(content.items[0]!)
    await writer.abort()
    expect(await fs.readdir(path.dirname(file))).toEqual([])
  })
})

describe('a bundle refused', () => {
  let good: string
  beforeAll(async () => {
    good = (await writeBundle(fullContent())).file
  })
  const name = () => path.basename(good)

  it('is not a bundle: plain text, an empty file, JSON that is not gzip, gzip that is not a bundle', async () => {
    const plain = path.join(dir, 'notes.txt')
    await fs.writeFile(plain, 'just some notes\n')
    expect(await refusal(verifyBundle(plain))).toEqual({
      problem: 'not_a_bundle',
      message: 'notes.txt is not a glossary sync bundle (it is not a gzip file).',
    })
    const empty = path.join(dir, 'empty.glossary-sync.json.gz')
    await fs.writeFile(empty, '')
    expect(await refusal(verifyBundle(empty))).toEqual({
      problem: 'not_a_bundle',
      message: 'empty.glossary-sync.json.gz is not a glossary sync bundle (it is empty).',
    })
    const json = path.join(dir, 'terms.json')
    await fs.writeFile(json, JSON.stringify({ terms: [] }))
    expect((await refusal(readBundleHeader(json))).problem).toBe('not_a_bundle')
    const other = path.join(dir, 'other.json.gz')
    await fs.writeFile(other, zlib.gzipSync('{"record":"header","format":"other"}\n'))
    expect(await refusal(verifyBundle(other))).toEqual({
      problem: 'not_a_bundle',
      message:
        'other.json.gz is not a glossary sync bundle (its first record is not a glossary-sync header).',
    })
    const text = path.join(dir, 'text.gz')
    await fs.writeFile(text, zlib.gzipSync('hello\n'))
    expect((await refusal(verifyBundle(text))).message).toBe(
      'text.gz is not a glossary sync bundle (line 1 is not JSON).',
    )
  })

  it('is of another format version', async () => {
    const forged = await forge(
      good,
      editRecord(0, (header) => ({ ...header, formatVersion: 3 })),
    )
    const message = `${path.basename(forged)} was written in bundle format 3; this release reads formats 1 to 2: update this installation.`
    expect(await refusal(verifyBundle(forged))).toEqual({ problem: 'version', message })
    expect(await refusal(readBundleHeader(forged))).toEqual({ problem: 'version', message })
  })

  it('is damaged: a byte flipped in the compressed file', async () => {
    const bytes = await fs.readFile(good)
    const middle = Math.floor(bytes.length / 2)
    bytes[middle] = bytes[middle]! ^ 0xff
    const flipped = path.join(dir, 'flipped.glossary-sync.json.gz')
    await fs.writeFile(flipped, bytes)
    const { problem, message } = await refusal(verifyBundle(flipped))
    expect(problem).toBe('corrupt')
    expect(message).toMatch(
      /^flipped\.glossary-sync\.json\.gz is damaged \(gzip: .*\); copy it again from the sender\.$/,
    )
  })

  it('is cut short: at half the compressed file, or at a line of the text', async () => {
    const bytes = await fs.readFile(good)
    const half = path.join(dir, 'half.glossary-sync.json.gz')
    await fs.writeFile(half, bytes.subarray(0, Math.floor(bytes.length / 2)))
    expect(await refusal(verifyBundle(half))).toEqual({
      problem: 'truncated',
      message:
        'half.glossary-sync.json.gz is cut short (its gzip stream ends early); copy the whole file again.',
    })
    // The header alone still reads: it is the first line only.
    expect((await readBundleHeader(half)).origin.name).toBe('Seoul office')

    const atLine = await forge(good, (records) => records.slice(0, 4))
    expect((await refusal(verifyBundle(atLine))).message).toMatch(
      /is cut short \(it ends before its end record\)/,
    )
  })

  it('was changed: an item content, an item and its hash, any other byte, a record removed', async () => {
    const content = await forge(
      good,
      editRecord(3, (term) => ({ ...term, content: { ...(term.content as object), name: 'X' } })),
    )
    expect(await refusal(verifyBundle(content))).toEqual({
      problem: 'tampered',
      message: expect.stringMatching(
        /line 4: the content of term .* does not match its hash\); export it again at the sender\.$/,
      ) as string,
    })
    const rehashed = await forge(
      good,
      editRecord(3, (term) => {
        const changed = { ...(term.content as object), name: 'X' }
        return { ...term, content: changed, hash: itemHash('term', changed) }
      }),
    )
    expect((await refusal(verifyBundle(rehashed))).message).toMatch(
      /line 4: term .* differs from its manifest entry/,
    )
    const author = await forge(
      good,
      editRecord(3, (term) => ({ ...term, author: 'Someone else' })),
    )
    expect((await refusal(verifyBundle(author))).message).toMatch(
      /was changed after it was exported \(its end record's SHA-256 does not match the bytes before it\)/,
    )
    const removed = await forge(good, (records) => records.filter((_, i) => i !== 7))
    expect((await refusal(verifyBundle(removed))).message).toMatch(
      /its end record counts 8 records before it, but it holds 7/,
    )
  })

  it('breaks the format, even with an end record that matches', async () => {
    const invalid = async (edit: (records: string[]) => string[]) =>
      refusal(verifyBundle(await forge(good, edit, { reseal: true })))
    const schema = await invalid(editRecord(3, (term) => ({ ...term, revision: 0 })))
    expect(schema).toEqual({
      problem: 'invalid',
      message: `${name().replace('.glossary', '-forged.glossary')} is not a valid glossary sync bundle: line 4: revision: Too small: expected number to be >=1. Export it again with this release.`,
    })
    const swapped = await invalid((r) => [r[0]!, r[3]!, r[1]!, r[2]!, ...r.slice(4)])
    expect(swapped.message).toMatch(/line 3 \(domain .*\) comes after the term items/)
    const twice = await invalid((r) => [...r.slice(0, 4), r[3]!, ...r.slice(4)])
    expect(twice.message).toMatch(/line 5: term .* comes twice/)
    const image = await invalid((r) => [...r.slice(0, 8), r[7]!, ...r.slice(8)])
    expect(image.message).toMatch(/line 9: attachment .* comes twice/)
    const tombstone = await invalid((r) => {
      const { type, id } = JSON.parse(r[3]!) as { type: string; id: string }
      const header = JSON.parse(r[0]!) as BundleHeader
      header.counts.tombstones = 1
      return [
        JSON.stringify(header),
        ...r.slice(1),
        JSON.stringify({ record: 'tombstone', type, id, deletedAt: '2026-11-27T09:00:00Z' }),
      ]
    })
    expect(tombstone.message).toMatch(/line 9: term .* is deleted by a tombstone but listed in the manifest/)
    const counts = await invalid(
      editRecord(0, (header) => ({ ...header, counts: { ...(header.counts as object), attachments: 2 } })),
    )
    expect(counts.message).toMatch(/it holds 1 attachments, but its header counts 2/)
    const trailing = path.join(dir, 'trailing.glossary-sync.json.gz')
    await fs.writeFile(trailing, zlib.gzipSync(`${(await lines(good)).join('\n')}\n{}\n`))
    expect((await refusal(verifyBundle(trailing))).message).toMatch(/line 10 follows the end record/)
  })

  it('is a full bundle without every item of its manifest, or an incremental with an item outside it', async () => {
    const extra = { type: 'term', id: uuid(), hash: 'a'.repeat(64), revision: 1 }
    const missing = await forge(
      good,
      editRecord(0, (header) => ({ ...header, manifest: [...(header.manifest as object[]), extra] })),
      { reseal: true },
    )
    expect((await refusal(verifyBundle(missing))).message).toMatch(
      /a full bundle holds every item of its manifest: it holds 6, the manifest lists 7/,
    )
    const outside = await forge(
      good,
      editRecord(0, (header) => ({
        ...header,
        kind: 'incremental',
        previous: { sequence: 1, exportedAt: '2026-11-26T08:00:00.000Z' },
        manifest: (header.manifest as object[]).slice(1),
      })),
      { reseal: true },
    )
    expect(await refusal(verifyBundle(outside))).toMatchObject({
      problem: 'invalid',
      message: expect.stringMatching(/line 2: domain .* is not in the bundle's manifest/) as string,
    })
  })

  it('stops a reader at the first bad record', async () => {
    const changed = await forge(
      good,
      editRecord(4, (term) => ({ ...term, hash: 'b'.repeat(64) })),
    )
    const read: string[] = []
    const error = await (async () => {
      for await (const record of readBundleRecords(changed)) read.push(record.record)
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BundleError)
    expect(read).toEqual(['item', 'item', 'item'])
  })
})
