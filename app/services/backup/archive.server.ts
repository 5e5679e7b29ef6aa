import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import * as tar from 'tar'
import { BackupError } from './errors.ts'
import { MANIFEST_FILE, ManifestSchema, type Manifest } from './manifest.ts'

/**
 * The backup file: an uncompressed tar holding `manifest.json` first and the dump after it (the dump is already
 * compressed: PGlite's gzip tar, pg_dump's custom format). Written next to its final name and renamed into
 * place, so a failed backup leaves no half-written file under that name.
 */

/** SHA-256 (hex) and size of a file, read as a stream (a PostgreSQL dump can be large). */
export async function fileDigest(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = crypto.createHash('sha256')
  let bytes = 0
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer)
    bytes += (chunk as Buffer).length
  }
  return { sha256: hash.digest('hex'), bytes }
}

/**
 * Writes `out` from a work folder holding the dump (`manifest.dump.file`): the manifest first, then the dump.
 * The tar goes to a temporary name beside `out` and is renamed when complete.
 */
export async function writeArchive(out: string, workDir: string, manifest: Manifest): Promise<void> {
  fs.writeFileSync(path.join(workDir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n')
  const partial = `${out}.partial-${process.pid}`
  try {
    await tar.c({ file: partial, cwd: workDir, portable: true, strict: true }, [
      MANIFEST_FILE,
      manifest.dump.file,
    ])
    fs.renameSync(partial, out)
  } finally {
    fs.rmSync(partial, { force: true })
  }
}

export interface OpenedArchive {
  manifest: Manifest
  /** The extracted dump, in `workDir`. */
  dumpPath: string
  /** The dump's SHA-256 and size as read, to compare with the manifest. */
  dump: { sha256: string; bytes: number }
}

function notABackup(file: string, why: string): BackupError {
  return new BackupError(`${file} is not a readable glossary backup: ${why}.`)
}

/**
 * Extracts a backup file into `workDir` (which the caller removes) and reads its manifest. A file that is not a
 * tar, a truncated one, or one without a valid manifest and its dump is a one-line `BackupError`.
 */
export async function openArchive(file: string, workDir: string): Promise<OpenedArchive> {
  if (!fs.existsSync(file)) throw new BackupError(`${file} does not exist.`)
  if (!fs.statSync(file).isFile()) throw new BackupError(`${file} is not a file.`)
  const entries: string[] = []
  try {
    await tar.x({
      file,
      cwd: workDir,
      strict: true,
      // Only the two expected names, never a path elsewhere (a crafted tar cannot write outside workDir).
      filter: (name) => {
        entries.push(name)
        return name === MANIFEST_FILE || name === 'database.tar.gz' || name === 'database.pgdump'
      },
    })
  } catch (error) {
    throw notABackup(file, `the tar is damaged or truncated (${(error as Error).message})`)
  }
  if (entries[0] !== MANIFEST_FILE) throw notABackup(file, `${MANIFEST_FILE} is not its first entry`)
  let manifest: Manifest
  let raw: unknown
  try {
    raw = JSON.parse(fs.readFileSync(path.join(workDir, MANIFEST_FILE), 'utf8'))
  } catch (error) {
    throw notABackup(file, `its manifest is not JSON (${(error as Error).message})`)
  }
  const version = (raw as { formatVersion?: unknown } | null)?.formatVersion
  if (typeof version === 'number' && version > 1) {
    const release = (raw as { release?: unknown }).release
    throw new BackupError(
      `${file} is a backup of format version ${version}, which this release does not read (it reads 1): use ` +
        `release ${typeof release === 'string' ? release : 'that made it'} or later.`,
    )
  }
  try {
    const parsed = ManifestSchema.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      throw new Error(`${issue.path.join('.') || 'manifest'}: ${issue.message}`)
    }
    manifest = parsed.data
  } catch (error) {
    throw notABackup(file, `its manifest is invalid (${(error as Error).message})`)
  }
  const dumpPath = path.join(workDir, manifest.dump.file)
  if (!fs.existsSync(dumpPath)) throw notABackup(file, `it holds no ${manifest.dump.file}`)
  return { manifest, dumpPath, dump: await fileDigest(dumpPath) }
}
