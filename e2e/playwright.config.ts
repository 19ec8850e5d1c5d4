import { existsSync } from 'node:fs'
import { defineConfig } from '@playwright/test'
import { webServers } from './support/stack.ts'

// Debian's Chromium (apt-get install -y chromium): never a downloaded browser.
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (!existsSync(executablePath))
  throw new Error(
    `e2e: no Chromium at ${executablePath}. Install it with "apt-get install -y chromium nginx-light" (what .ci/run does) or set CHROMIUM_PATH.`,
  )

export default defineConfig({
  testDir: 'tests',
  // scenario 1 plays 72 s of media in real time
  timeout: 180_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  outputDir: '../.tmp/e2e-results',
  reporter: [
    ['list'],
    ['json', { outputFile: '../.tmp/test-results/e2e.json' }],
    ['html', { open: 'never', outputFolder: '../.tmp/playwright-report' }],
  ],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--autoplay-policy=no-user-gesture-required',
      ],
    },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
  // Swap gaps are timing measurements: they run last, by themselves (both swap tests side by
  // side), so the other browser's work does not land in the figures.
  // The "bench" project is the playback benchmark (e2e/bench/, `pnpm bench playback`), not a
  // test: the e2e script runs the other two.
  projects: [
    { name: 'scenarios', testIgnore: /native-swap\.spec\.ts/ },
    { name: 'timing', testMatch: /native-swap\.spec\.ts/, dependencies: ['scenarios'] },
    { name: 'bench', testDir: 'bench', testMatch: /\.spec\.ts$/ },
  ],
  webServer: webServers(),
})
