import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  unstable_composeUploadHandlers,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
  type UploadHandler,
} from '@remix-run/node'
import { z } from 'zod'
import { AppError, expectedError, validationError } from '#app/lib/errors.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { failureText, pageMessage } from '#app/pages/forms.server.ts'
import type { SessionActor } from '#app/pages/session.server.ts'
import { exportBundle } from '#app/services/sync/export.server.ts'
import {
  bundleFiles,
  importBundles,
  ITEM_ACTIONS,
  type BundleReport,
  type ImportReport,
  type ItemAction,
  type PlanEntry,
} from '#app/services/sync/import.server.ts'
import { syncStatus, type SyncStatus } from '#app/services/sync/status.server.ts'
import { BundleError } from '#sync/bundle-io.ts'
import { BUNDLE_SUFFIX, SYNC_KINDS, type SyncItemType, type SyncKind } from '#sync/bundle-schema.ts'

/**
 * The server side of the admin sync page (`/admin/sync`, issue 30 "Admin screen"): uploaded bundles kept on
 * disk in a folder per upload (streamed there part by part, never whole in memory), their preview and apply
 * through the sync services the CLI uses, the report cut to what a page can show, and the export download.
 * An upload lives until it is applied (its report stays for the result view) or for a day.
 */

/** The most the bundles of one upload may weigh together. */
export const SYNC_UPLOAD_MAX_BYTES = 1024 * 1024 * 1024
export const SYNC_UPLOAD_MAX_MB = SYNC_UPLOAD_MAX_BYTES / 1024 / 1024

/** An upload (or its report) older than this is removed when the next upload arrives. */
const UPLOAD_LIFETIME_MS = 24 * 60 * 60 * 1000
/** Entries listed per action of a bundle; the counts cover all of them. */
const SHOWN_ENTRIES = 200
/** The longest before/after text a change shows (a term body can be 200,000 characters). */
const SHOWN_VALUE_CHARS = 2_000

const REPORT_FILE = 'report.json'
const UPLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Where uploads live: one folder per upload, named by its id. */
function uploadsRoot(): string {
  return path.join(os.tmpdir(), 'glossary-sync-uploads')
}

// ── Upload ──────────────────────────────────────────────────────────────────────────────────────────────

const noFiles = () =>
  validationError([{ path: 'bundles', message: pageMessage('sync.upload.none') }], 'No bundle was chosen.')

/** Thrown by the byte counter; the multipart parser passes it through. */
class UploadTooLarge extends Error {}

/**
 * A file part written to the upload's folder as it arrives, under its own name ending in the bundle suffix
 * (a folder's bundles are the files with it), counting the bytes of every part of the request against the cap.
 * `stored` collects the names of the files kept (an empty file input sends a part without a name or bytes).
 */
function diskHandler(dir: string, stored: string[]): UploadHandler {
  let total = 0
  let index = 0
  return async ({ name, filename, data }) => {
    if (name !== 'bundles') return undefined
    if (!filename) {
      for await (const _chunk of data) {
        // an empty file input's part: read past it
      }
      return null
    }
    index += 1
    const base = filename.replace(/[^\p{L}\p{N}._-]+/gu, '-').slice(-120)
    const target = path.join(
      dir,
      `${String(index).padStart(3, '0')}-${base.endsWith(BUNDLE_SUFFIX) ? base : `${base}${BUNDLE_SUFFIX}`}`,
    )
    let size = 0
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length
        total += chunk.length
        done(total > SYNC_UPLOAD_MAX_BYTES ? new UploadTooLarge() : null, chunk)
      },
    })
    await pipeline(Readable.from(data), counter, fs.createWriteStream(target))
    if (size === 0) {
      await fs.promises.rm(target, { force: true })
      return null
    }
    stored.push(filename)
    return filename
  }
}

export interface ReceivedUpload {
  uploadId: string
  keepLocalEdits: boolean
}

/**
 * Stores the bundles of an upload form (multipart, field `bundles`, one or more files; `keepLocalEdits`) in a
 * new upload folder and names it. No file, or more than the cap, is a form failure (nothing kept).
 */
export async function receiveBundles(request: Request): Promise<ReceivedUpload> {
  await removeStaleUploads()
  const uploadId = randomUUID()
  const dir = uploadDir(uploadId)
  await fs.promises.mkdir(dir, { recursive: true })
  try {
    if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) throw noFiles()
    const stored: string[] = []
    const form = await unstable_parseMultipartFormData(
      request,
      unstable_composeUploadHandlers(
        diskHandler(dir, stored),
        // The form's small fields; a `bundles` part the disk handler left (an empty one) is dropped.
        unstable_createMemoryUploadHandler({ maxPartSize: 4096, filter: ({ name }) => name !== 'bundles' }),
      ),
    )
    if (!stored.length) throw noFiles()
    return { uploadId, keepLocalEdits: form.get('keepLocalEdits') === 'on' }
  } catch (error) {
    await fs.promises.rm(dir, { recursive: true, force: true })
    if (error instanceof UploadTooLarge || (error as { cause?: unknown }).cause instanceof UploadTooLarge) {
      throw new AppError('payload_too_large', pageMessage('sync.upload.tooLarge', { mb: SYNC_UPLOAD_MAX_MB }))
    }
    throw error
  }
}

function uploadDir(uploadId: string): string {
  return path.join(uploadsRoot(), uploadId)
}

/** The folder of a known upload; a malformed or unknown id (applied, expired) is a failure saying so. */
async function existingUpload(uploadId: string): Promise<string> {
  const gone = () => new AppError('not_found', pageMessage('sync.upload.gone'))
  if (!UPLOAD_ID.test(uploadId)) throw gone()
  const dir = uploadDir(uploadId)
  const names = await fs.promises.readdir(dir).catch(() => null)
  if (!names?.some((name) => name.endsWith(BUNDLE_SUFFIX))) throw gone()
  return dir
}

async function removeStaleUploads(): Promise<void> {
  const root = uploadsRoot()
  const names = await fs.promises.readdir(root).catch(() => [] as string[])
  const now = Date.now()
  for (const name of names) {
    const dir = path.join(root, name)
    const stat = await fs.promises.stat(dir).catch(() => null)
    if (stat && now - stat.mtimeMs > UPLOAD_LIFETIME_MS) {
      await fs.promises.rm(dir, { recursive: true, force: true })
    }
  }
}

// ── Preview and apply ──────────────────────────────────────────────────────────────────────────────────

/** A field change of an updated item, as text. */
export interface ChangeView {
  field: string
  before: string | null
  after: string | null
}

export interface EntryView {
  type: SyncItemType
  originId: string
  title: string
  reason: string | null
  changes: ChangeView[]
}

/** The entries of one action in a bundle: how many, and the first of them. */
export interface ActionGroup {
  action: ItemAction
  count: number
  entries: EntryView[]
}

/** How many entries of one action; lists of these keep the order of ITEM_ACTIONS and leave out zeros. */
export interface ActionCount {
  action: ItemAction
  count: number
}

export interface BundleView {
  /** The file's name as uploaded (without the folder and the upload's order prefix). */
  file: string
  origin: { id: string; name: string }
  sequence: number
  kind: SyncKind
  exportedAt: string
  outcome: BundleReport['outcome']
  message: string | null
  counts: ActionCount[]
  groups: ActionGroup[]
}

/** An import's report as the page shows it: per bundle, entries grouped by action, long lists and values cut. */
export interface SyncReportView {
  applied: boolean
  missing: boolean
  bundles: BundleView[]
}

/** A bundle the page refused to read, named by its problem (worded by the page) and the reader's detail. */
export interface InvalidBundle {
  problem: BundleError['problem']
  detail: string
}

export type PreviewOutcome = { ok: true; report: SyncReportView } | { ok: false; invalid: InvalidBundle }

interface Applier {
  actor: SessionActor
  keepLocalEdits: boolean
  /** Told as the apply advances (the services' count of what is done out of all). */
  onProgress?: (done: number, total: number) => void
}

const actorOf = (actor: SessionActor) => ({ id: actor.user.id, label: actor.user.name })

/** What applying the upload's bundles would do (writes nothing); an unreadable bundle is said, not thrown. */
export async function previewUpload(uploadId: string, options: Applier): Promise<PreviewOutcome> {
  const dir = await existingUpload(uploadId)
  try {
    const files = await bundleFiles(dir)
    const report = await importBundles(files, {
      apply: false,
      keepLocalEdits: options.keepLocalEdits,
      actor: actorOf(options.actor),
    })
    return { ok: true, report: reportView(report) }
  } catch (error) {
    if (error instanceof BundleError) return { ok: false, invalid: invalidOf(error) }
    throw error
  }
}

/**
 * Applies the upload's bundles in one transaction (the services' rule), keeps the report for the result view
 * and removes the bundle files. An unreadable bundle is a form failure (nothing written).
 */
async function applyUpload(uploadId: string, options: Applier): Promise<SyncReportView> {
  const dir = await existingUpload(uploadId)
  let report: ImportReport
  try {
    report = await importBundles(await bundleFiles(dir), {
      apply: true,
      keepLocalEdits: options.keepLocalEdits,
      actor: actorOf(options.actor),
      onProgress: options.onProgress,
    })
  } catch (error) {
    if (error instanceof BundleError) {
      const invalid = invalidOf(error)
      const message = `${pageMessage(`sync.invalid.${invalid.problem}`)} ${invalid.detail}`
      throw validationError([{ path: 'bundles', message }], message)
    }
    throw error
  }
  const view = reportView(report)
  for (const name of await fs.promises.readdir(dir)) {
    if (name.endsWith(BUNDLE_SUFFIX)) await fs.promises.rm(path.join(dir, name), { force: true })
  }
  await fs.promises.writeFile(path.join(dir, REPORT_FILE), JSON.stringify(view))
  return view
}

/** How an apply started without JavaScript stands (`startApply`), as its page reads it. */
export type ApplyState =
  { state: 'running'; done: number; total: number } | { state: 'done' } | { state: 'failed'; message: string }

/** Beside the upload's bundles: the state of its apply, for the page that refreshes itself until it ended. */
const STATE_FILE = 'apply-state.json'
/** The least time between two writes of the running state. */
const STATE_EVERY_MS = 250

/**
 * Starts applying the upload (as `applyUpload`) in the background, for a browser without JavaScript: its state
 * is written beside the upload as it advances and when it ends, and the page at `?applying=<id>` shows it,
 * refreshing itself until then. A second start of the same upload (the form sent twice) starts nothing. Like
 * the upload itself, the state is on this machine's disk: the page that reads it is served by this process.
 */
export async function startApply(uploadId: string, options: Applier): Promise<void> {
  const dir = await existingUpload(uploadId)
  const file = path.join(dir, STATE_FILE)
  let written = Promise.resolve()
  // Writes in the order they were asked for, so the final state is never overwritten by a late progress write.
  const write = (state: ApplyState) =>
    (written = written.then(() => fs.promises.writeFile(file, JSON.stringify(state))).catch(() => undefined))
  try {
    await fs.promises.writeFile(file, JSON.stringify({ state: 'running', done: 0, total: 0 }), { flag: 'wx' })
  } catch {
    return // started already
  }
  let last = 0
  void applyUpload(uploadId, {
    ...options,
    onProgress: (done, total) => {
      if (Date.now() - last < STATE_EVERY_MS) return
      last = Date.now()
      void write({ state: 'running', done, total })
    },
  }).then(
    () => write({ state: 'done' }),
    (error: unknown) => write({ state: 'failed', message: failureMessage(error) }),
  )
}

/** The state of the upload's apply started by `startApply`; gone (never started, expired) is a failure. */
export async function applyState(uploadId: string): Promise<ApplyState> {
  const gone = new AppError('not_found', pageMessage('sync.upload.gone'))
  if (!UPLOAD_ID.test(uploadId)) throw gone
  const text = await fs.promises
    .readFile(path.join(uploadDir(uploadId), STATE_FILE), 'utf8')
    .catch(() => null)
  if (text === null) throw gone
  return JSON.parse(text) as ApplyState
}

/** A line of the streamed apply: progress, then how it ended. */
export type ApplyLine =
  | { state: 'progress'; done: number; total: number }
  | { state: 'done'; uploadId: string }
  | { state: 'failed'; message: string }

/**
 * Starts applying the upload (as `applyUpload`) and gives its progress as lines, the way it ended last. The
 * apply is started here, in the request, so it runs to its end (commit or rollback) even if the reader goes
 * away; progress that arrives faster than it is read is folded into the latest.
 */
export function applyWithProgress(uploadId: string, options: Applier): AsyncIterable<ApplyLine> {
  const pending: ApplyLine[] = []
  let wake = () => {}
  const push = (line: ApplyLine) => {
    if (line.state === 'progress' && pending.at(-1)?.state === 'progress') pending.pop()
    pending.push(line)
    wake()
  }
  void applyUpload(uploadId, {
    ...options,
    onProgress: (done, total) => push({ state: 'progress', done, total }),
  }).then(
    () => push({ state: 'done', uploadId }),
    (error: unknown) => push({ state: 'failed', message: failureMessage(error) }),
  )
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (!pending.length) await new Promise<void>((resolve) => (wake = resolve))
        const line = pending.shift()!
        yield line
        if (line.state !== 'progress') return
      }
    },
  }
}

/** An apply's failure in the reader's words: an expected one as the form would say it, anything else logged. */
function failureMessage(error: unknown): string {
  const expected = expectedError(error)
  if (expected) return failureText(expected)
  log().error({ err: error }, 'sync apply failed')
  return pageMessage('sync.apply.failed')
}

/** The report an apply left for its result view; gone (expired, malformed id) is a failure saying so. */
export async function appliedReport(uploadId: string): Promise<SyncReportView> {
  const gone = new AppError('not_found', pageMessage('sync.upload.gone'))
  if (!UPLOAD_ID.test(uploadId)) throw gone
  const text = await fs.promises
    .readFile(path.join(uploadDir(uploadId), REPORT_FILE), 'utf8')
    .catch(() => null)
  if (text === null) throw gone
  return JSON.parse(text) as SyncReportView
}

/** The sums of every bundle's counts, for the flash message after an apply. */
export function totalCounts(view: SyncReportView): Record<ItemAction, number> {
  const totals = Object.fromEntries(ITEM_ACTIONS.map((action) => [action, 0])) as Record<ItemAction, number>
  for (const bundle of view.bundles) {
    for (const { action, count } of bundle.counts) totals[action] += count
  }
  return totals
}

/** Counts by action (a report's, or as the history stored them) in the order of ITEM_ACTIONS, zeros left out. */
function orderedCounts(counts: Readonly<Record<string, number>>): ActionCount[] {
  return ITEM_ACTIONS.map((action) => ({ action, count: counts[action] ?? 0 })).filter((c) => c.count > 0)
}

/** The page's view of `syncStatus`: the history's counts ordered like a report's. */
export type SyncPageStatus = Omit<SyncStatus, 'applied'> & {
  applied: (Omit<SyncStatus['applied'][number], 'counts'> & { counts: ActionCount[] })[]
}

/** This installation's origin, its last export and the `history` bundles applied last. */
export async function syncPageStatus(history: number): Promise<SyncPageStatus> {
  const status = await syncStatus({ history })
  return {
    ...status,
    applied: status.applied.map((bundle) => ({ ...bundle, counts: orderedCounts(bundle.counts) })),
  }
}

/** The upload's own name for a stored file (without the folder and the order prefix this page gave it). */
const uploadedName = (file: string) => path.basename(file).replace(/^\d{3}-/, '')

/** The problem, and the reader's message naming the file as uploaded rather than by its place on the server. */
function invalidOf(error: BundleError): InvalidBundle {
  return {
    problem: error.problem,
    detail: error.message
      .replaceAll(error.file, uploadedName(error.file))
      .replaceAll(path.basename(error.file), uploadedName(error.file)),
  }
}

function reportView(report: ImportReport): SyncReportView {
  return {
    applied: report.applied,
    missing: report.missing,
    bundles: report.bundles.map((bundle) => ({
      file: uploadedName(bundle.file),
      origin: bundle.origin,
      sequence: bundle.sequence,
      kind: bundle.kind,
      exportedAt: bundle.exportedAt,
      outcome: bundle.outcome,
      message: bundle.message ?? null,
      counts: orderedCounts(bundle.counts),
      groups: groupsOf(bundle.entries),
    })),
  }
}

/** Entries by action in the order of ITEM_ACTIONS, conflicts first so they are seen; empty actions left out. */
function groupsOf(entries: readonly PlanEntry[]): ActionGroup[] {
  const order: ItemAction[] = ['conflict', ...ITEM_ACTIONS.filter((action) => action !== 'conflict')]
  return order
    .map((action) => {
      const of = entries.filter((entry) => entry.action === action)
      return {
        action,
        count: of.length,
        entries: of.slice(0, SHOWN_ENTRIES).map((entry) => ({
          type: entry.type,
          originId: entry.originId,
          title: entry.title,
          reason: entry.reason ?? null,
          changes: (entry.changes ?? []).map((change) => ({
            field: change.field,
            before: shownValue(change.before),
            after: shownValue(change.after),
          })),
        })),
      }
    })
    .filter((group) => group.count > 0)
}

/** A changed field's value as text: lists joined, notations as `text (kind, lang)`, long text cut. */
function shownValue(value: unknown): string | null {
  const text = textOf(value)
  if (text === null || text === '') return null
  return text.length > SHOWN_VALUE_CHARS ? `${text.slice(0, SHOWN_VALUE_CHARS)}…` : text
}

function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return value.map((item) => textOf(item) ?? '—').join(', ')
  const record = value as Record<string, unknown>
  if (typeof record.text === 'string' && typeof record.kind === 'string') {
    return `${record.text} (${[record.kind, record.lang].filter(Boolean).join(', ')})`
  }
  return JSON.stringify(value)
}

// ── Export ─────────────────────────────────────────────────────────────────────────────────────────────

const ExportFormSchema = z.object({
  kind: z.enum(SYNC_KINDS).catch('full'),
  label: z
    .string()
    .trim()
    .max(100)
    .transform((label) => label || null),
})

/**
 * Exports a bundle into a folder of its own under the OS temp dir and answers it as a download named like
 * the bundle; the folder is removed once the answer is sent (or the client goes away).
 */
export async function exportDownload(form: FormData, actor: SessionActor): Promise<Response> {
  const parsed = ExportFormSchema.safeParse({
    kind: form.get('kind') ?? 'full',
    label: String(form.get('label') ?? ''),
  })
  if (!parsed.success) {
    throw validationError([{ path: 'label', message: 'The label may be at most 100 characters.' }])
  }
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'glossary-sync-export-'))
  const remove = () => void fs.promises.rm(dir, { recursive: true, force: true })
  try {
    const result = await exportBundle({
      incremental: parsed.data.kind === 'incremental',
      outDir: dir,
      label: parsed.data.label,
      actorId: actor.user.id,
    })
    const { size } = await fs.promises.stat(result.file)
    const name = path.basename(result.file)
    const stream = fs.createReadStream(result.file)
    stream.once('close', remove)
    return new Response(Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>, {
      headers: {
        'Content-Type': 'application/gzip',
        'Content-Length': String(size),
        // The name may hold letters beyond ASCII (a Korean label): an ASCII fallback and the UTF-8 name.
        'Content-Disposition': `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        'Cache-Control': 'no-store',
      },
    })
  } catch (error) {
    remove()
    throw error
  }
}
