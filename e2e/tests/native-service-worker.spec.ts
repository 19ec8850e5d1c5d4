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
  // when a worker version runs again: each start after a stop is a new worker, memory wiped
  const workerStarts: number[] = []
  const status = new Map<string, string>()
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const { versionId, runningStatus } of versions) {
      if (runningStatus === 'running' && status.get(versionId) !== 'running')
        workerStarts.push(Date.now())
      status.set(versionId, runningStatus)
    }
  })
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

// The auto mode decides from evidence: when a swap falls due, the page asks the worker whether
// it has moved this element's media (`token-refresh:seen`). A paused element asks only when it is
// played again, and by then the browser has stopped the idle worker (it does so after ~30 s idle,
// and starts a new one for the next message). The new worker must still know it moved the
// element's media, else the page reloads the element (a source swap) at play.
const PAUSE_LIFETIME = 12
const PAUSE_LEAD = 3
/** About two and a half token lifetimes: two or three refreshes land while the video is paused. */
const PAUSE_MS = 30_000
/** SourceSwap's default `marginMs`: a swap due after a refresh falls at the latest then. */
const SWAP_MARGIN_MS = 2000
/** A media path's `{token}/{expires}` pair. */
const PAIR_OF = /^\/(?:videos|cmaf)\/[^/]+\/([^/]+)\/(\d+)\//

test('native + service worker (auto), vod: paused through 2½ token lifetimes while the browser stops the worker again and again, then played: no swap', async ({
  page,
  traffic,
}) => {
  // A spy on the page's questions to the worker (`token-refresh:seen`: when, and what the worker
  // answered), and a way for the test to ask the worker itself without being counted.
  await page.addInitScript(() => {
    type Answer = { element?: number } | undefined
    const spy = window as unknown as {
      seenAsked: { at: number; answer?: Answer }[]
      askSeen: (url: string) => Promise<Answer>
    }
    spy.seenAsked = []
    // the page keeps the reply port (port1) of the port (port2) it sends
    const replyPorts = new WeakMap<MessagePort, MessagePort>()
    const Channel = MessageChannel
    window.MessageChannel = class extends Channel {
      constructor() {
        super()
        replyPorts.set(this.port2, this.port1)
      }
    }
    const post = ServiceWorker.prototype.postMessage
    ServiceWorker.prototype.postMessage = function (
      this: ServiceWorker,
      ...args: Parameters<ServiceWorker['postMessage']>
    ) {
      if ((args[0] as { kind?: string } | undefined)?.kind === 'token-refresh:seen') {
        const question: (typeof spy.seenAsked)[number] = { at: Date.now() }
        spy.seenAsked.push(question)
        const [, transfer] = args
        const sent = Array.isArray(transfer) ? transfer[0] : transfer?.transfer?.[0]
        replyPorts.get(sent as MessagePort)?.addEventListener('message', (event) => {
          question.answer = (event as MessageEvent<Answer>).data
        })
      }
      return post.apply(this, args)
    } as ServiceWorker['postMessage']
    spy.askSeen = (url: string) =>
      new Promise((resolve) => {
        const worker = navigator.serviceWorker.controller
        if (!worker) return resolve(undefined)
        const channel = new Channel()
        channel.port1.onmessage = (event) => resolve(event.data)
        setTimeout(() => resolve(undefined), 5000)
        post.call(worker, { kind: 'token-refresh:seen', url }, { transfer: [channel.port2] })
      })
  })
  /** The page's questions to the worker so far: when, and how many element requests it had moved. */
  const seenAsked = () =>
    page.evaluate(() =>
      (
        window as unknown as { seenAsked: { at: number; answer?: { element?: number } }[] }
      ).seenAsked.map(({ at, answer }) => ({ at, element: answer?.element })),
    )
  const element = () =>
    page.evaluate(() => {
      const { video, refresher } = (
        window as unknown as {
          demo: { native: { video: HTMLVideoElement; refresher: { url: string } } }
        }
      ).demo.native
      return { src: video.src, refresherUrl: refresher.url }
    })

  await page.goto(
    demoUrl({ player: native, type: 'vod', expire: PAUSE_LIFETIME, lead: PAUSE_LEAD }),
  )
  await waitForPlayback(page, native)
  const before = await element()
  const pair = PAIR_OF.exec(new URL(before.src).pathname)
  const firstToken = pair?.[1] ?? ''
  // the first swap could fall due (and the page ask the worker) from here on: pause before it
  const firstSwapDue = Number(pair?.[2]) * 1000 - SWAP_MARGIN_MS
  expect(firstToken, `the element's source carries no token pair: ${before.src}`).not.toBe('')

  // The evidence the fix keeps: the worker moved media the element itself asked for. Without it
  // the page would be right to swap, and the test would prove nothing.
  const movedForElement = async () =>
    (
      await page.evaluate(
        (url) =>
          (
            window as unknown as { askSeen: (url: string) => Promise<{ element?: number }> }
          ).askSeen(url),
        before.refresherUrl,
      )
    )?.element ?? 0
  await expect
    .poll(movedForElement, {
      message: "the worker moved none of the element's media before its first swap fell due",
      timeout: Math.max(1, firstSwapDue - 1500 - Date.now()),
      intervals: [250],
    })
    .toBeGreaterThan(0)
  // a little more playback, still well before the first swap falls due
  await page.waitForTimeout(Math.min(2000, Math.max(0, firstSwapDue - 1500 - Date.now())))

  await page.evaluate(() => (document.querySelector('#native video') as HTMLVideoElement).pause())
  const pausedAt = Date.now()
  const paused = await probe(page, native)
  expect(
    pausedAt,
    'paused after the first swap fell due: the page may have asked the worker while it was still running',
  ).toBeLessThan(firstSwapDue)
  // an early refresh (the element still loading) may ask before the worker saw anything: fine;
  // a "yes" before the pause would leave nothing for the restarted worker to answer
  expect(
    (await seenAsked()).filter((question) => (question.element ?? 0) > 0),
    'the page learned from the worker before the pause that it moves the element: no question left for the pause',
  ).toEqual([])
  expect(paused.swaps, 'swapped before the pause').toEqual([])

  // The pause: the refresher goes on (each refresh posts its record, which starts a worker), and
  // the browser stops the idle worker; here, a second after each record and every 4 s besides.
  const cdp = await page.context().newCDPSession(page)
  // when a worker version runs again: each start after a stop is a new worker, memory wiped
  const workerStarts: number[] = []
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    if (versions.some((version) => version.runningStatus === 'running'))
      workerStarts.push(Date.now())
  })
  await cdp.send('ServiceWorker.enable')
  const stops: number[] = []
  const stop = async () => {
    await cdp.send('ServiceWorker.stopAllWorkers')
    stops.push(Date.now())
  }
  let refreshes = paused.refreshCount
  let refreshedAt = 0
  while (Date.now() < pausedAt + PAUSE_MS) {
    await page.waitForTimeout(250)
    const { refreshCount } = await probe(page, native)
    if (refreshCount !== refreshes) [refreshes, refreshedAt] = [refreshCount, Date.now()]
    const lastStop = stops.at(-1) ?? pausedAt
    if (
      (refreshedAt > lastStop && Date.now() - refreshedAt >= 1000) ||
      Date.now() - lastStop >= 4000
    )
      await stop()
  }
  // the worker that answers at play is a new one: stopped after the last record it was sent
  await stop()
  await page.waitForTimeout(500)
  const during = await probe(page, native)
  expect(
    during.refreshCount - paused.refreshCount,
    'fewer than two refreshes during the pause',
  ).toBeGreaterThanOrEqual(2)
  expect(during.swaps, 'swapped while paused').toEqual([])
  const restarts = workerStarts.filter((at) => at > (stops[0] ?? Number.POSITIVE_INFINITY))
  console.log(
    `paused ${Date.now() - pausedAt} ms (${firstSwapDue - pausedAt} ms before the first swap was due), ${during.refreshCount - paused.refreshCount} refreshes, ${stops.length} worker stops, ${restarts.length} worker starts after the first stop`,
  )
  expect(
    restarts.length,
    'the worker was not started again after a stop during the pause',
  ).toBeGreaterThanOrEqual(2)

  // Played again: the due swap asks the (new) worker first. It must answer that it moved the
  // element's media, and the element resumes from its buffer, on its own source.
  const playedAt = Date.now()
  await page.evaluate(() => (document.querySelector('#native video') as HTMLVideoElement).play())
  // until it plays again from its buffer, or is swapped (the bug: then it reloads, or fails: a
  // swap is only listed in `swaps` once the element plays or has metadata; its source at once)
  await expect
    .poll(
      async () => {
        const { time, swaps } = await probe(page, native)
        return time > paused.time + 0.1 || swaps.length > 0 || (await element()).src !== before.src
      },
      { message: 'the video did not play again', timeout: 10_000, intervals: [100] },
    )
    .toBe(true)
  const resumedMs = Date.now() - playedAt
  // long enough for a swap at play to happen (a question of at most 1 s, then the reload)
  const run = await watchPlayback(page, native, 10_000)
  const after = await probe(page, native)
  const asked = (await seenAsked()).filter((question) => question.at >= playedAt)
  console.log(
    `played again after ${resumedMs} ms; the page asked the worker at play: ${JSON.stringify(asked)}; swaps ${JSON.stringify(after.swaps)}`,
  )
  expect(
    asked.length,
    'the page did not ask the worker at play: the due swap was not reached',
  ).toBeGreaterThan(0)
  expect(
    { src: (await element()).src, swaps: after.swaps },
    `the element was swapped at play: the restarted worker answered ${JSON.stringify(asked.map((question) => question.element ?? 'nothing'))} element requests moved`,
  ).toEqual({ src: before.src, swaps: [] })
  expect(after.mode, 'the protection left the service worker').toBe('service-worker')
  expect(resumedMs, 'the video took over a second to play again').toBeLessThanOrEqual(1000)
  expect(run.advanced, 'the video did not keep playing after the pause').toBeGreaterThan(7)
  expect(after.fatal, 'the element failed').toEqual([])
  expect(traffic.rejected(), 'a rejected CDN answer reached the element').toEqual([])
  expect(
    traffic.sent.filter((entry) => entry.status !== 200),
    'a request reached the CDN and was refused',
  ).toEqual([])
  // the element asks with its first pair, long expired: the worker moved each onto a live one
  const later = traffic.sent.filter((entry) => entry.at > playedAt)
  expect(later.length, 'no request reached the CDN after play').toBeGreaterThan(0)
  const stale = later.filter(
    (entry) =>
      entry.token === firstToken ||
      Number(PAIR_OF.exec(new URL(entry.url).pathname)?.[2]) * 1000 <= entry.at,
  )
  expect(stale, 'a request after play reached the CDN on an expired pair').toEqual([])
})
