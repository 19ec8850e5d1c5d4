// Native HLS (Chromium's built-in player, as on Safari) protected by the service worker: a plain
// <video src=master.m3u8> with no request hooks survives every expiry, a worker the browser
// stops, and two tabs of two videos. Backend failures and a frozen tab: backend-hiccups and
// sleep-and-background run for the native player too.
import {
  demoUrl,
  expect,
  probe,
  type TrafficLog,
  test,
  tokenFetchBounds,
  waitForPlayback,
  waitForPlaybackToStop,
  watchPlayback,
} from '../support/demo.ts'

const LIFETIME = 20
const LEAD = 6
const native = 'native' as const

/** What reached the CDN carried no rejected token, and nothing rejected reached the element. */
const clean = (traffic: TrafficLog) => {
  expect(traffic.rejected()).toEqual([])
  expect(traffic.sent.filter((entry) => entry.status !== 200)).toEqual([])
}

for (const type of ['vod', 'live'] as const)
  test(`native + service worker, ${type}: playback outlives 3 expiries`, async ({
    page,
    traffic,
  }) => {
    await page.goto(demoUrl({ player: native, type, expire: LIFETIME, lead: LEAD }))
    await waitForPlayback(page, native)
    await expect.poll(async () => (await probe(page, native)).mode).toBe('service-worker')
    const run = await watchPlayback(page, native, 58_000)

    expect(run.advanced).toBeGreaterThan(52)
    expect(run.longestStallMs).toBeLessThanOrEqual(1000)
    clean(traffic)
    const state = await probe(page, native)
    expect(state.fatal).toEqual([])
    expect(state.refreshCount).toBeGreaterThanOrEqual(3)
    // the worker protected it from the first visit on: not one source swap
    expect(state.mode).toBe('service-worker')
    expect(state.swaps).toEqual([])
    // the worker moved the element's requests: what reached the CDN late carries fresh tokens
    const [, first] = traffic.tokens
    const late = traffic.sent.filter((entry) => entry.at > (first?.expires ?? 0) * 1000)
    expect(late.length).toBeGreaterThan(3)
    expect(late.every((entry) => entry.token !== first?.token)).toBe(true)
    const elapsed = (Date.now() - (first?.at ?? 0)) / 1000
    // the refreshes are spread (the first one anywhere in the first lifetime): bounds, not a count
    const { min, max } = tokenFetchBounds(elapsed, LIFETIME, LEAD)
    expect(traffic.tokens.length - 1).toBeGreaterThanOrEqual(min)
    expect(traffic.tokens.length - 1).toBeLessThanOrEqual(max)
  })

test('native + service worker: the browser stops the worker twice, playback goes on', async ({
  page,
  traffic,
}) => {
  await page.goto(demoUrl({ player: native, type: 'live', expire: LIFETIME, lead: LEAD }))
  await waitForPlayback(page, native)
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  const stops: number[] = []
  const stopTwice = async () => {
    for (const delay of [8000, 17_000]) {
      await page.waitForTimeout(delay)
      await cdp.send('ServiceWorker.stopAllWorkers')
      stops.push(Date.now())
    }
  }
  // watched and stopped side by side, awaited together: a watch that fails fails the test with
  // its own error at once, not unobserved behind the loop's wait and then as "page closed"
  const [run] = await Promise.all([watchPlayback(page, native, 45_000), stopTwice()])
  expect(run.advanced).toBeGreaterThan(38)
  expect(run.longestStallMs).toBeLessThanOrEqual(1000)
  clean(traffic)
  // requests after each restart still went out on a live token, the first one long expired
  const [, first] = traffic.tokens
  const afterStops = traffic.sent.filter((entry) => entry.at > (stops[1] ?? 0))
  expect(afterStops.length).toBeGreaterThan(3)
  expect(afterStops.every((entry) => entry.token !== first?.token)).toBe(true)
})

test('native + service worker: two tabs play two videos, each on its own tokens', async ({
  page,
  context,
}) => {
  const second = await context.newPage()
  const seen: Record<string, Set<string>> = { demo: new Set(), other: new Set() }
  const rejected: string[] = []
  context.on('response', (response) => {
    const match = /\/(?:videos|cmaf)\/12345_(demo|other)\/([^/]+)\//.exec(response.url())
    if (!match || !response.request().serviceWorker()) return
    seen[match[1] as string]?.add(match[2] as string)
    if (response.status() !== 200) rejected.push(`${response.status()} ${response.url()}`)
  })
  await page.goto(demoUrl({ player: native, type: 'live', expire: LIFETIME, lead: LEAD }))
  await second.goto(
    demoUrl({ player: native, type: 'live', video: 'other', expire: LIFETIME, lead: LEAD }),
  )
  await Promise.all([waitForPlayback(page, native), waitForPlayback(second, native)])
  const [a, b] = await Promise.all([
    watchPlayback(page, native, 40_000),
    watchPlayback(second, native, 40_000),
  ])
  expect(a.advanced).toBeGreaterThan(33)
  expect(b.advanced).toBeGreaterThan(33)
  expect(Math.max(a.longestStallMs, b.longestStallMs)).toBeLessThanOrEqual(1000)
  expect(rejected).toEqual([])
  // each video went through several tokens (refreshes), none of them shared
  expect(seen.demo?.size).toBeGreaterThanOrEqual(3)
  expect(seen.other?.size).toBeGreaterThanOrEqual(3)
  expect([...(seen.demo ?? [])].filter((token) => seen.other?.has(token))).toEqual([])
})

test('control: native playback without protection dies at the first expiry', async ({
  page,
  traffic,
}) => {
  await page.goto(demoUrl({ player: native, type: 'live', expire: LIFETIME, refresh: false }))
  await waitForPlayback(page, native)
  const [token] = traffic.tokens.slice(-1)
  // the element's no-cors request gets 410 from the CDN; the page sees a failed load
  await expect.poll(() => traffic.rejected().length, { timeout: 40_000 }).toBeGreaterThan(0)
  expect(traffic.rejected()[0]?.at ?? 0).toBeGreaterThanOrEqual((token?.expires ?? 0) * 1000)
  await waitForPlaybackToStop(page, native)
})
