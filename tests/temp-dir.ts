import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const made: string[] = []

/**
 * A new folder under the system's temporary folder, removed when this test process exits (a test's databases
 * and bundles there are tens of megabytes each; left behind, a full run left ~800 MB).
 */
export function tempDir(prefix: string): string {
  if (made.length === 0) process.once('exit', removeAll)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

function removeAll(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}
