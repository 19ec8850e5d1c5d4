#!/usr/bin/env node
// Runs a root script, or a command, on a bare machine with only Node (any version ≥ 18) and npm:
//   1. uses the pinned pnpm (package.json "tools.pnpm"); when the machine has another or none,
//      installs the pinned one from the npm registry into .tmp/ (once, about 3 s);
//   2. `pnpm install`, which also brings Node 24 from the npm registry (root devDependency "node");
//   3. `pnpm run <script>`, or the command: either runs under that Node 24 with the pinned pnpm
//      first on PATH (node_modules/.bin, then .tmp/bin).
//   4. `npm test` (check.mjs) installs the Debian packages the e2e suite needs (system-deps.mjs).
// This is the whole bootstrap: .ci/run is just `npm test`.
// Usage: node scripts/run.mjs <script> [args…]       npm start = dev, npm test = check
//        node scripts/run.mjs -- <command> [args…]   the root scripts QA runs as `npm run <name>`
//          (e2e, sign:local, cdn-emulator, …): under npm, bootstrapped as above; under pnpm, whose
//          user has installed, the command runs at once.
// What the bootstrap itself prints goes to standard error, so `$(npm run -s sign:local …)` reads
// the command's output alone.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [first, ...rest] = process.argv.slice(2)
const command = first === '--' ? rest : undefined
if (!first || command?.length === 0) {
  console.error(
    'usage: node scripts/run.mjs <script> [args…] | node scripts/run.mjs -- <command> [args…]',
  )
  process.exit(2)
}
// to standard error: a command's standard output stays its own
const BOOTSTRAP_STDIO = ['inherit', 2, 'inherit']

/**
 * Runs `file …args` in the root and resolves with its exit status. SIGINT/SIGTERM sent to this
 * process alone (a supervisor, `timeout`) reach the child too, so `npm start` stops its stack.
 */
function run(file, args, stdio = 'inherit') {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: root, stdio })
    const forward = (signal) => child.kill(signal)
    process.on('SIGINT', forward)
    process.on('SIGTERM', forward)
    child.on('error', (error) => {
      console.error(`[run] ${file}: ${error.code === 'ENOENT' ? 'not found' : error.message}`)
      resolve(127)
    })
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      resolve(code ?? (signal ? 1 : 0))
    })
  })
}

// wrangler's offline settings (stack/wrangler-env.json) for every script below, tests included
Object.assign(
  process.env,
  JSON.parse(readFileSync(join(root, 'stack', 'wrangler-env.json'), 'utf8')),
)

// Under pnpm (`pnpm e2e`) its user has installed and pnpm is on PATH: nothing to bootstrap.
if (command && /^pnpm\//.test(process.env.npm_config_user_agent ?? ''))
  process.exit(await run(command[0], command.slice(1)))

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
    console.error(`[run] installing pnpm ${pinned} from the npm registry into .tmp/`)
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
      { stdio: BOOTSTRAP_STDIO },
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

const installed = await run(realPnpm, ['install'], BOOTSTRAP_STDIO)
if (installed !== 0) process.exit(installed)
if (command) {
  // what `pnpm run` does for a script: the root's bins first (Node 24 among them)
  process.env.PATH = `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`
  process.exit(await run(command[0], command.slice(1)))
}
process.exit(await run(realPnpm, ['run', first, ...rest]))
