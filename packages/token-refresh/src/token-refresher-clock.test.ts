import { afterEach, describe, expect, it, vi } from 'vitest'
import { withServerDate } from './fetch-token.ts'
import { fakeTime, fakeTokenBackend } from './testing/index.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { TokenContext, TokenRecord, TokenRefreshOptions } from './types.ts'

// When the viewer's clock and the backend's disagree, or a record comes with too little time:
// a request is held only for a record that is really on its way, and an expired answer is a
// failed refresh, never a new token.
const options = (
  time: ReturnType<typeof fakeTime>,
  getToken: TokenRefreshOptions['getToken'],
  errors: unknown[] = [],
): TokenRefreshOptions => ({
  getToken,
  refreshLeadSeconds: 60,
  refreshSpreadSeconds: 0,
  random: () => 0.5,
  peers: null,
  visibility: null,
  clock: time.clock,
  timers: time.timers,
  onError: (error) => errors.push(error),
})
const segment = (refresher: TokenRefresher) => new URL('v0/seg.ts', refresher.url).href
const expiresOf = (url: string) => Number(url.split('/')[6]) * 1000

/** `getToken` of `backend`, whose second answer `change` rewrites (its expiry moved, with a Date). */
const secondAnswer = (
  time: ReturnType<typeof fakeTime>,
  expiresFromNowS: number,
  backend = fakeTokenBackend({ clock: time.clock, lifetime: 300 }),
) => {
  let calls = 0
  const getToken = async (context: TokenContext): Promise<TokenRecord> => {
    const record = await backend.getToken(context)
    if (++calls !== 2) return record
    const expires = Math.floor(time.clock.now() / 1000) + expiresFromNowS
    const move = (url: string) => url.replace(/\/\d{10}\//, `/${expires}/`)
    return withServerDate(
      { ...record, expires, url: move(record.url), url_ip: move(record.url_ip) },
      time.clock.now(),
    )
  }
  return { getToken, calls: () => calls }
}

/** Resolves `prepare(url)` while the fake clock moves; returns how long it took (ms). */
async function timedPrepare(time: ReturnType<typeof fakeTime>, refresher: TokenRefresher) {
  const began = time.clock.now()
  let done = false
  const url = refresher.prepare(segment(refresher)).finally(() => {
    done = true
  })
  while (!done) await time.advance(250)
  return { url: await url, waitedMs: time.clock.now() - began }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a viewer clock 10 min fast, and a backend that sends no Date', () => {
  it('the valid token goes at once: nothing to wait for on a clock that may be the wrong one', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const time = fakeTime()
    const server = { now: () => time.clock.now() - 600_000 }
    const backend = fakeTokenBackend({ clock: server, lifetime: 300, sendDate: false })
    const refresher = await TokenRefresher.create(options(time, backend.getToken))
    await time.advance(120_000)
    expect(expiresOf(refresher.url)).toBeGreaterThan(server.now()) // the CDN takes it
    const { waitedMs } = await timedPrepare(time, refresher)
    expect(waitedMs).toBeLessThan(1000)
    refresher.destroy()
  })
})

describe('a record with less time than the lead', () => {
  it('once it expired, the request that waits for the next one makes it come', async () => {
    const time = fakeTime()
    const second = secondAnswer(time, 1)
    const refresher = await TokenRefresher.create(options(time, second.getToken))
    await time.advance(242_000) // the refresh brought a record with 1 s left; it expired
    const { url, waitedMs } = await timedPrepare(time, refresher)
    expect(second.calls()).toBe(3)
    expect(waitedMs).toBeLessThan(5000)
    expect(expiresOf(url)).toBeGreaterThan(time.clock.now())
    refresher.destroy()
  })
})

describe('a record already expired when it arrives (a stale cache, an absolute expire past)', () => {
  it('is a failed refresh: reported, retried, and the held request leaves with the next good one', async () => {
    const time = fakeTime()
    const errors: unknown[] = []
    const second = secondAnswer(time, -30)
    const refresher = await TokenRefresher.create(options(time, second.getToken, errors))
    const events: string[] = []
    refresher.addEventListener('tokenrefreshed', () => events.push('tokenrefreshed'))
    time.jump(400_000) // asleep: the token expired; the first request waits for a new one
    const { url } = await timedPrepare(time, refresher)
    expect(errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('token backend answered an expired token'),
      }),
    ])
    expect(events).toEqual(['tokenrefreshed']) // the retry's, not the expired one's
    expect(expiresOf(url)).toBeGreaterThan(time.clock.now())
    expect(second.calls()).toBe(3)
    refresher.destroy()
  })
})

describe('a viewer clock 10 min slow, and a backend that sends no Date', () => {
  it.each([20, 30])(
    '%i-s tokens: the CDN’s 410s at their real expiry are recovered, never a give-up',
    async (lifetime) => {
      vi.spyOn(console, 'warn').mockImplementation(() => undefined)
      const time = fakeTime()
      const server = { now: () => time.clock.now() + 600_000 }
      const backend = fakeTokenBackend({ clock: server, lifetime, sendDate: false })
      const errors: unknown[] = []
      const refresher = await TokenRefresher.create({
        ...options(time, backend.getToken, errors),
        refreshLeadSeconds: lifetime / 4,
      })
      // a player: a segment every 2 s; the CDN (on the server's clock) answers 410 once expired
      let refused = 0
      for (let t = 0; t < 180_000; t += 2000) {
        const attempt = refresher.attempt(segment(refresher))
        let url = await attempt.prepare()
        for (let i = 0; i < 3 && server.now() >= expiresOf(url); i++) {
          refused++
          if (attempt.failed(410) !== 'refresh') break
          await time.advance(0)
          url = await attempt.prepare()
        }
        await time.advance(2000)
      }
      expect(refused).toBeGreaterThan(3) // each token was refused once it really expired
      expect(errors).toEqual([])
      expect(refresher.rejected).toBe(false)
      refresher.destroy()
    },
  )

  it('a 403 still counts: three fresh tokens refused in a row end in the give-up', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 300 })
    const errors: unknown[] = []
    const refresher = await TokenRefresher.create(options(time, backend.getToken, errors))
    for (let i = 0; i < 3; i++) {
      refresher.recover(segment(refresher), 403)
      await time.advance(1100)
    }
    expect(refresher.rejected).toBe(true)
    expect(errors).toEqual([expect.objectContaining({ name: 'TokenRejectedError' })])
    refresher.destroy()
  })
})

describe('a laptop asleep, whose timers do not count the sleep', () => {
  it('paused with the backend unreachable, woken 2 h later: the first request waits seconds, not the old retry', async () => {
    const time = fakeTime()
    // the wall clock jumps by the sleep; the timers (time.timers) run on a clock that does not
    let asleepMs = 0
    const clock = { now: () => time.clock.now() + asleepMs }
    const backend = fakeTokenBackend({ clock, lifetime: 300 })
    const refresher = await TokenRefresher.create({
      ...options(time, backend.getToken),
      clock,
    })
    backend.fail(1_000_000)
    await time.advance(620_000) // paused, no network: retries 15-30 s apart
    asleepMs = 7_200_000
    backend.fail(0)
    const { url, waitedMs } = await timedPrepare(time, refresher)
    expect(waitedMs).toBeLessThanOrEqual(3000)
    expect(expiresOf(url)).toBeGreaterThan(clock.now())
    refresher.destroy()
  })
})
