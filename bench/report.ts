// What every benchmark uses to publish its figures: print them, and write them into their own
// section of BENCHMARKS.md (between `<!-- bench:ID -->` and `<!-- /bench:ID -->`), so the file
// holds only numbers a harness wrote. Quick mode (BENCH_QUICK=1, what `npm test` runs) writes a
// copy under .tmp/bench/ instead: its few samples prove the harness works, they are not figures.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** The repository root (bench/ is one of its workspace folders). */
const root = join(import.meta.dirname, '..')

/** True in the test command's quick mode. */
export const quick = process.env.BENCH_QUICK === '1'

/**
 * The file this run writes: BENCHMARKS.md, or its quick-mode copy.
 *
 * @example
 * ```ts
 * readFileSync(target(), 'utf8')
 * ```
 */
export function target(): string {
  const committed = join(root, 'BENCHMARKS.md')
  if (!quick) return committed
  const copy = join(root, '.tmp', 'bench', 'BENCHMARKS.md')
  if (!existsSync(copy)) {
    mkdirSync(dirname(copy), { recursive: true })
    copyFileSync(committed, copy)
  }
  return copy
}

/**
 * Median of numbers (the middle one; the lower middle for an even count).
 *
 * @example
 * ```ts
 * median([3, 1, 2, 4]) // 2
 * ```
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN
}

/**
 * The given percentile (0–100) by nearest rank.
 *
 * @example
 * ```ts
 * percentile([1, 2, 3, 4], 95) // 4
 * ```
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/**
 * A markdown table from a header row and rows of cells (first column left, the rest right).
 *
 * @example
 * ```ts
 * table(['case', 'ops/s'], [['sign', '1.2 M']])
 * ```
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n')
}

/**
 * One line on where and when the figures were taken.
 *
 * @example
 * ```ts
 * stamp('2 cores') // 'Measured 2026-11-24, Node v24.21.0, 2 cores.'
 * ```
 */
export function stamp(extra = ''): string {
  return `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}${quick ? ', QUICK mode (few samples: not figures)' : ''}${extra ? `, ${extra}` : ''}.`
}

/**
 * Prints `markdown` and puts it in section `id` of BENCHMARKS.md (appended when the file has no
 * such section yet).
 *
 * @example
 * ```ts
 * report('signing', `${table(header, rows)}\n\n${stamp()}`)
 * ```
 */
export function report(id: string, markdown: string): void {
  console.log(`\n${markdown}\n`)
  const file = target()
  const text = readFileSync(file, 'utf8')
  const open = `<!-- bench:${id} -->`
  const close = `<!-- /bench:${id} -->`
  const block = `${open}\n${markdown.trim()}\n${close}`
  const start = text.indexOf(open)
  const end = text.indexOf(close)
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + block + text.slice(end + close.length)
      : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, next)
  console.log(`[bench] ${id} → ${file.slice(root.length + 1)}`)
}
