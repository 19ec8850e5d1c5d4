import { afterEach, describe, expect, it, vi } from 'vitest'
import { TokenRejectedError } from './recovery.ts'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { createTokenPeers } from './token-peers.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { TokenRefreshOptions } from './types.ts'

/** `promise`, plus whether it has settled yet. */
const watched = <T>(promise: Promise<T>) => {
  const tracked = Object.assign(
    promise.finally(() => {
      tracked.done = true
    }),
    { done: false },
  )
  return tracked
}

const setup = async (
  // undefined removes a default of this setup (e.g. the spread, to test the refresher's own)
  options: { [K in keyof TokenRefreshOptions]?: TokenRefreshOptions[K] | undefined } & {
    lifetime?: number
    clientAheadMs?: number
    sendDate?: boolean
  } = {},
) => {
  const time = fakeTime()
  const { lifetime = 20, clientAheadMs = 0, sendDate = true, ...rest } = options
  const backend = fakeTokenBackend({ clock: time.clock, lifetime, clientAheadMs, sendDate })
  const refresher = await TokenRefresher.create({
    getToken: backend.getToken,
    refreshLeadSeconds: 6,
    clock: time.clock,
    timers: time.timers,
    random: () => 0.5,
    refreshSpreadSeconds: 0,
    peers: null,
    visibility: null,
    ...(rest as Partial<TokenRefreshOptions>),
  })
  return { time, backend, refresher }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('TokenRefresher.create', () => {
  it('fetches the initial record before anything else and plays url or url_ip', async () => {
    const { refresher, backend } = await setup()
    expect(backend.calls).toBe(1)
    expect(refresher.url).toMatch(/^https:\/\/cdn\.test\/videos\/12345_demo\/tok0001plain\/\d+\//)
    const bound = await setup({ ipBound: true })
    expect(bound.refresher.url).toMatch(/^https:\/\/cdn-ip\.test\/.*tok0001bound/)
  })

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects refreshLeadSeconds %s',
    async (lead) => {
      await expect(setup({ refreshLeadSeconds: lead })).rejects.toThrow(RangeError)
    },
  )

  it('rejects a lead that is not below the lifetime, naming both', async () => {
    await expect(setup({ refreshLeadSeconds: 20 })).rejects.toThrow(
      'refreshLeadSeconds (20) must be below the token lifetime (20 s)',
    )
  })

  it('only warns when the lifetime is measured on an unverified client clock', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    await setup({ refreshLeadSeconds: 6, sendDate: false, clientAheadMs: 3_600_000 })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('must be below the token lifetime'))
  })

  it('warns outside the recommended 20–30 % of the lifetime, not inside', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    await setup({ refreshLeadSeconds: 5, lifetime: 20 })
    expect(warn).not.toHaveBeenCalled()
    await setup({ refreshLeadSeconds: 2, lifetime: 20 })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('recommended 20–30 %'))
  })

  it('rejects a record without the 2.11 fields', async () => {
    const time = fakeTime()
    await expect(
      TokenRefresher.create({
        getToken: async () => ({ token: 'x' }) as never,
        refreshLeadSeconds: 6,
        timers: time.timers,
      }),
    ).rejects.toThrow('invalid "token_ip": undefined')
  })
})

describe('the lead-time timer', () => {
  it('refreshes refreshLeadSeconds before expires and reports each new record', async () => {
    const onTokenRefreshed = vi.fn()
    const { refresher, backend, time } = await setup({ onTokenRefreshed })
    const events: unknown[] = []
    refresher.addEventListener('tokenrefreshed', (event) =>
      events.push((event as CustomEvent).detail),
    )
    await time.advance(13_900)
    expect(backend.calls).toBe(1)
    await time.advance(200)
    expect(backend.calls).toBe(2)
    expect(refresher.refreshCount).toBe(1)
    expect(onTokenRefreshed).toHaveBeenCalledWith(refresher.record)
    expect(events).toEqual([refresher.record])
    // 70 s of playback with 20 s tokens and a 6 s lead: one refresh every 14 s.
    await time.advance(56_000)
    expect(backend.calls).toBe(6)
  })
})

describe('the refresh spread (live herds)', () => {
  /** Seconds after the start at which each refresh happened, over `seconds`. */
  const refreshTimes = async (options: Parameters<typeof setup>[0], seconds: number) => {
    const { refresher, time } = await setup(options)
    const start = time.clock.now()
    const times: number[] = []
    refresher.addEventListener('tokenrefreshed', () =>
      times.push((time.clock.now() - start) / 1000),
    )
    await time.advance(seconds * 1000)
    return times
  }

  it('spreads the first refresh over the first lifetime, later ones over the spread before the lead', async () => {
    // 20-s tokens, 6-s lead, 4-s spread: the first window is [2 s, 14 s], later ones [lead + 4, lead]
    expect(await refreshTimes({ refreshSpreadSeconds: 4, random: () => 0.5 }, 40)).toEqual([
      8, 20, 32,
    ])
    expect(await refreshTimes({ refreshSpreadSeconds: 4, random: () => 0.999 }, 40)).toEqual([
      2.012, 12.004, 22.004, 32.004,
    ]) // expires are whole seconds: token 2 (fetched at 2.012 s) expires at 22 s
  })

  it('is never later than refreshLeadSeconds before expires', async () => {
    expect(await refreshTimes({ refreshSpreadSeconds: 4, random: () => 0 }, 45)).toEqual([
      14, 28, 42,
    ])
  })

  it('defaults to a quarter of the lead; 0 refreshes everyone at the lead time', async () => {
    // spread 1.5 s: first window [0.75 s, 14 s]
    expect(await refreshTimes({ refreshSpreadSeconds: undefined, random: () => 0.5 }, 30)).toEqual([
      7.375, 20.25,
    ])
    expect(await refreshTimes({ refreshSpreadSeconds: 0, random: () => 0.7 }, 30)).toEqual([14, 28])
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects refreshSpreadSeconds %s',
    async (spread) => {
      await expect(setup({ refreshSpreadSeconds: spread })).rejects.toThrow(
        'refreshSpreadSeconds must be a number >= 0',
      )
    },
  )
})

describe('players of the same video on one page (peers)', () => {
  it('share one getToken per cycle, and each reports the new record', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const peers = createTokenPeers()
    const options = { ...testRefreshOptions(time, backend.getToken), peers }
    const a = await TokenRefresher.create(options)
    const b = await TokenRefresher.create(options)
    const other = await TokenRefresher.create({
      ...options,
      getToken: fakeTokenBackend({ clock: time.clock, video: '12345_other' }).getToken,
    })
    const seen = vi.fn()
    b.addEventListener('tokenrefreshed', seen)
    await time.advance(70_000)
    expect(backend.calls).toBe(2 + 5) // two initial fetches, then one per 14-s cycle
    expect(b.record).toBe(a.record)
    expect(b.refreshCount).toBe(5)
    expect(seen).toHaveBeenCalledTimes(5)
    expect(other.record.url).toContain('12345_other') // another video is not adopted
    a.destroy()
    await time.advance(14_000)
    expect(backend.calls).toBe(8) // b goes on alone
    expect(b.record).not.toBe(a.record)
    b.destroy()
    other.destroy()
  })

  it('an older or equal record is not adopted, nor one offered after destroy', async () => {
    const { refresher, backend } = await setup()
    const current = refresher.record
    refresher.receive({ ...current, token: 'older', expires: current.expires - 1 })
    refresher.receive({ ...current, token: 'same' })
    expect(refresher.record).toBe(current)
    const newer = await backend.getToken()
    refresher.destroy()
    refresher.receive(newer)
    expect(refresher.record).toBe(current)
  })
})

describe('rewriting', () => {
  it('moves URLs resolved under any older pair onto the current one, after the 2nd and 3rd refresh', async () => {
    const { refresher, time } = await setup()
    const first = refresher.url
    const resolved = new URL('v1/seg_007.ts', first).href // as a player resolves it
    await time.advance(14_000)
    const level = new URL('v0/index.m3u8', refresher.url).href // loaded under token 2
    await time.advance(14_000)
    expect(refresher.refreshCount).toBe(2)
    const { token, expires } = refresher.record
    expect(refresher.rewrite(resolved)).toBe(
      `https://cdn.test/videos/12345_demo/${token}/${expires}/v1/seg_007.ts`,
    )
    expect(refresher.rewrite(level)).toBe(
      `https://cdn.test/videos/12345_demo/${token}/${expires}/v0/index.m3u8`,
    )
    await time.advance(14_000)
    expect(refresher.record.token).toBe('tok0004plain')
    expect(refresher.rewrite(level)).toContain(`/tok0004plain/${refresher.record.expires}/v0/`)
  })

  it('leaves other hosts, other videos, queries and fragments alone', async () => {
    const { refresher } = await setup()
    const { token, expires } = refresher.record
    expect(refresher.rewrite('https://other.test/videos/12345_demo/abcdefg/1767225600/a.ts')).toBe(
      'https://other.test/videos/12345_demo/abcdefg/1767225600/a.ts',
    )
    expect(refresher.rewrite('https://cdn.test/videos/12345_other/abcdefg/1767225600/a.ts')).toBe(
      'https://cdn.test/videos/12345_other/abcdefg/1767225600/a.ts',
    )
    expect(
      refresher.rewrite(
        'https://cdn.test/videos/12345_demo/abcdefg/1767225600/a.ts?x=abcdefg/1767225600#t',
      ),
    ).toBe(`https://cdn.test/videos/12345_demo/${token}/${expires}/a.ts?x=abcdefg/1767225600#t`)
    expect(refresher.rewrite('not a url')).toBe('not a url')
  })

  it('ipBound switches both the host and the token, for URLs on either CDN host', async () => {
    const { refresher } = await setup({ ipBound: true })
    const { token_ip, expires } = refresher.record
    const want = `https://cdn-ip.test/videos/12345_demo/${token_ip}/${expires}/v0/seg_001.ts`
    expect(
      refresher.rewrite('https://cdn.test/videos/12345_demo/oldtoken/1767225600/v0/seg_001.ts'),
    ).toBe(want)
    expect(
      refresher.rewrite('https://cdn-ip.test/videos/12345_demo/oldtoken/1767225600/v0/seg_001.ts'),
    ).toBe(want)
    expect(refresher.token).toBe(token_ip)
  })
})

describe('refresh', () => {
  it('shares one getToken call between concurrent callers', async () => {
    const { refresher, backend } = await setup()
    const [a, b, c] = await Promise.all([
      refresher.refresh(),
      refresher.refresh(),
      refresher.refresh(),
    ])
    expect(backend.calls).toBe(2)
    expect(a).toBe(b)
    expect(b).toBe(c)
  })

  it('retries three failures with growing jittered backoff inside the lead window, reporting each', async () => {
    const onError = vi.fn()
    const { refresher, backend, time } = await setup({ onError })
    const errorEvents = vi.fn()
    refresher.addEventListener('error', errorEvents)
    backend.fail(3)
    await time.advance(14_000) // lead time: 1st attempt fails
    expect(backend.calls).toBe(2)
    await time.advance(375) // 500 ms × (0.5 + 0.5/2)
    expect(backend.calls).toBe(3)
    await time.advance(749)
    expect(backend.calls).toBe(3)
    await time.advance(1)
    expect(backend.calls).toBe(4)
    await time.advance(1500)
    expect(backend.calls).toBe(5)
    expect(onError).toHaveBeenCalledTimes(3)
    expect(errorEvents).toHaveBeenCalledTimes(3)
    expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(Error)
    // recovered 2.6 s into the 6 s lead window: the token never expired
    expect(refresher.refreshCount).toBe(1)
    expect(refresher.record.expires * 1000).toBeGreaterThan(time.clock.now())
  })

  it('never fails silently: without onError a failure is logged', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const { refresher, backend } = await setup()
    backend.fail(1)
    await expect(refresher.refresh()).rejects.toThrow('backend down')
    expect(warn).toHaveBeenCalledWith('[token-refresh] refresh failed', expect.any(Error))
  })

  it('keeps trying at a bounded rate once the token has expired, while nothing plays', async () => {
    const { backend, time } = await setup({ onError: () => undefined })
    backend.fail(1000)
    await time.advance(14_000 + 10 * 60_000)
    // 10 minutes of outage: a handful of quick retries, then one every 15–30 s, never a storm.
    expect(backend.calls).toBeGreaterThan(15)
    expect(backend.calls).toBeLessThan(50)
  })

  it('once expired and playback asks for the video: retries every 1.5–3 s, and the waiting request leaves with the new token', async () => {
    const { refresher, backend, time } = await setup({ onError: () => undefined })
    backend.fail(1000)
    await time.advance(120_000) // two minutes down while paused: the backoff reached 30 s
    const callsWhilePaused = backend.calls
    const pending = refresher.prepare(new URL('v0/seg_001.ts', refresher.url).href)
    await time.advance(20_000) // the request waits; retries come quickly now
    expect(backend.calls - callsWhilePaused).toBeGreaterThanOrEqual(20 / 3)
    expect(backend.calls - callsWhilePaused).toBeLessThanOrEqual(20 / 1.5 + 1)
    backend.fail(0) // the backend is back
    await time.advance(3_000)
    expect(await pending).toContain(`/${refresher.record.token}/`)
    expect(refresher.expired).toBe(false)
  })

  it('a waiting request goes out after maxOutageWaitMs when no token comes', async () => {
    const { refresher, backend, time } = await setup({
      onError: () => undefined,
      maxOutageWaitMs: 8_000,
    })
    backend.fail(1000)
    await time.advance(25_000)
    const pending = watched(refresher.prepare(refresher.url))
    await time.advance(7_999)
    expect(pending.done).toBe(false)
    await time.advance(1)
    expect(await pending).toBe(refresher.url) // the expired one: the player's error path decides
  })
})

describe('a backend that asks to wait (429/503 with Retry-After)', () => {
  const busy = (retryAfterMs: number) =>
    Object.assign(new Error('token backend answered 429'), { status: 429, retryAfterMs })

  it.each([
    ['waits the 8 s asked for, longer than the backoff', 8_000, 45_000 + 8_000],
    ['is capped by the token still valid: one try at expiry', 40_000, 60_000],
  ])('%s', async (_, retryAfter, secondTry) => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 60 })
    let first = true
    const calls: number[] = []
    const start = time.clock.now()
    const refresher = await TokenRefresher.create({
      ...testRefreshOptions(time, async () => {
        calls.push(time.clock.now() - start)
        if (calls.length === 2 && first) {
          first = false
          throw busy(retryAfter)
        }
        return backend.getToken()
      }),
      refreshLeadSeconds: 15,
      random: () => 0.5,
    })
    await time.advance(120_000)
    expect(calls.slice(0, 3)).toEqual([0, 45_000, secondTry])
    expect(refresher.refreshCount).toBeGreaterThanOrEqual(1)
  })

  it('after expiry honours it up to 5 minutes, never a day', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const calls: number[] = []
    const start = time.clock.now()
    await TokenRefresher.create({
      ...testRefreshOptions(time, async () => {
        calls.push(time.clock.now() - start)
        if (calls.length > 1) throw busy(86_400_000)
        return backend.getToken()
      }),
      random: () => 0.5,
    })
    await time.advance(700_000)
    // at the lead time, once at expiry (capped by the valid token), then every 5 minutes
    expect(calls).toEqual([0, 14_000, 20_000, 320_000, 620_000])
  })
})

describe('robust time', () => {
  it.each([
    ['fast', 3_600_000],
    ['slow', -3_600_000],
  ])('a client clock 1 h %s with the server Date changes nothing', async (_, clientAheadMs) => {
    const { backend, time } = await setup({ clientAheadMs })
    await time.advance(70_000)
    expect(backend.calls).toBe(6)
  })

  it.each([
    ['fast', 3_600_000],
    ['slow', -3_600_000],
  ])(
    'a client clock 1 h %s without a Date header makes a bounded number of fetches',
    async (_, clientAheadMs) => {
      vi.spyOn(console, 'warn').mockImplementation(() => undefined)
      const { backend, time } = await setup({ clientAheadMs, sendDate: false })
      await time.advance(200_000) // ten 20-second lifetimes
      // at most one fetch per lead time (6 s): ≤ 4 per 20 s lifetime whatever the clock says
      expect(backend.calls).toBeLessThanOrEqual(1 + 200 / 6)
    },
  )

  it('after a sleep, a request waits for the refresh instead of leaving with an expired token', async () => {
    const { refresher, backend, time } = await setup()
    const old = new URL('v0/seg_001.ts', refresher.url).href
    time.jump(60_000) // laptop lid closed: no timer ran
    const url = await refresher.prepare(old)
    expect(backend.calls).toBe(2)
    expect(url).toContain(`/${refresher.record.token}/${refresher.record.expires}/v0/seg_001.ts`)
    expect(refresher.record.expires * 1000).toBeGreaterThan(time.clock.now())
  })

  it('a request does not wait longer than maxWaitMs (+ maxOutageWaitMs once expired) for a hanging backend', async () => {
    const { refresher, backend, time } = await setup({ maxWaitMs: 2000, maxOutageWaitMs: 3000 })
    backend.fail(1, 'hang')
    time.jump(10_000) // inside the lead window, still valid
    const valid = refresher.prepare(refresher.url)
    await time.advance(2000)
    expect(await valid).toBe(refresher.url)
    time.jump(60_000) // expired
    const pending = watched(refresher.prepare(refresher.url))
    await time.advance(2999)
    expect(pending.done).toBe(false)
    await time.advance(1)
    expect(await pending).toBe(refresher.url)
  })

  it('the synchronous rewrite starts a background refresh when the token is stale', async () => {
    const { refresher, backend, time } = await setup()
    time.jump(15_000)
    const before = refresher.rewrite(refresher.url)
    expect(before).toContain('tok0001plain')
    await time.advance(0)
    expect(backend.calls).toBe(2)
    expect(refresher.rewrite(before)).toContain('tok0002plain')
  })

  it('refreshes when a hidden tab becomes visible', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const page = Object.assign(new EventTarget(), { hidden: true })
    const refresher = await TokenRefresher.create({
      getToken: backend.getToken,
      refreshLeadSeconds: 6,
      clock: time.clock,
      timers: time.timers,
      visibility: page,
    })
    time.jump(45_000) // the hidden tab's timers were throttled
    page.hidden = false
    page.dispatchEvent(new Event('visibilitychange'))
    await time.advance(0)
    expect(backend.calls).toBe(2)
    expect(refresher.record.expires * 1000).toBeGreaterThan(time.clock.now())
  })
})

describe('recover (403/410)', () => {
  it('a URL on an older pair just needs a retry with the current one', async () => {
    const { refresher, backend, time } = await setup()
    const old = refresher.url
    await time.advance(14_000)
    expect(refresher.recover(old)).toBe(true)
    expect(backend.calls).toBe(2)
  })

  it('a failure of the current token refreshes once per token', async () => {
    const { refresher, backend, time } = await setup({ onError: () => undefined })
    const first = refresher.url
    expect(refresher.recover(first)).toBe(true)
    expect(refresher.recover(first)).toBe(true) // refresh in flight: the retry waits for it
    await time.advance(0)
    expect(backend.calls).toBe(2)
    expect(refresher.recover(first)).toBe(true) // now an older pair: no new fetch
    expect(backend.calls).toBe(2)
    backend.fail(1)
    const second = refresher.rewrite(first)
    expect(refresher.recover(second)).toBe(true)
    await time.advance(0)
    expect(backend.calls).toBe(3)
    // the refresh for this token failed: the request waits for its retry, armed (no fetch now)
    expect(refresher.recover(second)).toBe(true)
    expect(backend.calls).toBe(3)
    await time.advance(1000)
    expect(backend.calls).toBe(4)
    expect(refresher.recover(second)).toBe(true) // an older pair now
  })

  it('a CDN that refuses every new token: one TokenRejectedError after 3 tokens, then no more recovery', async () => {
    const { refresher, backend, time } = await setup({ onError: () => undefined })
    const errors: unknown[] = []
    refresher.addEventListener('error', (event) => errors.push((event as CustomEvent).detail))
    const refused = async () => {
      const answer = refresher.recover(refresher.url)
      await time.advance(0)
      return answer
    }
    expect(await refused()).toBe(true) // token 1 refused: refresh
    expect(await refused()).toBe(true) // token 2, fresh, refused: refresh
    expect(await refused()).toBe(false) // token 3 too: the CDN rejects every token
    expect(backend.calls).toBe(3)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(TokenRejectedError)
    expect(String(errors[0])).toContain('SECRET_KEY and CLIENT_ID')
    expect(refresher.rejected).toBe(true)
    await time.advance(14_000) // later tokens are not tried against the CDN either
    expect(refresher.recover(refresher.url)).toBe(false)
    expect(errors).toHaveLength(1)
  })

  it('refusals that are not in a row, or of an expired token, do not add up', async () => {
    const { refresher, time } = await setup({ onError: () => undefined })
    refresher.recover(refresher.url) // token 1 refused: refresh to token 2
    await time.advance(0)
    await time.advance(14_000) // token 2 replaced by the timer, never refused: the count restarts
    refresher.recover(refresher.url)
    await time.advance(0)
    expect(refresher.recover(refresher.url)).toBe(true)
    await time.advance(0)
    time.jump(60_000) // token 4 expired (a sleeping laptop): its refusal says nothing about the CDN
    expect(refresher.recover(refresher.url)).toBe(true)
    expect(refresher.rejected).toBe(false)
  })

  it('a backend that signs by the second: the refresh for a refused token fetches again a second later, and three refused tokens still give up', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, bySecond: true })
    const refresher = await TokenRefresher.create({
      ...testRefreshOptions(time, backend.getToken),
      onError: () => undefined,
    })
    const first = refresher.url
    expect(refresher.recover(first)).toBe(true)
    await time.advance(0)
    expect(backend.calls).toBe(2) // the same token again: within the refused one's second
    expect(refresher.url).toBe(first)
    await time.advance(1_000)
    expect(backend.calls).toBe(3)
    const second = refresher.url
    expect(second).not.toBe(first)
    expect(refresher.recover(second)).toBe(true)
    await time.advance(1_000)
    expect(refresher.recover(refresher.url)).toBe(false) // a third token refused: it gives up
    expect(refresher.rejected).toBe(true)
  })

  it('long-lived tokens refused minutes apart, each after serving, never add up to a give-up', async () => {
    const { refresher, backend, time } = await setup({ onError: () => undefined, lifetime: 3600 })
    for (let i = 0; i < 4; i++) {
      await time.advance(60_000) // the token served a minute: the CDN knows the secret
      expect(refresher.recover(refresher.url)).toBe(true) // a hiccup: one refresh
      await time.advance(0)
    }
    expect(backend.calls).toBe(5)
    expect(refresher.rejected).toBe(false)
  })

  it('ignores URLs that are not this video', async () => {
    const { refresher, backend } = await setup()
    expect(refresher.recover('https://other.test/videos/12345_demo/abcdefg/1767225600/a.ts')).toBe(
      false,
    )
    expect(refresher.recover('https://cdn.test/plain.ts')).toBe(false)
    expect(backend.calls).toBe(1)
  })
})

describe('destroy', () => {
  it('leaves no timer and no listener, and drops late results', async () => {
    const page = Object.assign(new EventTarget(), { hidden: false })
    const remove = vi.spyOn(page, 'removeEventListener')
    const { refresher, time, backend } = await setup({ visibility: page })
    const pending = refresher.refresh()
    refresher.destroy()
    await pending
    expect(time.pending).toBe(0)
    expect(remove).toHaveBeenCalledWith('visibilitychange', expect.any(Function))
    await time.advance(600_000)
    expect(backend.calls).toBe(2)
    expect(refresher.refreshCount).toBe(0)
  })
})

describe('what helpers without the server clock need (service worker, source swap)', () => {
  it('staleAt and expiresAt are on the viewer clock, however wrong that clock is', async () => {
    const ahead = await setup({ clientAheadMs: 600_000 })
    const start = ahead.time.clock.now()
    // 20-second token, 6-second lead: stale 14 s from now on any clock
    expect(ahead.refresher.staleAt - start).toBe(14_000)
    expect(ahead.refresher.expiresAt - start).toBe(20_000)
    expect(ahead.refresher.ipBound).toBe(false)
    expect((await setup({ ipBound: true })).refresher.ipBound).toBe(true)
  })

  it("owns(url) tells this video's URLs from others without side effects", async () => {
    const { refresher, backend } = await setup()
    expect(refresher.owns(new URL('v0/seg_001.ts', refresher.url).href)).toBe(true)
    expect(refresher.owns(refresher.record.url_ip)).toBe(true)
    expect(refresher.owns('https://cdn.test/videos/12345_other/tok0001plain/1795348800/x.ts')).toBe(
      false,
    )
    expect(refresher.owns('not a url')).toBe(false)
    expect(backend.calls).toBe(1)
  })
})
