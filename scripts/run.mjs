#!/usr/bin/env node
// Runs a root pnpm script on a bare machine with only Node (any version ≥ 18) and npm:
//   1. uses the pinned pnpm (package.json "tools.pnpm"); when the machine has another or none,
//      installs the pinned one from the npm registry into .tmp/ (once, about 3 s);
//   2. `pnpm install`, which also brings Node 24 from the npm registry (root devDependency "node");
//   3. `pnpm run <script>`: scripts run under that Node 24 (node_modules/.bin is first on PATH).
// Every pnpm call, nested ones included, goes through scripts/pnpm.mjs (see why there).
// Usage: node scripts/run.mjs <script> [args…]     (npm start = dev, npm test = check)
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runPnpm } from './pnpm.mjs'
import { WRANGLER_ENV } from './stack-tools.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [script, ...args] = process.argv.slice(2)
if (!script) {
  console.error('usage: node scripts/run.mjs <script> [args…]')
  process.exit(2)
}

// The pin is not "packageManager": with that field pnpm 12 looks up every platform build of
// itself on the registry before each command, warns on every run that the registry lacks one
// (@pnpm/exe.netbsd-x64) and fails about one run in eight with ERR_PNPM_BAD_CONFIG_DEP
// (measured here: 1 of 8 runs with the field, 0 of 10 without; the same with devEngines).
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).tools.pnpm

const findPnpm = () => {
  const onPath = spawnSync('sh', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).stdout.trim()
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

// A `pnpm` first on PATH for this run and every script below it.
const shimDir = join(root, '.tmp', 'bin')
mkdirSync(shimDir, { recursive: true })
const shim = join(shimDir, 'pnpm')
writeFileSync(shim, `#!/bin/sh\nexec node "${join(root, 'scripts', 'pnpm.mjs')}" "$@"\n`)
chmodSync(shim, 0o755)

process.env.PATH = `${shimDir}:${process.env.PATH}`
process.env.PROJ_REAL_PNPM = realPnpm
Object.assign(process.env, WRANGLER_ENV)

const installStatus = await runPnpm(['install'], { cwd: root })
if (installStatus !== 0) process.exit(installStatus)
process.exit(await runPnpm(['run', script, ...args], { cwd: root }))
