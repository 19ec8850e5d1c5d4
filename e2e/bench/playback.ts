// Runs the playback benchmark (bench/playback.spec.ts) in Playwright's "bench" project, which
// starts the same local stack as the e2e suite (nginx, token worker, demo build).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const cli = join(import.meta.dirname, '..', 'node_modules', '@playwright', 'test', 'cli.js')
const run = spawnSync(process.execPath, [cli, 'test', '--project', 'bench', '--reporter=line'], {
  cwd: join(import.meta.dirname, '..'),
  stdio: 'inherit',
})
process.exit(run.status ?? 1)
