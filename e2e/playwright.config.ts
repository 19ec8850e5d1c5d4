import { defineConfig } from '@playwright/test'
import { chromiumUse } from './support/browser.ts'
import { webServers } from './support/stack.ts'

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
    ...chromiumUse(),
    screenshot: 'only-on-failure',
    // No filmstrip in the trace: its screencast encodes every frame the page paints, which cost
    // about one core per playing page here (Chromium's GPU and browser processes: ~100 % of 2
    // cores with one video.js page, ~40 % without) and starved the real-time watches into
    // stalls. The trace keeps its DOM snapshots; a failure still gets its screenshot.
    trace: { mode: 'retain-on-failure', screenshots: false },
  },
  // Swap gaps are timing measurements: they run last, by themselves (both swap tests side by
  // side), so the other browser's work does not land in the figures.
  projects: [
    { name: 'scenarios', testIgnore: /native-swap\.spec\.ts/ },
    { name: 'timing', testMatch: /native-swap\.spec\.ts/, dependencies: ['scenarios'] },
  ],
  webServer: webServers(),
})
