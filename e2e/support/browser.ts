// The browser every Playwright run here uses (the e2e suite and the playback benchmark).
import { existsSync } from 'node:fs'
import type { PlaywrightTestConfig } from '@playwright/test'

/**
 * Playwright's `use` for Debian's Chromium (`apt-get install -y chromium`), never a downloaded
 * browser: `CHROMIUM_PATH` overrides the path. Throws with the install line when it is missing.
 *
 * @example
 * ```ts
 * export default defineConfig({ use: { ...chromiumUse(), trace: { mode: 'retain-on-failure', screenshots: false } } })
 * ```
 */
export function chromiumUse(): NonNullable<PlaywrightTestConfig['use']> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (!existsSync(executablePath))
    throw new Error(
      `e2e: no Chromium at ${executablePath}. Install it with "apt-get install -y chromium nginx-light" (npm test does it when it can) or set CHROMIUM_PATH.`,
    )
  return {
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
  }
}
