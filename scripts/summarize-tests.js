// Prints the suite's closing line `N passed, N failed` from vitest's JSON reports (after one line per report);
// exits 1 when a report is missing (a run that crashed before reporting must not look green).
import fs from 'node:fs'

let passed = 0
let failed = 0
let skipped = 0
let missing = false
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) {
    console.log(`no report: ${file}`)
    missing = true
    continue
  }
  const report = JSON.parse(fs.readFileSync(file, 'utf8'))
  const pending = report.numPendingTests + (report.numTodoTests ?? 0)
  // One line per pass (embedded, PostgreSQL, e2e), so a pass that ran nothing shows.
  console.log(
    `  ${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${pending} skipped`,
  )
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += pending
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(missing || failed > 0 ? 1 : 0)
