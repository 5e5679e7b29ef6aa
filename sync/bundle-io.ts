import crypto from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import type { z } from 'zod'
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_BASE_VERSION,
  BUNDLE_FORMAT_VERSION,
  BundleAttachmentSchema,
  BundleEndSchema,
  BundleHeaderSchema,
  BundleItemSchema,
  BundleTombstoneSchema,
  itemHash,
  SYNC_ITEM_TYPES,
  type BundleAttachment,
  type BundleEnd,
  type BundleHeader,
  type BundleItem,
  type BundleTombstone,
  type ManifestEntry,
  type SyncItemType,
} from './bundle-schema.ts'

/**
 * The bundle file (docs/decisions/031-offline-sync.md; the records are in ./bundle-schema.ts): a streaming
 * writer and a streaming, validating reader of gzip JSON lines. Both hold one line at a time (an image is one
 * line), and both enforce the same rules (`BundleRules`): a sender cannot write a bundle its receivers would
 * refuse, and a receiver checks everything before and while it reads.
 */

export const BUNDLE_PROBLEMS = [
  'not_a_bundle',
  'version',
  'corrupt',
  'truncated',
  'tampered',
  'invalid',
] as const
export type BundleProblem = (typeof BUNDLE_PROBLEMS)[number]

/** A bundle refused (or, by the writer, not written); the message names the file and what to do. */
export class BundleError extends Error {
  override readonly name = 'BundleError'
  constructor(
    readonly problem: BundleProblem,
    /** The bundle's path, as given. */
    readonly file: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Items compress well and travel by hand, so size counts: level 6 writes a quarter less than level 1 for
 * ~0.8 s more (zlib's thread, not the export's) per 10,000 terms. Images are compressed already and base64
 * only spreads their bits: Huffman coding alone takes back as much as level 6 does, four times faster
 * (bench/bundle-io.bench.ts has the figures).
 */
const GZIP_LEVEL = 6
const { Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY: ATTACHMENT_STRATEGY } = zlib.constants
/**
 * No line may grow past this while it is read: the largest real ones are an image (a 5 MB image is ~7 MB of
 * base64) and the header's manifest (~170 bytes an item), so this bounds memory without refusing a real bundle.
 */
const MAX_LINE_BYTES = 256 * 1024 * 1024
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b])
const NEWLINE = 0x0a
const NEWLINE_BYTES = Buffer.from('\n')
/** Bytes of lines the writer gathers before it hands them to gzip. */
const WRITE_BATCH_BYTES = 256 * 1024
const utf8 = new TextDecoder('utf-8', { fatal: true })

type BodyRecord = BundleItem | BundleAttachment | BundleTombstone

// ── The rules of a bundle's body, shared by the writer and the reader ───────────────────────────────────────

/** Records come in this order: items type by type (SYNC_ITEM_TYPES), then attachments, then tombstones. */
const ITEM_STAGE = new Map<SyncItemType, number>(SYNC_ITEM_TYPES.map((type, index) => [type, index]))
const ATTACHMENT_STAGE = SYNC_ITEM_TYPES.length
const TOMBSTONE_STAGE = ATTACHMENT_STAGE + 1
const STAGE_NAMES = [...SYNC_ITEM_TYPES.map((type) => `${type} items`), 'attachments', 'tombstones']

type Refuse = (problem: BundleProblem, detail: string) => never

/**
 * What every record after the header must satisfy, checked as it passes: its schema, the order, no
 * duplicates, items equal to their manifest entries and their own hash, attachment bytes equal to their
 * SHA-256, tombstones outside the manifest, counts within the header's; and, at the end, the counts equal
 * the header's, a full bundle holds its whole manifest, and the record count and SHA-256 of the bytes.
 */
class BundleRules {
  private readonly manifest = new Map<string, ManifestEntry>()
  private readonly seen = new Set<string>()
  private readonly hash = crypto.createHash('sha256')
  private readonly counts = {
    items: new Map<SyncItemType, number>(SYNC_ITEM_TYPES.map((type) => [type, 0])),
    attachments: 0,
    tombstones: 0,
  }
  private stage = 0
  /** Records accepted so far, the header included. */
  records = 0

  constructor(
    readonly header: BundleHeader,
    private readonly refuse: Refuse,
  ) {
    // An incremental is applied only right after the export it follows, so it must say which one that is.
    if (header.kind === 'incremental' && !header.previous) {
      refuse('invalid', 'it is incremental but its header names no previous export')
    }
    for (const entry of header.manifest) {
      const key = `${entry.type} ${entry.id}`
      if (this.manifest.has(key)) refuse('invalid', `its manifest lists ${key} twice`)
      this.manifest.set(key, entry)
    }
  }

  /** Counts a checked line (without its newline) into the record count and the running SHA-256. */
  accept(line: Uint8Array): void {
    this.hash.update(line).update('\n')
    this.records++
  }

  item(raw: unknown, where: string): BundleItem {
    const item = this.parse(BundleItemSchema, raw, where)
    const key = `${item.type} ${item.id}`
    this.inOrder(ITEM_STAGE.get(item.type)!, `${where} (${key})`)
    this.once(`item ${key}`, `${where}: ${key} comes twice`)
    const entry = this.manifest.get(key)
    if (!entry) this.refuse('invalid', `${where}: ${key} is not in the bundle's manifest`)
    if (itemHash(item.type, item.content) !== item.hash) {
      this.refuse('tampered', `${where}: the content of ${key} does not match its hash`)
    }
    if (entry.hash !== item.hash || entry.revision !== item.revision) {
      this.refuse('tampered', `${where}: ${key} differs from its manifest entry`)
    }
    const count = this.counts.items.get(item.type)! + 1
    this.counts.items.set(item.type, count)
    this.withinCount(count, this.header.counts.items[item.type], `${item.type} items`)
    return item
  }

  attachment(raw: unknown, where: string): BundleAttachment {
    const attachment = this.parse(BundleAttachmentSchema, raw, where)
    const name = `attachment ${attachment.id}`
    this.inOrder(ATTACHMENT_STAGE, `${where} (${name})`)
    this.once(name, `${where}: ${name} comes twice`)
    const bytes = Buffer.from(attachment.data, 'base64')
    const sha256 = crypto.createHash('sha256').update(bytes).digest('hex')
    if (bytes.length !== attachment.size || sha256 !== attachment.sha256) {
      this.refuse('tampered', `${where}: the bytes of ${name} do not match their size and SHA-256`)
    }
    this.withinCount(++this.counts.attachments, this.header.counts.attachments, 'attachments')
    return attachment
  }

  tombstone(raw: unknown, where: string): BundleTombstone {
    const tombstone = this.parse(BundleTombstoneSchema, raw, where)
    const key = `${tombstone.type} ${tombstone.id}`
    this.inOrder(TOMBSTONE_STAGE, `${where} (tombstone of ${key})`)
    this.once(`tombstone ${key}`, `${where}: the tombstone of ${key} comes twice`)
    if (this.manifest.has(key)) {
      this.refuse('invalid', `${where}: ${key} is deleted by a tombstone but listed in the manifest`)
    }
    this.withinCount(++this.counts.tombstones, this.header.counts.tombstones, 'tombstones')
    return tombstone
  }

  /** The end record this bundle needs (the writer's). */
  end(): BundleEnd {
    this.complete()
    return { record: 'end', records: this.records, sha256: this.hash.digest('hex') }
  }

  /** Checks the end record a bundle holds (the reader's). */
  checkEnd(raw: unknown, where: string): void {
    const end = this.parse(BundleEndSchema, raw, where)
    if (end.records !== this.records) {
      this.refuse(
        'tampered',
        `its end record counts ${end.records} records before it, but it holds ${this.records}`,
      )
    }
    if (end.sha256 !== this.hash.digest('hex')) {
      this.refuse('tampered', `its end record's SHA-256 does not match the bytes before it`)
    }
    this.complete()
  }

  private complete(): void {
    const { counts } = this.header
    for (const type of SYNC_ITEM_TYPES) {
      const held = this.counts.items.get(type)!
      if (held !== counts.items[type]) {
        this.refuse('invalid', `it holds ${held} ${type} items, but its header counts ${counts.items[type]}`)
      }
    }
    if (this.counts.attachments !== counts.attachments) {
      this.refuse(
        'invalid',
        `it holds ${this.counts.attachments} attachments, but its header counts ${counts.attachments}`,
      )
    }
    if (this.counts.tombstones !== counts.tombstones) {
      this.refuse(
        'invalid',
        `it holds ${this.counts.tombstones} tombstones, but its header counts ${counts.tombstones}`,
      )
    }
    const items = [...this.counts.items.values()].reduce((sum, n) => sum + n, 0)
    // Each item is in the manifest and none comes twice, so equal numbers mean equal sets.
    if (this.header.kind === 'full' && items !== this.manifest.size) {
      this.refuse(
        'invalid',
        `a full bundle holds every item of its manifest: it holds ${items}, the manifest lists ${this.manifest.size}`,
      )
    }
  }

  private parse<S extends z.ZodType>(schema: S, raw: unknown, where: string): z.output<S> {
    const parsed = schema.safeParse(raw)
    if (!parsed.success) this.refuse('invalid', `${where}: ${describeIssue(parsed.error)}`)
    return parsed.data
  }

  private inOrder(stage: number, what: string): void {
    if (stage < this.stage) {
      this.refuse(
        'invalid',
        `${what} comes after the ${STAGE_NAMES[this.stage]}; a bundle holds ${STAGE_NAMES.join(', ')} in that order`,
      )
    }
    this.stage = stage
  }

  private once(key: string, twice: string): void {
    if (this.seen.has(key)) this.refuse('invalid', twice)
    this.seen.add(key)
  }

  private withinCount(count: number, counted: number, what: string): void {
    if (count > counted) this.refuse('invalid', `it holds more ${what} than its header counts (${counted})`)
  }
}

/** The first problem zod found, as `path: message`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]!
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message
}

// ── Writing ─────────────────────────────────────────────────────────────────────────────────────────────────

/** Writes one bundle, record by record, in the order the format requires (see `createBundleWriter`). */
export interface BundleWriter {
  item(item: BundleItem): Promise<void>
  attachment(attachment: BundleAttachment): Promise<void>
  tombstone(tombstone: BundleTombstone): Promise<void>
  /**
   * Checks the counts against the header, writes the end record, flushes to disk and renames the file into
   * place. `bytes` is the compressed size; `records` counts every line, header and end record included.
   */
  finish(): Promise<{ file: string; bytes: number; records: number }>
  /** Stops and removes the partial file; nothing of the bundle is left. */
  abort(): Promise<void>
}

/**
 * Starts a bundle at `file` (its folder is made if missing). It is written to `<file>.partial` and appears
 * under its name only once complete and on disk, so a reader never sees half a bundle. A record the format
 * refuses (its schema, order, manifest, hash or counts) is refused here as a `BundleError` ('invalid'), and
 * the partial file is removed at once: a refused writer only needs no further calls.
 */
export async function createBundleWriter(file: string, header: BundleHeader): Promise<BundleWriter> {
  const refuse: Refuse = (_problem, detail) => {
    throw new BundleError('invalid', file, `Cannot write ${path.basename(file)}: ${detail}.`)
  }
  const parsedHeader = BundleHeaderSchema.safeParse(header)
  if (!parsedHeader.success) refuse('invalid', `header: ${describeIssue(parsedHeader.error)}`)
  const rules = new BundleRules(parsedHeader.data, refuse)

  await fsp.mkdir(path.dirname(file), { recursive: true })
  const partial = `${file}.partial`
  // Node's Gzip has `params` (every zlib stream does); @types/node declares it on Deflate only.
  const gzip = zlib.createGzip({ level: GZIP_LEVEL }) as zlib.Gzip & zlib.ZlibParams
  // `flush`: the file's bytes are on disk before it is renamed into place.
  const written = pipeline(gzip, fs.createWriteStream(partial, { flush: true }))
  let failure: unknown = null
  written.catch((error: unknown) => {
    failure = error
  })
  let state: 'open' | 'finished' | 'aborted' = 'open'

  async function abort(): Promise<void> {
    if (state !== 'open') return
    state = 'aborted'
    gzip.destroy()
    await written.catch(() => undefined)
    await fsp.rm(partial, { force: true })
  }

  // Lines go to gzip in batches: one zlib call per record would cost more than the compression itself.
  let batch: Buffer[] = []
  let batchBytes = 0
  /** Hands gzip the gathered lines; waits while it is behind (backpressure), or fails with the file. */
  async function send(): Promise<void> {
    if (!batchBytes) return
    const chunk = Buffer.concat(batch, batchBytes)
    batch = []
    batchBytes = 0
    if (!gzip.write(chunk)) await Promise.race([once(gzip, 'drain'), written])
  }

  let strategy: number = Z_DEFAULT_STRATEGY
  /** Switches the compression of the lines that follow (attachments: `ATTACHMENT_STRATEGY`). */
  async function useStrategy(wanted: number): Promise<void> {
    if (wanted === strategy) return
    await send()
    await Promise.race([
      new Promise<void>((resolve) => gzip.params(GZIP_LEVEL, wanted, () => resolve())),
      written,
    ])
    strategy = wanted
  }

  // Calls run one after another in the order they were made, whether or not the caller awaits each.
  let turn: Promise<unknown> = Promise.resolve()
  function inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = turn.then(step)
    turn = run.catch(() => undefined)
    return run
  }

  /** Checks and writes one record; any failure (a refused record, a full disk) aborts the whole bundle. */
  function write(compression: number, record: (where: string) => unknown): Promise<void> {
    return inTurn(async () => {
      if (state !== 'open') refuse('invalid', `the writer is already ${state}`)
      try {
        if (failure) throw failure
        const bytes = Buffer.from(JSON.stringify(record(`record ${rules.records + 1}`)))
        await useStrategy(compression)
        rules.accept(bytes)
        batch.push(bytes, NEWLINE_BYTES)
        batchBytes += bytes.length + 1
        if (batchBytes >= WRITE_BATCH_BYTES) await send()
      } catch (error) {
        await abort()
        throw error
      }
    })
  }

  await write(Z_DEFAULT_STRATEGY, () => parsedHeader.data)
  return {
    item: (item) => write(Z_DEFAULT_STRATEGY, (where) => rules.item(item, where)),
    attachment: (attachment) => write(ATTACHMENT_STRATEGY, (where) => rules.attachment(attachment, where)),
    tombstone: (tombstone) => write(Z_DEFAULT_STRATEGY, (where) => rules.tombstone(tombstone, where)),
    finish: () =>
      inTurn(async () => {
        if (state !== 'open') refuse('invalid', `the writer is already ${state}`)
        try {
          const end = rules.end()
          const bytes = Buffer.from(`${JSON.stringify(end)}\n`)
          batch.push(bytes)
          batchBytes += bytes.length
          await send()
          gzip.end()
          await written
          const { size } = await fsp.stat(partial)
          await fsp.rename(partial, file)
          state = 'finished'
          return { file, bytes: size, records: end.records + 1 }
        } catch (error) {
          await abort()
          throw error
        }
      }),
    abort,
  }
}

// ── Reading ─────────────────────────────────────────────────────────────────────────────────────────────────

/** A bundle that passed `verifyBundle`: its header, compressed size and number of lines (end included). */
export interface VerifiedBundle {
  file: string
  header: BundleHeader
  bytes: number
  records: number
}

/**
 * Checks a whole bundle in one streaming pass (every rule of the format, every item hash, every attachment's
 * bytes, the record count and the SHA-256 of the end record) before anything of it is used. Throws a
 * `BundleError` that names the file and the problem.
 */
export async function verifyBundle(file: string): Promise<VerifiedBundle> {
  const records = checkedRecords(file)
  let next = await records.next()
  let header: BundleHeader | null = null
  while (!next.done) {
    if (next.value.record === 'header') header = next.value
    next = await records.next()
  }
  const { size } = await fsp.stat(file)
  return { file, header: header!, bytes: size, records: next.value }
}

/** The header of a bundle, from its first line only (validated; the rest of the file is not read). */
export async function readBundleHeader(file: string): Promise<BundleHeader> {
  await requireGzip(file)
  const lines = gzipLines(file)
  try {
    const first = await lines.next()
    return parseHeader(file, first.done ? null : first.value)
  } finally {
    await lines.return(0)
  }
}

/**
 * The records of a bundle after its header, in file order, each parsed with its schema. They are checked by
 * the same rules as `verifyBundle` as they pass (the file may have changed since it was verified), so a caller
 * that writes them in a transaction rolls back on the `BundleError` a bad record throws.
 */
export async function* readBundleRecords(file: string): AsyncGenerator<BodyRecord> {
  for await (const record of checkedRecords(file)) {
    if (record.record !== 'header') yield record
  }
}

/** Problems of the content rather than of the gzip stream: a damaged stream may be their cause. */
const CONTENT_PROBLEMS: readonly BundleProblem[] = ['not_a_bundle', 'invalid', 'tampered']

/** The header, then every body record, checked; returns the number of lines, end record included. */
async function* checkedRecords(file: string): AsyncGenerator<BundleHeader | BodyRecord, number> {
  const refuse: Refuse = refusal(file)
  await requireGzip(file)
  const lines = gzipLines(file)
  try {
    const first = await lines.next()
    const header = parseHeader(file, first.done ? null : first.value)
    const rules = new BundleRules(header, refuse)
    rules.accept(first.value as Buffer)
    yield header
    let ended = false
    for (let lineNumber = 2; ; lineNumber++) {
      const next = await lines.next()
      if (next.done) {
        if (ended && next.value > 0) refuse('invalid', `bytes follow its end record`)
        if (!ended) {
          refuse(
            'truncated',
            next.value > 0 ? `it ends in the middle of a line` : `it ends before its end record`,
          )
        }
        return rules.records + 1
      }
      const where = `line ${lineNumber}`
      if (ended) refuse('invalid', `${where} follows the end record`)
      const raw = parseLine(next.value, where, refuse)
      if (raw.record === 'end') {
        rules.checkEnd(raw, where)
        ended = true
        continue
      }
      const record = bodyRecord(rules, raw, where, refuse)
      rules.accept(next.value)
      yield record
    }
  } catch (error) {
    if (error instanceof BundleError && CONTENT_PROBLEMS.includes(error.problem)) await throwGzipDamage(lines)
    throw error
  } finally {
    await lines.return(0)
  }
}

function bodyRecord(
  rules: BundleRules,
  raw: Record<string, unknown>,
  where: string,
  refuse: Refuse,
): BodyRecord {
  switch (raw.record) {
    case 'item':
      return rules.item(raw, where)
    case 'attachment':
      return rules.attachment(raw, where)
    case 'tombstone':
      return rules.tombstone(raw, where)
    case 'header':
      return refuse('invalid', `${where} is a second header`)
    default:
      return refuse(
        'invalid',
        `${where} is not a record of the format (record: ${JSON.stringify(raw.record)})`,
      )
  }
}

/** The first line as a header: a bundle of this format and version, valid to its schema. */
function parseHeader(file: string, line: Buffer | null): BundleHeader {
  const refuse: Refuse = refusal(file)
  if (!line) refuse('not_a_bundle', 'it holds no records')
  const raw = parseLine(line, 'line 1', (_problem, detail) => refuse('not_a_bundle', detail))
  if (raw.record !== 'header' || raw.format !== BUNDLE_FORMAT) {
    refuse('not_a_bundle', `its first record is not a ${BUNDLE_FORMAT} header`)
  }
  const version = raw.formatVersion
  if (
    !Number.isInteger(version) ||
    (version as number) < BUNDLE_FORMAT_BASE_VERSION ||
    (version as number) > BUNDLE_FORMAT_VERSION
  )
    refuse('version', JSON.stringify(version ?? null))
  const header = BundleHeaderSchema.safeParse(raw)
  if (!header.success) refuse('invalid', `its header: ${describeIssue(header.error)}`)
  return header.data
}

/** A line as a JSON object (UTF-8, nothing but the object). */
function parseLine(line: Buffer, where: string, refuse: Refuse): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(utf8.decode(line))
  } catch {
    return refuse('invalid', `${where} is not JSON`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refuse('invalid', `${where} is not a JSON object`)
  }
  return value as Record<string, unknown>
}

/** How the reader words each problem: the file's name, what is wrong, and what a person can do about it. */
function refusal(file: string): Refuse {
  const name = path.basename(file)
  return (problem, detail) => {
    throw new BundleError(problem, file, readerMessage(name, problem, detail))
  }
}

function readerMessage(name: string, problem: BundleProblem, detail: string): string {
  switch (problem) {
    case 'not_a_bundle':
      return `${name} is not a glossary sync bundle (${detail}).`
    case 'version': {
      // A newer format needs a newer receiver; an older (or unreadable) one, a new export.
      const advice = Number(detail) > BUNDLE_FORMAT_VERSION ? 'update this installation' : 'export it again'
      return `${name} was written in bundle format ${detail}; this release reads formats ${BUNDLE_FORMAT_BASE_VERSION} to ${BUNDLE_FORMAT_VERSION}: ${advice}.`
    }
    case 'corrupt':
      return `${name} is damaged (${detail}); copy it again from the sender.`
    case 'truncated':
      return `${name} is cut short (${detail}); copy the whole file again.`
    case 'tampered':
      return `${name} was changed after it was exported (${detail}); export it again at the sender.`
    case 'invalid':
      return `${name} is not a valid glossary sync bundle: ${detail}. Export it again with this release.`
  }
}

/** Refuses a file that is not gzip (its first two bytes), before anything is decompressed. */
async function requireGzip(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r')
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0)
    if (bytesRead === 0) refusal(file)('not_a_bundle', 'it is empty')
    if (bytesRead < 2 || !buffer.equals(GZIP_MAGIC)) refusal(file)('not_a_bundle', 'it is not a gzip file')
  } finally {
    await handle.close()
  }
}

/**
 * The decompressed lines of a gzip file, as bytes without their newline, one at a time (a line is whole only
 * when its newline arrives); returns the number of bytes after the last newline. A damaged or cut gzip
 * stream is thrown as a `BundleError` ('corrupt' or 'truncated').
 */
async function* gzipLines(file: string): AsyncGenerator<Buffer, number, unknown> {
  const refuse: Refuse = refusal(file)
  const input = fs.createReadStream(file)
  const gunzip = zlib.createGunzip({ chunkSize: 64 * 1024 })
  input.on('error', (error) => gunzip.destroy(error))
  input.pipe(gunzip)
  let pending: Buffer[] = []
  let pendingBytes = 0
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let start = 0
      for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, newline)
        start = newline + 1
        const line = pending.length ? Buffer.concat([...pending, piece]) : piece
        pending = []
        pendingBytes = 0
        yield line
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start))
        pendingBytes += chunk.length - start
        if (pendingBytes > MAX_LINE_BYTES) refuse('invalid', `a line is longer than ${MAX_LINE_BYTES} bytes`)
      }
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (typeof code !== 'string' || !code.startsWith('Z_')) throw error
    if (code === 'Z_BUF_ERROR') refuse('truncated', 'its gzip stream ends early')
    refuse('corrupt', `gzip: ${(error as Error).message}`)
  } finally {
    input.destroy()
    gunzip.destroy()
  }
  return pendingBytes
}

/**
 * After a content problem, reads the rest of the gzip stream (a line at a time, kept no longer): if the stream
 * is damaged or cut, that is the cause to report, not the garbage it decompressed to.
 */
async function throwGzipDamage(lines: AsyncGenerator<Buffer, number>): Promise<void> {
  try {
    while (!(await lines.next()).done);
  } catch (error) {
    if (error instanceof BundleError && (error.problem === 'corrupt' || error.problem === 'truncated'))
      throw error
  }
}
