import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'
import { chromiumUse } from '@proj/e2e/browser'
import { e2eStack, webServers } from '@proj/e2e/stack'
import { type Service, shellLine } from '@proj/stack'
import { PAGE_PORT } from './page.ts'

const vite = [
  process.execPath,
  fileURLToPath(new URL('bin/vite.js', import.meta.resolve('vite/package.json'))),
]

/** The benchmark's one-player page: a production build (like the demo's), served by vite preview. */
const benchPage: Service = {
  name: 'bench-page',
  cwd: 'bench/playback',
  command: [
    'sh',
    '-c',
    `${shellLine([...vite, 'build'])} && exec ${shellLine([...vite, 'preview'])}`,
  ],
  env: {},
  readyUrl: `http://127.0.0.1:${PAGE_PORT}/`,
}

// The playback benchmark: the e2e suite's stack (without its demo page) and browser, plus the
// benchmark's own page.
export default defineConfig({
  testDir: '.',
  testMatch: /playback\.spec\.ts$/,
  timeout: 30 * 60_000,
  workers: 1,
  outputDir: '../../.tmp/bench/playwright',
  reporter: 'line',
  use: chromiumUse(),
  webServer: webServers([...e2eStack().filter((service) => service.name !== 'demo'), benchPage]),
})
