import path from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { BundleHeaderSchema } from './bundle-schema.ts'

/**
 * The arguments of `glossary sync …` and their help texts: what a command line asks for, decided without
 * opening anything (sync/cli.ts runs it). A usage error ends with exit code 2, like every `glossary` command's.
 */

const SYNC_HELP = `glossary sync: offline one-way sync between installations that never talk to each other.

Usage: glossary sync <subcommand> [options]   (--help on each)

Subcommands:
  export   write one bundle (*.glossary-sync.json.gz) of what this installation carries
  import   preview a bundle or a folder of bundles; apply it with --apply
  status   this installation's origin, its last export, and what was applied here from whom

Exit codes: 0 ok, 1 an invalid bundle or a failure, 2 a bundle missing from the chain (or a usage error).
With the embedded database a running \`glossary start\` holds the data: use its admin screen, /admin/sync.`

const EXPORT_HELP = `glossary sync export [--incremental] [--out <dir>] [--label <name>]

Writes one bundle of what this installation carries (terms, domains, categories, approved relations, wiki
pages and the images they show) and prints its path on the first line, then its counts.

  --incremental    only what changed since this installation's last export (the first export is full)
  --out <dir>      the folder to write it to (default: the current folder)
  --label <name>   begins the file name instead of this installation's name (GLOSSARY_SYNC_NAME)`

const IMPORT_HELP = `glossary sync import <file-or-folder> [--apply] [--keep-local-edits] [--json]

Checks every bundle (a folder's in export order, per origin) and prints per bundle and per item what applying
would do: create, update, delete, unchanged, kept local edit, conflict. A bundle older than one already applied
is skipped; one whose predecessor was never applied here is missing. Without --apply nothing is written.

  --apply              apply the bundles, all in one transaction (any failure applies nothing)
  --keep-local-edits   keep an item edited here even when its origin changed it too (default: the origin wins;
                       the local edit stays in the item's history)
  --json               print the report as JSON

Exit codes: 0 ok, 2 a bundle is missing (a full bundle of that origin fixes it), 1 an invalid bundle or a
failure (nothing written).`

const STATUS_HELP = `glossary sync status [--json]

Prints this installation's origin id and name, its last export, and per origin bundles came from the last
bundle applied here and when, then the bundles applied last.

  --json   print it as JSON`

export type SyncCommand =
  | { command: 'export'; incremental: boolean; outDir: string; label: string | null }
  | { command: 'import'; target: string; apply: boolean; keepLocalEdits: boolean; json: boolean }
  | { command: 'status'; json: boolean }

/** What the arguments ask for: a command to run, a help text to print, or a usage error (with the usage). */
export type ParsedSyncArgs =
  | { kind: 'run'; command: SyncCommand }
  | { kind: 'help'; text: string }
  | { kind: 'usage'; message: string; usage: string }

type Options = NonNullable<ParseArgsConfig['options']>

const SUBCOMMANDS = {
  export: {
    help: EXPORT_HELP,
    operands: [],
    options: { incremental: { type: 'boolean' }, out: { type: 'string' }, label: { type: 'string' } },
  },
  import: {
    help: IMPORT_HELP,
    operands: ['<file-or-folder>'],
    options: {
      apply: { type: 'boolean' },
      'keep-local-edits': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  },
  status: { help: STATUS_HELP, operands: [], options: { json: { type: 'boolean' } } },
} as const satisfies Record<SyncCommand['command'], { help: string; operands: string[]; options: Options }>

const isSubcommand = (name: string): name is keyof typeof SUBCOMMANDS => Object.hasOwn(SUBCOMMANDS, name)

/** Reads `glossary sync …`'s arguments (those after `sync`); `cwd` is where `--out` defaults to. */
export function parseSyncArgs(args: readonly string[], cwd: string): ParsedSyncArgs {
  const [name, ...rest] = args
  if (name === undefined) return usage('name a subcommand: export, import or status', SYNC_HELP)
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'help', text: SYNC_HELP }
  if (!isSubcommand(name)) return usage(`unknown subcommand "${name}"`, SYNC_HELP)
  const spec = SUBCOMMANDS[name]
  const options: Options = { ...spec.options, help: { type: 'boolean', short: 'h' } }
  let parsed: ReturnType<typeof parseArgs<{ options: Options; allowPositionals: true; strict: true }>>
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true })
  } catch (error) {
    // node:util names the option and what is wrong in its first sentence; the rest is advice about `--`.
    return usage((error as Error).message.split('. ')[0]!, spec.help)
  }
  const { values, positionals } = parsed
  if (values.help) return { kind: 'help', text: spec.help }
  if (positionals.length !== spec.operands.length) {
    const wanted = spec.operands.length ? `one ${spec.operands.join(' ')}` : 'no operand'
    return usage(`"sync ${name}" takes ${wanted} (got: ${positionals.join(' ') || 'none'})`, spec.help)
  }
  switch (name) {
    case 'export': {
      // The header's own rule for a label, so the command refuses what the bundle could not carry.
      const label = BundleHeaderSchema.shape.label.safeParse(text(values.label) || null)
      if (!label.success) return usage(`--label: ${label.error.issues[0]!.message}`, spec.help)
      return run({
        command: 'export',
        incremental: values.incremental === true,
        outDir: path.resolve(cwd, text(values.out) ?? '.'),
        label: label.data,
      })
    }
    case 'import':
      return run({
        command: 'import',
        target: path.resolve(cwd, positionals[0]!),
        apply: values.apply === true,
        keepLocalEdits: values['keep-local-edits'] === true,
        json: values.json === true,
      })
    case 'status':
      return run({ command: 'status', json: values.json === true })
  }
}

/** A string option's value (undefined when not given). */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function usage(message: string, text: string): ParsedSyncArgs {
  return { kind: 'usage', message, usage: text }
}

function run(command: SyncCommand): ParsedSyncArgs {
  return { kind: 'run', command }
}
