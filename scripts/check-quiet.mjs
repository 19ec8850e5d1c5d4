#!/usr/bin/env node
// A first run must read clean (issue 18): pnpm's own commands print no warning of the repo's
// making. Runs an install (nothing to do after npm test's bootstrap) and a script the way the
// README's commands do, and fails on a pnpm warning, an engine complaint or a pnpm error code
// (with "packageManager" as the pin, pnpm 12 printed "[WARN] The registry publishes no pnpm …"
// on every command and failed now and then with ERR_PNPM_BAD_CONFIG_DEP).
import { spawnSync } from 'node:child_process'

const NOISE = /\[WARN\]|WARN\s|Unsupported engine|ERR_PNPM_/
const found = []
for (const args of [
  ['install', '--frozen-lockfile', '--offline'],
  ['run', 'check:layering'],
]) {
  const run = spawnSync('pnpm', args, { encoding: 'utf8' })
  const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => NOISE.test(line))
  if (run.status !== 0) found.push(`pnpm ${args.join(' ')} exited ${run.status}`)
  for (const line of lines) found.push(`pnpm ${args[0]}: ${line.trim()}`)
}
if (found.length) {
  console.error(`quiet: pnpm printed what a newcomer reads as broken:\n  ${found.join('\n  ')}`)
  process.exit(1)
}
console.log('quiet: pnpm install and pnpm run print no warning')
