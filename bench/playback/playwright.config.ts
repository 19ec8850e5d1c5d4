import { defineConfig } from '@playwright/test'
import { chromiumUse } from '@proj/e2e/browser'
import { e2eStack, webServers } from '@proj/e2e/stack'
import { type Service, viteBuildAndPreview } from '@proj/stack'
import { PAGE_PORT } from './page.ts'

/** The benchmark's one-player page: a production build (like the demo's), served by vite preview. */
const benchPage: Service = {
  name: 'bench-page',
  cwd: 'bench',
  command: viteBuildAndPreview('bench', ['--config', 'playback/vite.config.ts']),
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
  // the players' page of its own; no scale-out fleet (redis and its Node instances): unused here
  webServer: webServers([
    ...e2eStack().filter((service) => !/^(demo|redis|token-node-)/.test(service.name)),
    benchPage,
  ]),
})
