// The watched playbacks of one e2e run, kept for the refresh-efficiency benchmark
// (bench/playback/refresh-efficiency.ts): one JSON line per watch, one file per Playwright worker.
// `pnpm e2e` clears them first (`node support/watches.ts --reset`), so the benchmark reads ONE
// run (not the playback benchmark's, which runs Playwright too and must not clear them).
import { appendFileSync, mkdirSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { PlayerName } from '@proj/demo/config'

/** Where the watches are written: `.tmp/bench/e2e-watches/`. */
export const WATCHES_DIR = join(import.meta.dirname, '..', '..', '.tmp', 'bench', 'e2e-watches')

/** One watched playback, as the refresh-efficiency benchmark reads it. */
export interface WatchRecord {
  page: string
  player: PlayerName
  mode: string | undefined
  wallMs: number
  advanced: number
  fetches: number
  stalls: { ms: number; token: boolean }[]
}

/** A {@link WatchRecord} with the spec file and test it came from. */
export type RecordedWatch = WatchRecord & { file: string; title: string }

/**
 * Appends a watch of the test `test` (Playwright's `test.info()`) to its worker's file.
 *
 * @example
 * ```ts
 * recordWatch(test.info(), { page: page.url(), player: 'hlsjs', … })
 * ```
 */
export function recordWatch(
  test: { parallelIndex: number; file: string; title: string },
  record: WatchRecord,
): void {
  mkdirSync(WATCHES_DIR, { recursive: true })
  const line: RecordedWatch = { file: basename(test.file), title: test.title, ...record }
  appendFileSync(
    join(WATCHES_DIR, `worker-${test.parallelIndex}.jsonl`),
    `${JSON.stringify(line)}\n`,
  )
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--reset'))
  rmSync(WATCHES_DIR, { recursive: true, force: true })
