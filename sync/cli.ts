import path from 'node:path'
import { AppError } from '#app/lib/errors.server.ts'
import { exportBundle, type ExportResult } from '#app/services/sync/export.server.ts'
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
import { BundleError } from './bundle-io.ts'
import { SYNC_ITEM_TYPES, type SyncItemType } from './bundle-schema.ts'
import { parseSyncArgs, type SyncCommand } from './cli-args.ts'

/**
 * `glossary sync export|import|status` (spec part 8, issue 30): what each subcommand runs, prints and exits
 * with; its arguments and help texts are cli-args.ts's. The rules are the services' (app/services/sync/); the
 * process around it (opening the database, refusing a pending migration, a data directory held by a running
 * service) is the runtime's (app/server/runtime.server.ts), which hands it in as `SyncCliHost`.
 */

const EXIT_OK = 0
/** An invalid bundle, or any other failure. */
const EXIT_FAILED = 1
/** A bundle missing from an origin's chain (rule f). */
const EXIT_MISSING = 2
/** As for every `glossary` command. */
const EXIT_USAGE = 2

/** What the process around the command provides: the database, opened and closed (app/server/runtime.server.ts). */
export interface SyncCliHost {
  openDatabase(): Promise<void>
  closeDatabase(): Promise<void>
}

/** Who a command-line import is recorded as (no account: the operator at the machine). */
const CLI_ACTOR = { id: null, label: 'glossary sync (command line)' }

/**
 * Runs `glossary sync …` and resolves with its exit code. Help and usage errors never open the database. An
 * invalid bundle, or a failure a service words for its user, ends in one line on stderr and exit code 1; any
 * other failure is thrown (`glossary` prints its stack).
 */
export async function syncCli(args: readonly string[], host: SyncCliHost): Promise<number> {
  const parsed = parseSyncArgs(args, process.cwd())
  if (parsed.kind === 'help') {
    out(parsed.text)
    return EXIT_OK
  }
  if (parsed.kind === 'usage') {
    process.stderr.write(`glossary sync: ${parsed.message}\n\n${parsed.usage}\n`)
    return EXIT_USAGE
  }
  try {
    await host.openDatabase()
    return await runCommand(parsed.command)
  } catch (error) {
    if (!(error instanceof BundleError || error instanceof AppError)) throw error
    process.stderr.write(`glossary sync: ${error.message}\n`)
    return EXIT_FAILED
  } finally {
    await host.closeDatabase()
  }
}

async function runCommand(command: SyncCommand): Promise<number> {
  switch (command.command) {
    case 'export': {
      const result = await exportBundle({
        incremental: command.incremental,
        outDir: command.outDir,
        label: command.label,
        actorId: null,
      })
      out(exportText(result))
      return EXIT_OK
    }
    case 'import': {
      const files = await bundleFiles(command.target)
      const report = await importBundles(files, {
        apply: command.apply,
        keepLocalEdits: command.keepLocalEdits,
        actor: CLI_ACTOR,
        onProgress: command.apply ? progressLine() : undefined,
      })
      out(command.json ? JSON.stringify(report, null, 2) : importText(report, command.apply))
      return report.missing ? EXIT_MISSING : EXIT_OK
    }
    case 'status': {
      const status = await syncStatus()
      out(command.json ? JSON.stringify(status, null, 2) : statusText(status))
      return EXIT_OK
    }
  }
}

function out(text: string): void {
  process.stdout.write(`${text}\n`)
}

/** On a terminal, how far an apply has come, rewritten in place on stderr; elsewhere nothing. */
function progressLine(): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined
  return (done, total) => {
    process.stderr.write(`\rapplying: ${done} of ${total}${done >= total ? '\n' : ''}`)
  }
}

// ── What is printed ─────────────────────────────────────────────────────────────────────────────────────────

const TYPE_PLURALS: Record<SyncItemType, string> = {
  domain: 'domains',
  category: 'categories',
  term: 'terms',
  relation: 'relations',
  wiki: 'wiki pages',
}

const ACTION_WORDS: Record<ItemAction, string> = {
  create: 'create',
  update: 'update',
  delete: 'delete',
  unchanged: 'unchanged',
  kept_local_edit: 'kept local edit',
  conflict: 'conflict',
}

/** The file's path alone on the first line (for scripts), then what the bundle holds. */
function exportText(result: ExportResult): string {
  const items = SYNC_ITEM_TYPES.map((type) => `${TYPE_PLURALS[type]} ${result.counts.items[type]}`)
  return [
    result.file,
    `${result.kind} bundle #${result.sequence}, exported ${result.exportedAt}, ${sizeText(result.bytes)}`,
    `${items.join(', ')}, images ${result.counts.attachments}, deletions ${result.counts.tombstones}`,
  ].join('\n')
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

/** A bundle's outcome in a word; the import's message (when it has one) says why. */
const OUTCOME_WORDS: Record<BundleReport['outcome'], string> = {
  applied: 'applied',
  previewed: 'preview',
  skipped_older: 'skipped as older',
  missing: 'missing',
  own_bundle: 'skipped (own bundle)',
}

/** Per bundle its outcome and, item by item grouped by action, what it does; then one line on the whole. */
function importText(report: ImportReport, apply: boolean): string {
  const lines: string[] = []
  for (const bundle of report.bundles) {
    lines.push(
      path.basename(bundle.file),
      `  ${bundle.kind} bundle #${bundle.sequence} of ${bundle.origin.name} (origin ${bundle.origin.id}), ` +
        `exported ${bundle.exportedAt}: ${OUTCOME_WORDS[bundle.outcome]}` +
        (bundle.message ? `. ${bundle.message}` : ''),
    )
    // A skipped or missing bundle has no items to tell of; the line above says why.
    if (bundle.outcome !== 'applied' && bundle.outcome !== 'previewed') continue
    for (const action of ITEM_ACTIONS) {
      for (const entry of bundle.entries) if (entry.action === action) lines.push(`    ${entryText(entry)}`)
    }
    lines.push(
      `  ${ITEM_ACTIONS.map((action) => `${ACTION_WORDS[action]} ${bundle.counts[action]}`).join(', ')}`,
    )
  }
  if (report.bundles.length === 0) lines.push('No bundle to import.')
  const applied = report.bundles.filter((bundle) => bundle.outcome === 'applied').length
  lines.push(
    apply
      ? `Applied ${applied} of ${report.bundles.length} bundle(s), in one transaction.`
      : 'Preview only: nothing was written. Run again with --apply to apply it.',
  )
  if (report.missing) {
    lines.push(
      "A bundle is missing: its origin's bundles from there on are not applied. Apply the missing ones, " +
        'or a full bundle of that origin.',
    )
  }
  return lines.join('\n')
}

function entryText(entry: PlanEntry): string {
  const fields = entry.changes?.length ? ` (${entry.changes.map((c) => c.field).join(', ')})` : ''
  const reason = entry.reason ? `: ${entry.reason}` : ''
  return `${ACTION_WORDS[entry.action].padEnd(16)} ${entry.type.padEnd(9)} ${entry.title}${fields}${reason}`
}

function statusText(status: SyncStatus): string {
  const { lastExport } = status
  const lines = [
    `This installation: ${status.origin.name} (origin ${status.origin.id})`,
    lastExport
      ? `Last export: ${lastExport.kind} bundle #${lastExport.sequence}, exported ${lastExport.exportedAt}, ${lastExport.file}`
      : 'Last export: none yet',
    status.origins.length ? 'Applied here, per origin:' : 'Applied here: nothing yet',
    ...status.origins.map(
      (origin) =>
        `  ${origin.name} (origin ${origin.id}): bundle #${origin.lastSequence} exported ` +
        `${origin.lastExportedAt}, applied ${origin.lastAppliedAt}`,
    ),
  ]
  if (status.applied.length) lines.push('Bundles applied last:')
  for (const bundle of status.applied) {
    const counts = Object.entries(bundle.counts)
      .filter(([, n]) => n > 0)
      .map(([action, n]) => `${ACTION_WORDS[action as ItemAction] ?? action} ${n}`)
    lines.push(
      `  ${bundle.appliedAt} ${bundle.originName} ${bundle.kind} #${bundle.sequence}` +
        ` by ${bundle.appliedBy ?? 'unknown'}: ${counts.join(', ') || 'no change'}`,
    )
  }
  return lines.join('\n')
}
