// Sums the JSON reports every test runner wrote to .tmp/test-results/ into one closing line,
// `tests: N passed, N failed`, so CI (and people) see the whole suite's count in one place.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const dir = join(import.meta.dirname, '..', '.tmp', 'test-results')

/** Clears the reports of an earlier run. */
export const resetReports = () => {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
}

/** Prints per-suite counts and the closing line; true when something passed and nothing failed. */
export const summarize = () => {
  let passed = 0
  let failed = 0
  let skipped = 0
  const lines = []
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const report = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    // vitest's json reporter (jest-compatible) or Playwright's json reporter.
    const p = report.numPassedTests ?? report.stats?.expected ?? 0
    const f =
      report.numFailedTests ??
      (report.stats ? report.stats.unexpected + (report.stats.flaky ?? 0) : 0)
    const s =
      (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0) + (report.stats?.skipped ?? 0)
    passed += p
    failed += f
    skipped += s
    lines.push(
      `  ${file.replace(/\.json$/, '').padEnd(24)} ${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}`,
    )
  }
  console.log(`\n${lines.join('\n')}`)
  console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  return failed === 0 && passed > 0
}
