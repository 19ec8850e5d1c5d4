import { type CdnChange, TokenRefresher } from '@proj/token-refresh'
import {
  fakeTime,
  type TwoCdns,
  testRefreshOptions,
  twoTinyCdns,
} from '@proj/token-refresh/testing'
import videojs from 'video.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { installVhsHooks, type VhsRequest, type VhsXhr } from './vhs-hooks.ts'

// VHS's real xhr (hooks, callback wrapper, videojs.xhr over XMLHttpRequest) against two tiny
// CDNs with different secrets: `a` preferred, `b` the fallback.
const vhsXhr = (videojs as unknown as { Vhs: { xhr: VhsXhr } }).Vhs.xhr
// long enough that a busy machine answers healthy requests in time
const TIMEOUT_MS = 1000

let time: ReturnType<typeof fakeTime>
let cdns: TwoCdns
let refresher: TokenRefresher
let hooks: ReturnType<typeof installVhsHooks>
let changes: CdnChange[]

beforeEach(async () => {
  time = fakeTime()
  cdns = await twoTinyCdns(time)
  refresher = await TokenRefresher.create({
    ...testRefreshOptions(time, cdns.getToken),
    cdn: { timeoutMs: TIMEOUT_MS },
  })
  changes = []
  refresher.addEventListener('cdnchange', (event) => changes.push(event.detail))
  hooks = installVhsHooks(vhsXhr, () => refresher)
})
afterEach(async () => {
  hooks.remove()
  refresher.destroy()
  await cdns.close()
})

const request = (uri: string) =>
  new Promise<{ error: unknown; request: VhsRequest; returned: VhsRequest; ms: number }>(
    (resolve) => {
      const start = performance.now()
      const returned = hooks.xhr({ uri, responseType: 'text' }, (error, req) =>
        resolve({ error, request: req, returned, ms: performance.now() - start }),
      )
    },
  )
const segment = () => new URL('v0/seg_000.ts', refresher.url).href

describe('VHS requests with two CDNs', () => {
  it('go to the preferred CDN with its own token', async () => {
    expect(refresher.activeCdn).toBe('a')
    expect((await request(segment())).request.status).toBe(200)
    expect(cdns.hits()).toEqual(['a tok0001aplain 200'])
  })

  it('a fresh token refused (403) on a: re-sent at once on b with b’s token, no refresh', async () => {
    cdns.a.rejectAll()
    const { error, request: req, returned } = await request(segment())
    expect(error).toBeNull()
    expect(req.status).toBe(200)
    expect(returned.status).toBe(200) // VHS reads the object it got back
    expect(cdns.hits()).toEqual(['a tok0001aplain 403', 'b tok0001bplain 200'])
    expect(cdns.backend.calls).toBe(1)
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'refused' }])
    // sticky: the next request goes straight to b
    await request(new URL('v1/seg_001.ts', refresher.url).href)
    expect(cdns.hits().slice(-1)).toEqual(['b tok0001bplain 200'])
  })

  it('a 503 on a: re-sent on b', async () => {
    cdns.a.failOnce('seg_000.ts', 503)
    const { request: req } = await request(segment())
    expect(req.status).toBe(200)
    expect(cdns.hits()).toEqual(['a tok0001aplain 503', 'b tok0001bplain 200'])
    expect(changes.map(({ reason }) => reason)).toEqual(['server-error'])
  })

  it('a hanging CDN: the attempt is abandoned after cdnTimeoutMs and re-sent on b', async () => {
    cdns.hang(cdns.a)
    const { request: req, returned, ms } = await request(segment())
    expect(req.status).toBe(200)
    expect(returned.aborted).toBeFalsy()
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    expect(ms).toBeLessThan(TIMEOUT_MS + 1000)
    // the hung request was seen by a (its status is written before it hangs)
    expect(cdns.a.hits.map((hit) => hit.token)).toEqual(['tok0001aplain'])
    expect(cdns.b.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0001bplain 200'])
    expect(changes.map(({ reason }) => reason)).toEqual(['timeout'])
  })

  it('VHS’s own timeout (it aborts the request) counts as the CDN hanging too', async () => {
    cdns.hang(cdns.a)
    const outcome = await new Promise<{ error: unknown; request: VhsRequest }>((resolve) => {
      // VHS sets 1.5 target durations on segment requests: here shorter than cdnTimeoutMs
      hooks.xhr({ uri: segment(), responseType: 'text', timeout: TIMEOUT_MS / 10 }, (error, req) =>
        resolve({ error, request: req }),
      )
    })
    expect(outcome.error).toBeNull()
    expect(outcome.request.status).toBe(200)
    expect(cdns.b.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0001bplain 200'])
    expect(changes.map(({ reason }) => reason)).toEqual(['timeout'])
  })

  it('never sends a token to the other CDN, across refreshes and a switch', async () => {
    await time.advance(14_000) // a refresh: tok0002
    cdns.a.rejectAll()
    await request(segment())
    await request(new URL('v1/index.m3u8', refresher.url).href)
    for (const hit of cdns.a.hits) expect(hit.token).toMatch(/^tok\d+a(plain|bound)$/)
    for (const hit of cdns.b.hits) expect(hit.token).toMatch(/^tok\d+b(plain|bound)$/)
    expect(cdns.hits()).toEqual([
      'a tok0002aplain 403',
      'b tok0002bplain 200',
      'b tok0002bplain 200',
    ])
  })

  it('both CDNs failing: one switch, then VHS gets the failure (no loop)', async () => {
    cdns.a.rejectAll()
    cdns.b.rejectAll()
    const { error, request: req } = await request(segment())
    expect(error).toBeInstanceOf(Error)
    expect(req.status).toBe(403)
    expect(changes).toHaveLength(1)
    expect(cdns.a.hits).toHaveLength(1)
  })

  it('a request VHS aborts is not moved to the other CDN', async () => {
    cdns.hang(cdns.a)
    const returned = hooks.xhr({ uri: segment(), responseType: 'text' }, () => undefined)
    returned.abort?.()
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 100))
    expect(cdns.b.hits).toHaveLength(0)
    expect(changes).toEqual([])
  })
})
