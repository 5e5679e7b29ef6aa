// Prints the suite's closing line `N passed, N failed` from vitest's JSON reports (after one line per report, and
// one per failed test, so the last lines of a CI log name what failed); exits 1 when a report is missing (a run
// that crashed before reporting must not look green).
import fs from 'node:fs'
import path from 'node:path'

/** The failures of one report: a failed test's file, names and first line of its message; a file that failed to load. */
function failuresOf(report) {
  const lines = []
  for (const file of report.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name)
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed')
    for (const test of failedTests) {
      const name = [...(test.ancestorTitles ?? []), test.title].join(' › ')
      lines.push(`    FAILED ${where} › ${name}: ${firstLine(test.failureMessages?.[0])}`)
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      lines.push(`    FAILED ${where}: ${firstLine(file.message)}`)
    }
  }
  return lines
}

function firstLine(text) {
  const line = (text ?? '').split('\n').find((candidate) => candidate.trim() !== '') ?? ''
  return line.trim().slice(0, 300)
}

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
  for (const line of failuresOf(report)) console.log(line)
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += pending
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(missing || failed > 0 ? 1 : 0)
