#!/usr/bin/env node
// Runs a root pnpm script on a bare machine with only Node (any version ≥ 18) and npm:
//   1. uses the pinned pnpm (package.json "tools.pnpm"); when the machine has another or none,
//      installs the pinned one from the npm registry into .tmp/ (once, about 3 s);
//   2. `pnpm install`, which also brings Node 24 from the npm registry (root devDependency "node");
//   3. `pnpm run <script>`: scripts run under that Node 24 (node_modules/.bin is first on PATH).
//   4. `npm test` (check.mjs) installs the Debian packages the e2e suite needs (system-deps.mjs).
// This is the whole bootstrap: .ci/run is just `npm test`.
// Usage: node scripts/run.mjs <script> [args…]     (npm start = dev, npm test = check)
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [script, ...args] = process.argv.slice(2)
if (!script) {
  console.error('usage: node scripts/run.mjs <script> [args…]')
  process.exit(2)
}

// The pin is not "packageManager": with that field pnpm 12 looks up every platform build of
// itself on the registry before each command, warns on every run that the registry lacks one
// (@pnpm/exe.netbsd-x64) and fails about one run in eight with ERR_PNPM_BAD_CONFIG_DEP
// (measured here: 1 of 8 runs with the field, 0 of 10 without; the same with devEngines). Without
// it the gap is gone: 0 of 45 pnpm runs (15 installs) on 2026-11-24, so pnpm runs unwrapped.
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).tools.pnpm

// Where this script puts its `pnpm` for the scripts below it: never taken for the real one.
const shimDir = join(root, '.tmp', 'bin')

const findPnpm = () => {
  const PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir !== shimDir)
    .join(':')
  const onPath = spawnSync('sh', ['-c', 'command -v pnpm'], {
    encoding: 'utf8',
    env: { ...process.env, PATH },
  }).stdout.trim()
  if (onPath && spawnSync(onPath, ['--version'], { encoding: 'utf8' }).stdout?.trim() === pinned)
    return onPath
  const prefix = join(root, '.tmp', `pnpm-${pinned}`)
  const local = join(prefix, 'node_modules', '.bin', 'pnpm')
  if (!existsSync(local)) {
    console.log(`[run] installing pnpm ${pinned} from the npm registry into .tmp/`)
    const npm = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `pnpm@${pinned}`,
      ],
      { stdio: 'inherit' },
    )
    if (npm.status !== 0) process.exit(npm.status ?? 1)
  }
  return local
}

const realPnpm = findPnpm()

// The pinned pnpm first on PATH for this run and every script below it (scripts call `pnpm`).
mkdirSync(shimDir, { recursive: true })
const shim = join(shimDir, 'pnpm')
writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(realPnpm)} "$@"\n`)
chmodSync(shim, 0o755)
process.env.PATH = `${shimDir}:${process.env.PATH}`
// wrangler's offline settings (stack/wrangler-env.json) for every script below, tests included
Object.assign(
  process.env,
  JSON.parse(readFileSync(join(root, 'stack', 'wrangler-env.json'), 'utf8')),
)

/**
 * Runs `pnpm …args` in the root and resolves with its exit status. SIGINT/SIGTERM sent to this
 * process alone (a supervisor, `timeout`) reach pnpm too, so `npm start` stops its whole stack.
 */
function pnpm(args) {
  return new Promise((resolve) => {
    const child = spawn(realPnpm, args, { cwd: root, stdio: 'inherit' })
    const forward = (signal) => child.kill(signal)
    process.on('SIGINT', forward)
    process.on('SIGTERM', forward)
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      resolve(code ?? (signal ? 1 : 0))
    })
  })
}
const installed = await pnpm(['install'])
if (installed !== 0) process.exit(installed)
process.exit(await pnpm(['run', script, ...args]))
