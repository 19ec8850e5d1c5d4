// Native playback (Chromium's built-in HLS, no hooks) through what users do to it: a token
// backend outage longer than a token's life, with the service worker (on the demo page and on a
// page written from the README) and with source swaps, and a long pause with the swap. The hook
// players pass the same outage in long-outage.spec.ts.
import type { Page, Route } from '@playwright/test'
import { answerOutage } from '../support/backend-faults.ts'
import { demoUrl, expect, probe, type TrafficLog, test, waitForPlayback } from '../support/demo.ts'
import { tokenUrl } from '../support/stack.ts'
import { serveUserPage } from '../support/user-page.ts'

const native = 'native' as const
const OUTAGE_MS = 45_000

/**
 * The token backend answers 503 for `OUTAGE_MS`, from 2 s after the first refresh: token call
 * `firstRefresh` (the demo's 3rd: call 1 finds the CDN, call 2 is the player's first token).
 * Resolves with the outage's window.
 */
const injectOutage = async (page: Page, firstRefresh = 3) => {
  const window = { from: 0, until: Number.POSITIVE_INFINITY }
  let calls = 0
  await page.route(/:\d+\/token\?/, async (route: Route) => {
    calls++
    if (calls === firstRefresh) {
      window.from = Date.now() + 2000
      window.until = window.from + OUTAGE_MS
    }
    const now = Date.now()
    if (now >= window.from && now < window.until && calls > firstRefresh) return answerOutage(route)
    return route.continue()
  })
  return window
}

/** Resolves with how long after `since` playback moved again (two samples 500 ms apart). */
const resumedAfter = async (page: Page, since: number) => {
  const moving = async () => {
    const from = (await probe(page, native)).time
    await page.waitForTimeout(500)
    return (await probe(page, native)).time > from + 0.2
  }
  await expect.poll(moving, { timeout: 20_000, intervals: [0] }).toBe(true)
  return Date.now() - since - 500
}

/**
 * Through the outage and after it: playing again within 8 s of the backend's return, no page
 * reload; with the worker no expired pair reached the CDN, no fatal error, and a live element
 * was reloaded at the live edge at most once (before the worker sent what it held), a VOD never.
 */
const outlivesOutage = async (
  page: Page,
  traffic: TrafficLog,
  outage: { until: number },
  expected: { mode: 'service-worker' | 'swap'; type: 'live' | 'vod'; name: string },
) => {
  await page.evaluate(() => {
    ;(window as unknown as { notReloaded: boolean }).notReloaded = true
  })
  await waitForPlayback(page, native)
  await expect.poll(() => outage.until, { timeout: 30_000 }).toBeLessThan(Date.now() + 60_000)
  await page.waitForTimeout(Math.max(0, outage.until - Date.now()))

  const resumedAfterMs = await resumedAfter(page, outage.until)
  console.log(`${expected.name}: playing again ${resumedAfterMs} ms after the backend`)
  expect(resumedAfterMs).toBeLessThanOrEqual(8000)
  const state = await probe(page, native)
  expect(state.mode).toBe(expected.mode)
  expect(
    await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
  ).toBe(true)
  // without a worker the element meets the 410 and fails; the swap revives it (above)
  if (expected.mode === 'swap') return
  // the worker held requests while the token was dead: no expired pair reached the CDN
  expect(traffic.sent.filter((entry) => entry.status !== 200)).toEqual([])
  // Chromium's player fails on a held live playlist whose window moved on (a gap it cannot
  // seek across): the protection reloads it at the live edge before the worker sends it
  expect(state.fatal).toEqual([])
  const reloads = state.swaps.map((swap) => swap.reason)
  if (expected.type === 'vod') expect(reloads).toEqual([])
  else expect(['', 'rejected']).toContain(reloads.join())
}

for (const [mode, type] of [
  ['service-worker', 'live'],
  ['service-worker', 'vod'],
  ['swap', 'live'],
] as const)
  test(`native + ${mode}, ${type}: a 45-s backend outage, longer than the token's life`, async ({
    page,
    traffic,
  }) => {
    const outage = await injectOutage(page)
    await page.goto(demoUrl({ player: native, type, mode, expire: 20, lead: 6 }))
    await outlivesOutage(page, traffic, outage, { mode, type, name: `native + ${mode}, ${type}` })
  })

test('a page written from the README (protectNativePlayback(video, refresher, { worker })), live: a 45-s backend outage', async ({
  page,
  traffic,
}) => {
  const outage = await injectOutage(page, 2) // its first token is call 1
  const site = await serveUserPage('native-readme')
  try {
    const token = `${tokenUrl()}?video=demo&type=live&expire=20`
    await page.goto(`${site.url}?${new URLSearchParams({ token, lead: '6' })}`)
    // the default mode, auto: the worker is seen moving the element's media, and stays in force
    await outlivesOutage(page, traffic, outage, {
      mode: 'service-worker',
      type: 'live',
      name: 'README page, live',
    })
  } finally {
    await site.close()
  }
})

test('native + swap, vod: paused 30 s (two and a half token lifetimes), then played: no swap while paused, a short one at play', async ({
  page,
  traffic,
}) => {
  await page.goto(demoUrl({ player: native, type: 'vod', mode: 'swap', expire: 12, lead: 3 }))
  await waitForPlayback(page, native)
  await page.waitForTimeout(2000)
  await page.evaluate(() => {
    const video = document.querySelector('#native video') as HTMLVideoElement
    video.pause()
  })
  const pausedAt = (await probe(page, native)).time
  await page.waitForTimeout(30_000)
  const during = await probe(page, native)
  expect(during.swaps).toEqual([])
  const playedAt = Date.now()
  await page.evaluate(() => (document.querySelector('#native video') as HTMLVideoElement).play())
  await expect
    .poll(async () => (await probe(page, native)).time, { timeout: 10_000, intervals: [100] })
    .toBeGreaterThan(pausedAt + 0.3)
  const stallMs = Date.now() - playedAt
  console.log(`native + swap after a 30-s pause: playing again after ${stallMs} ms`)
  // one swap's gap (a reload of master, playlist and segment); the worker needs none
  expect(stallMs).toBeLessThan(3000)
  const state = await probe(page, native)
  expect(state.fatal).toEqual([])
  expect(state.swaps).toHaveLength(1)
  expect(state.swaps[0]?.driftSeconds).toBeLessThan(0.5)
  expect(traffic.rejected()).toEqual([])
})
