#!/usr/bin/env node
// The whole test suite, in order, stopping at the first failing step; `npm test` and `pnpm check`.
import { runPnpm } from './pnpm.mjs'
import { ensureSystemDeps } from './system-deps.mjs'
import { resetReports, summarize } from './test-summary.mjs'

const steps = [
  ['layering', ['run', 'check:layering']],
  ['lint', ['run', 'lint']],
  ['typecheck', ['-r', 'run', 'typecheck']],
  ['tests', ['-r', 'run', 'test']],
  ['builds', ['-r', 'run', 'build']],
  ['sizes', ['run', 'size']],
  // Real browsers against real nginx, alone on the machine: timing-sensitive, so not in parallel
  // with the unit tests.
  ['e2e', ['run', 'e2e']],
]

resetReports()
for (const [name, args] of steps) {
  console.log(`\n[check] ${name}: pnpm ${args.join(' ')}`)
  if (name === 'e2e' && !ensureSystemDeps()) process.exit(1)
  const status = await runPnpm(args)
  if (status !== 0) {
    console.error(`[check] ${name} failed`)
    process.exit(status)
  }
}
process.exit(summarize() ? 0 : 1)
