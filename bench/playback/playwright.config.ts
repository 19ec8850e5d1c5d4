import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'
import { chromiumUse } from '@proj/e2e/browser'
import { webServers } from '@proj/e2e/stack'
import { PAGE_PORT } from './page.ts'

const vite = `${JSON.stringify(process.execPath)} ${JSON.stringify(fileURLToPath(new URL('bin/vite.js', import.meta.resolve('vite/package.json'))))}`

// The playback benchmark: the e2e suite's stack and browser, plus the benchmark's own page.
export default defineConfig({
  testDir: '.',
  testMatch: /playback\.spec\.ts$/,
  timeout: 30 * 60_000,
  workers: 1,
  outputDir: '../../.tmp/bench/playwright',
  reporter: 'line',
  use: chromiumUse(),
  webServer: [
    ...webServers(),
    {
      command: `${vite} build && ${vite} preview`,
      cwd: import.meta.dirname,
      url: `http://127.0.0.1:${PAGE_PORT}/`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
})
