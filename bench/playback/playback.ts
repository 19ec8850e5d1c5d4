// Runs the playback benchmark (playback.spec.ts) with Playwright on the e2e suite's stack
// (nginx, token worker) and the benchmark's own page (playwright.config.ts).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(import.meta.resolve('@playwright/test/cli'))
const run = spawnSync(process.execPath, [cli, 'test', '--config', 'playwright.config.ts'], {
  cwd: import.meta.dirname,
  stdio: 'inherit',
})
process.exit(run.status ?? 1)
