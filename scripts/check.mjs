#!/usr/bin/env node
// The whole test suite, in order, stopping at the first failing step; `npm test` and `pnpm check`.
import { spawnSync } from 'node:child_process'
import { ensureSystemDeps } from './system-deps.mjs'
import { resetReports, summarize } from './test-summary.mjs'

const steps = [
  // pnpm itself prints no warning of the repo's making (the README's first screen)
  ['quiet', ['exec', 'node', 'scripts/check-quiet.mjs']],
  ['layering', ['run', 'check:layering']],
  // every "spec N.N" a comment cites is a section of docs/protocol.md
  ['citations', ['exec', 'node', 'scripts/check-spec-citations.mjs']],
  // docs/layout.md names every source file, and only files that exist (the lines to add, if not)
  ['layout', ['exec', 'node', 'scripts/check-layout.mjs']],
  ['lint', ['run', 'lint']],
  ['typecheck', ['-r', 'run', 'typecheck']],
  // every package's tests in one vitest run (root vitest.config.ts lists them as projects)
  [
    'tests',
    [
      'exec',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      '--outputFile.json=.tmp/test-results/unit.json',
    ],
  ],
  // the API emulator's OpenAPI document, linted as client generators read it
  ['openapi', ['--filter', '@proj/api-worker', 'run', 'lint:openapi']],
  ['builds', ['-r', 'run', 'build']],
  // a dry run of `pnpm release`: every non-private package packed into .tmp/packs/ and its
  // tarball's package.json checked (no workspace: range, no .ts entry, LICENSE, metadata)
  ['packs', ['run', 'check:packs']],
  // the packed token backend on the floors it admits: the oldest Node of its engines.node
  // (installed from the npm registry into .tmp/node-floor/ once) and the oldest release of each
  // `||` alternative of its peer ranges: the bin, sessions, two instances on one Redis, the
  // library in a user's Hono app (scripts/check-floors.mjs)
  ['floors', ['exec', 'node', 'scripts/check-floors.mjs']],
  // the adopter's view: those tarballs installed with npm into an app outside the workspace, every
  // README code block type-checked there, the app built with Vite (the e2e spec adoption plays it)
  ['adoption', ['exec', 'node', 'e2e/adoption/prepare.ts']],
  ['sizes', ['run', 'size']],
  // Real browsers against real nginx, alone on the machine: timing-sensitive, so not in parallel
  // with the unit tests.
  ['e2e', ['run', 'e2e']],
  // Every benchmark once in quick mode (a few samples each, written to .tmp/bench/): proves the
  // harness runs; `pnpm bench` takes the figures. After e2e: it reads the e2e run's playbacks.
  ['bench (quick)', ['run', 'bench'], { BENCH_QUICK: '1' }],
]

resetReports()
const started = Date.now()
const times = []
for (const [name, args, env] of steps) {
  console.log(`\n[check] ${name}: pnpm ${args.join(' ')}`)
  // the unit tests start redis-server; e2e needs the rest (installed once, before either)
  if (name === 'tests' && !ensureSystemDeps()) process.exit(1)
  const at = Date.now()
  // under `npm test` the bootstrap (run.mjs) has put the pinned pnpm first on PATH
  const status =
    spawnSync('pnpm', args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1
  times.push(`${name} ${((Date.now() - at) / 60_000).toFixed(1)}`)
  if (status !== 0) {
    console.error(`[check] ${name} failed`)
    process.exit(status)
  }
}
// where the time went (BENCHMARKS.md keeps the figures of fresh-clone runs)
console.log(
  `\n[check] minutes: ${times.join(', ')}; all ${((Date.now() - started) / 60_000).toFixed(1)}`,
)
process.exit(summarize() ? 0 : 1)
