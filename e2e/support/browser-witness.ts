// The base test of every spec: it records why a page, a context or the browser went away, so a
// failure that reads "Target page, context or browser has been closed" names its cause. A failed
// test gets two attachments: `browser-events.txt` (crashes, closes, disconnects and service
// workers, with times) and `chromium.log` (Chromium's own log for the test's time, ending with how
// the browser process ended when it did). Nothing here starts a browser: a spec that only sends
// requests stays browser-free.
import { statSync } from 'node:fs'
import { mkdir, open } from 'node:fs/promises'
import { freemem, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { type Browser, type BrowserContext, test as base, type Page } from '@playwright/test'

/** Chromium's launcher that logs how the browser process ended (see the script's header). */
const LAUNCHER = join(import.meta.dirname, 'browser-witness.sh')
/** The most of Chromium's log a failure gets (its end): a test's window is far below it. */
const LOG_LIMIT = 2 * 1024 * 1024

/** One thing that happened to the browser, a context, a page or a worker, with its time. */
interface BrowserEvent {
  at: number
  what: string
}

/** The browser's events and log of one Playwright worker process. */
interface Witness {
  events: BrowserEvent[]
  /** Chromium's stderr (`--enable-logging=stderr`), one file per worker process. */
  logFile: string
}

function note(witness: Witness, what: string): void {
  witness.events.push({ at: Date.now(), what })
}

function watchPage(witness: Witness, page: Page, name: string): void {
  note(witness, `${name} opened`)
  page.on('crash', () => note(witness, `${name} CRASHED (its renderer process died)`))
  page.on('close', () => note(witness, `${name} closed`))
  page.on('worker', (worker) => {
    note(witness, `${name}: dedicated worker started ${worker.url()}`)
    worker.on('close', () => note(witness, `${name}: dedicated worker ended ${worker.url()}`))
  })
}

function watchContext(witness: Witness, context: BrowserContext, name: string): void {
  let pages = 0
  note(witness, `${name} created`)
  context.on('close', () => note(witness, `${name} closed`))
  context.on('page', (page) => watchPage(witness, page, `${name} page ${++pages}`))
  context.on('serviceworker', (worker) => {
    note(witness, `${name}: service worker started ${worker.url()}`)
    worker.on('close', () => note(witness, `${name}: service worker stopped ${worker.url()}`))
  })
}

function watchBrowser(witness: Witness, browser: Browser): void {
  let contexts = 0
  note(witness, `browser ${browser.version()} connected`)
  browser.on('disconnected', () =>
    note(witness, 'browser DISCONNECTED (closed, crashed or killed: see chromium.log)'),
  )
  browser.on('context', (context) => watchContext(witness, context, `context ${++contexts}`))
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

/** Chromium's log from byte `from` on (at most its last {@link LOG_LIMIT} bytes). */
async function logSince(file: string, from: number): Promise<string> {
  const handle = await open(file, 'r').catch(() => undefined)
  if (!handle) return `(no Chromium log at ${file}: the browser was not launched in this worker)`
  try {
    const end = (await handle.stat()).size
    const start = Math.max(from, end - LOG_LIMIT)
    const buffer = Buffer.alloc(end - start)
    await handle.read(buffer, 0, buffer.length, start)
    const cut = start > from ? `(first ${start - from} bytes of the test's window left out)\n` : ''
    return `${cut}${buffer.toString('utf8')}`
  } finally {
    await handle.close()
  }
}

function timeline(events: BrowserEvent[], started: number): string {
  return events
    .map(({ at, what }) => {
      const offset = at - started
      return `${new Date(at).toISOString()} (${offset < 0 ? '' : '+'}${offset} ms) ${what}`
    })
    .join('\n')
}

/**
 * Playwright's `test` with the browser witness: every spec imports `test` from here (or from
 * `demo.ts`, which extends it). Chromium runs under `browser-witness.sh` with its log in
 * `<outputDir>/chromium-logs/worker-<n>.log`; a failed test gets `browser-events.txt` and its
 * window of `chromium.log`.
 *
 * @example
 * ```ts
 * import { expect, test } from '../support/browser-witness.ts'
 * test('plays', async ({ page }) => { … })
 * ```
 */
export const test = base.extend<{ _witnessTest: undefined }, { _witness: Witness }>({
  _witness: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use, workerInfo) => {
      const dir = join(workerInfo.project.outputDir, 'chromium-logs')
      await mkdir(dir, { recursive: true })
      await use({ events: [], logFile: join(dir, `worker-${workerInfo.workerIndex}.log`) })
    },
    { scope: 'worker' },
  ],
  launchOptions: [
    async ({ launchOptions, _witness }, use) => {
      const env: Record<string, string> = {}
      for (const [key, value] of Object.entries({ ...process.env, ...launchOptions.env }))
        if (value !== undefined) env[key] = String(value)
      await use({
        ...launchOptions,
        executablePath: LAUNCHER,
        // Chromium's own log, warnings and errors only (--v=0): what it says about a crash,
        // a killed renderer or a failed CHECK lands in the per-worker file
        args: [...(launchOptions.args ?? []), '--enable-logging=stderr', '--v=0'],
        env: {
          ...env,
          E2E_CHROMIUM: launchOptions.executablePath ?? '/usr/bin/chromium',
          E2E_CHROMIUM_LOG: _witness.logFile,
        },
      })
    },
    { scope: 'worker' },
  ],
  browser: [
    async ({ browser, _witness }, use) => {
      watchBrowser(_witness, browser)
      await use(browser)
    },
    { scope: 'worker', timeout: 0 },
  ],
  _witnessTest: [
    async ({ _witness }, use, testInfo) => {
      const started = Date.now()
      const logFrom = sizeOf(_witness.logFile)
      const eventsFrom = _witness.events.length
      await use(undefined)
      if (testInfo.status === testInfo.expectedStatus) return
      // the events before this test matter for a browser that died between tests
      const before = _witness.events.slice(0, eventsFrom).slice(-5)
      const during = _witness.events.slice(eventsFrom)
      const diedBefore = before.at(-1)?.what.startsWith('browser DISCONNECTED') ?? false
      // nothing of a browser during the test: a spec of plain requests, nothing to tell
      if (during.length === 0 && !diedBefore) return
      const [one, five, fifteen] = loadavg().map((load) => load.toFixed(2))
      const body = [
        `test started ${new Date(started).toISOString()}, ended ${new Date().toISOString()} (teardown included: the closes at the end are the runner's)`,
        `machine: load ${one} ${five} ${fifteen}, free memory ${Math.round(freemem() / 2 ** 20)} of ${Math.round(totalmem() / 2 ** 20)} MiB`,
        '',
        '-- before this test (last 5) --',
        timeline(before, started),
        '-- during this test --',
        timeline(during, started),
      ].join('\n')
      await testInfo.attach('browser-events.txt', { body, contentType: 'text/plain' })
      await testInfo.attach('chromium.log', {
        body: await logSince(_witness.logFile, logFrom),
        contentType: 'text/plain',
      })
    },
    { auto: true },
  ],
})

export { expect } from '@playwright/test'
