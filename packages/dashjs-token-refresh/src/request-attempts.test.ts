// The translation of dash.js's request seam to the core's attempts, sending by sending: each
// request and response object shaped as dash.js's HTTPLoader makes them (a CommonMediaRequest per
// sending, `customData.request` the same dash.js request object on every retry), on a real dash.js
// MediaPlayer (its interceptor registration and event bus) and a real refresher. What the CDN
// answered comes in as the status; real sendings through dash.js to nginx are the e2e suite's
// (dash-*.spec.ts), since dash.js sends nothing without MediaSource.
import type { CdnChange } from '@proj/token-refresh'
import { TokenRefresher } from '@proj/token-refresh'
import {
  type FakeTime,
  fakeTime,
  fakeTokenBackend,
  testRefreshOptions,
} from '@proj/token-refresh/testing'
import * as dashjs from 'dashjs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type RequestAttempts,
  type RequestInterceptor,
  requestAttempts,
} from './request-attempts.ts'
import type { DashRequest } from './sending.ts'

type Sending = Parameters<RequestInterceptor>[0]
type Player = ReturnType<ReturnType<typeof dashjs.MediaPlayer>['create']>

let time: FakeTime
let player: Player
let refresher: TokenRefresher
let attempts: RequestAttempts
let changes: CdnChange[]

const start = async (options: { cdns?: string[]; timeoutMs?: number } = {}) => {
  const backend = fakeTokenBackend({
    clock: time.clock,
    ...(options.cdns && { cdns: options.cdns }),
  })
  refresher = await TokenRefresher.create({
    ...testRefreshOptions(time, backend.getToken),
    ...(options.timeoutMs && { cdn: { timeoutMs: options.timeoutMs } }),
  })
  changes = []
  refresher.addEventListener('cdnchange', (event) => changes.push(event.detail))
  player = dashjs.MediaPlayer().create()
  attempts = requestAttempts(refresher, player, dashjs)
  return backend
}

beforeEach(() => {
  time = fakeTime()
})
afterEach(() => {
  attempts.detach()
  refresher.destroy()
})

/** A dash.js request object (one per request, shared by its retries). */
const dashRequest = (type = 'MediaSegment', duration = 2): DashRequest => ({ type, duration })
/** One sending of `request` as dash.js's HTTPLoader builds it, through our request interceptor. */
const send = (request: DashRequest, url: string, timeout = 20_000): Promise<Sending> =>
  attempts.request({ url, timeout, customData: { request } } as unknown as Sending)
/** dash.js's response to `sending`, through our response interceptor. */
const answer = (sending: Sending, status: number) =>
  attempts.response({ request: sending, status, url: sending.url })
const segment = (name = 'dash/chunk-0-001.m4s') => new URL(name, refresher.url).href
const tokenOf = (url: string) => new URL(url).pathname.split('/')[3]
const hostOf = (url: string) => new URL(url).host
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('one CDN', () => {
  it('sends each request with the current pair, whatever pair dash.js resolved it with', async () => {
    await start()
    const first = segment()
    await time.advance(14_000) // past the lead time: the second token is in
    const sending = await send(dashRequest(), first)
    expect(tokenOf(sending.url)).toBe('tok0002plain')
    expect(sending.timeout).toBe(20_000) // dash.js's own bound stays
  })

  it('a refused token (403): the retry dash.js sends leaves with the refreshed pair', async () => {
    const backend = await start()
    const request = dashRequest()
    const first = await send(request, segment())
    expect(tokenOf(first.url)).toBe('tok0001plain')
    await answer(first, 403)
    expect(backend.calls).toBe(2) // the one refresh for this token
    const retry = await send(request, segment())
    expect(tokenOf(retry.url)).toBe('tok0002plain')
    await answer(retry, 200)
  })

  it('a request refused with every fresh token stops being recovered: the refresher gives up', async () => {
    const backend = await start()
    const errors: unknown[] = []
    refresher.addEventListener('error', (event) => errors.push(event.detail))
    const request = dashRequest('MPD', Number.NaN)
    for (let sending = 0; sending < 4; sending++)
      await answer(await send(request, refresher.url), 403)
    expect(backend.calls).toBe(3) // the first token, then one refresh per refused token
    expect(errors.map((error) => (error as Error).name)).toEqual(['TokenRejectedError'])
    expect(attempts.lastRefused).toMatchObject({ status: 403, type: 'MPD' })
  })

  it('follows a sending that an interceptor of the page copied before this one', async () => {
    const backend = await start()
    const request = dashRequest()
    // dash.js builds one object per sending; the page's interceptor hands a copy on
    const built = { url: segment(), timeout: 20_000, customData: { request } }
    const sent = await attempts.request({ ...built } as unknown as Sending)
    await attempts.response({ request: built as unknown as Sending, status: 403, url: sent.url })
    expect(backend.calls).toBe(2) // the refusal reached the attempt: one refresh
  })

  it('leaves URLs that are not the video’s alone (a DRM licence server, another video)', async () => {
    await start()
    const licence = 'https://drm.example.com/widevine?video=demo'
    const other = segment().replace('12345_demo', '12345_other')
    expect((await send(dashRequest('license'), licence)).url).toBe(licence)
    expect((await send(dashRequest(), other)).url).toBe(other)
  })

  it('once held (the give-up), the video’s requests wait; other URLs still pass', async () => {
    await start()
    attempts.hold()
    const held = send(dashRequest(), segment())
    const outcome = await Promise.race([held.then(() => 'sent'), nextTask().then(() => 'held')])
    expect(outcome).toBe('held')
    const licence = 'https://drm.example.com/widevine'
    expect((await send(dashRequest('license'), licence)).url).toBe(licence)
  })
})

describe('two CDNs', () => {
  it('bounds each sending: the first-byte bound, plus a media segment’s duration', async () => {
    await start({ cdns: ['a', 'b'], timeoutMs: 1000 })
    const media = await send(dashRequest('MediaSegment', 2), segment())
    expect(hostOf(media.url)).toBe('a.cdn.test')
    expect(tokenOf(media.url)).toBe('tok0001aplain')
    expect(media.timeout).toBe(3000)
    expect((await send(dashRequest('MPD', Number.NaN), refresher.url)).timeout).toBe(1000)
  })

  it('a 5xx on a: the retry goes to b with b’s token, and so do later requests', async () => {
    await start({ cdns: ['a', 'b'] })
    const request = dashRequest()
    await answer(await send(request, segment()), 503)
    const retry = await send(request, segment())
    expect([hostOf(retry.url), tokenOf(retry.url)]).toEqual(['b.cdn.test', 'tok0001bplain'])
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'server-error' }])
    const later = await send(dashRequest(), segment('dash/chunk-0-002.m4s'))
    expect(hostOf(later.url)).toBe('b.cdn.test')
  })

  it('no status within the bound (dash.js’s XHR timeout): a timeout of a, the retry on b', async () => {
    await start({ cdns: ['a', 'b'], timeoutMs: 20 })
    const request = dashRequest('MPD', Number.NaN)
    const sending = await send(request, refresher.url)
    await new Promise((resolve) => setTimeout(resolve, 30))
    await answer(sending, 0)
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'timeout' }])
    expect(hostOf((await send(request, refresher.url)).url)).toBe('b.cdn.test')
  })

  it('no status before the bound: no answer from a, judged a task later', async () => {
    await start({ cdns: ['a', 'b'] })
    const request = dashRequest()
    await answer(await send(request, segment()), 0)
    expect(changes).toEqual([])
    await nextTask()
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'network' }])
  })

  it('a sending dash.js abandoned (a seek, an ABR switch) is no failure of the CDN', async () => {
    await start({ cdns: ['a', 'b'] })
    const request = dashRequest()
    await answer(await send(request, segment()), 0)
    // dash.js announces it right after its response interceptors, before any task runs
    // (its `trigger` takes the event's name: the type declarations say an object)
    const bus = player as unknown as { trigger(type: string, payload: object): void }
    bus.trigger(dashjs.MediaPlayer.events.FRAGMENT_LOADING_ABANDONED, { request })
    await nextTask()
    expect(changes).toEqual([])
    expect(hostOf((await send(request, segment())).url)).toBe('a.cdn.test')
  })

  it('a token a refuses while it is fresh is a’s failure: b takes it, with no refresh', async () => {
    const backend = await start({ cdns: ['a', 'b'] })
    const request = dashRequest()
    await answer(await send(request, segment()), 403)
    expect(hostOf((await send(request, segment())).url)).toBe('b.cdn.test')
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'refused' }])
    expect(backend.calls).toBe(1)
  })
})
