#!/usr/bin/env node
// Runs a root pnpm script on a bare machine with only Node (any version ≥ 18) and npm:
//   1. uses the pinned pnpm (package.json "packageManager"), from npx when none is installed;
//   2. `pnpm install`, which also brings Node 24 from the npm registry (root devDependency "node");
//   3. `pnpm run <script>`: scripts run under that Node 24 (node_modules/.bin is first on PATH).
// Usage: node scripts/run.mjs <script> [args…]     (npm start = dev, npm test = check)
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [script, ...args] = process.argv.slice(2)
if (!script) {
  console.error('usage: node scripts/run.mjs <script> [args…]')
  process.exit(2)
}

const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split(
  '@',
)[1]
const installed = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: false })
const pnpm =
  installed.status === 0 && installed.stdout.trim() === pinned
    ? ['pnpm']
    : ['npx', '--yes', `pnpm@${pinned}`]

const env = {
  ...process.env,
  // wrangler is offline-friendly with these; nothing here needs Cloudflare's network.
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
}

const run = (argv) =>
  new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: root, env, stdio: 'inherit' })
    const forward = (signal) => child.kill(signal)
    process.on('SIGINT', forward)
    process.on('SIGTERM', forward)
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      resolve(code ?? (signal ? 1 : 0))
    })
  })

const installCode = await run([...pnpm, 'install'])
if (installCode !== 0) process.exit(installCode)
process.exit(await run([...pnpm, 'run', script, ...args]))
