import { afterEach, describe, expect, it, vi } from 'vitest'
import { TokenFetchError } from './fetch-token.ts'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { assertTokenRecord } from './token-record.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { TokenContext, TokenRecord, TokenRefreshOptions } from './types.ts'

// What a careless page or a broken backend does to a refresher: it keeps refreshing, reports
// what went wrong, and never parks for good.
type GetToken = TokenRefreshOptions['getToken']
const setup = async (
  options: Partial<TokenRefreshOptions> & { wrap?: (getToken: GetToken) => GetToken } = {},
) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
  const errors: unknown[] = []
  const { wrap = (getToken: GetToken) => getToken, ...rest } = options
  const refresher = await TokenRefresher.create({
    ...testRefreshOptions(time, wrap(backend.getToken)),
    random: () => 0.5,
    onError: (error) => errors.push(error),
    ...rest,
  })
  return { time, backend, refresher, errors }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a getToken that never answers', () => {
  it('fails after tokenTimeoutMs (its signal aborted), is retried, and refreshing goes on', async () => {
    const { time, backend, refresher, errors } = await setup({ tokenTimeoutMs: 4000 })
    backend.fail(1, 'hang')
    await time.advance(14_000) // the planned refresh: it hangs
    expect(backend.calls).toBe(2)
    const hung = backend.contexts[1] as TokenContext
    expect(hung.signal?.aborted).toBe(false)
    await time.advance(4000)
    expect(hung.signal?.aborted).toBe(true)
    expect(errors).toEqual([expect.objectContaining({ name: 'TimeoutError' })])
    await time.advance(1000) // the backoff's first retry
    expect(backend.calls).toBe(3)
    expect(refresher.expired).toBe(false)
    await time.advance(60_000)
    expect(refresher.record.expires * 1000).toBeGreaterThan(time.clock.now())
  })

  it('defaults to 10 s', async () => {
    const { time, backend, errors } = await setup()
    backend.fail(1, 'hang')
    await time.advance(14_000 + 9999)
    expect(errors).toEqual([])
    await time.advance(1)
    expect(errors).toHaveLength(1)
  })
})

describe('a refresher destroyed', () => {
  it('aborts the getToken call in flight, and refresh() calls getToken no more', async () => {
    const { time, backend, refresher, errors } = await setup()
    backend.fail(1, 'hang')
    await time.advance(14_000) // the planned refresh: it hangs
    const hung = backend.contexts[1] as TokenContext
    refresher.destroy()
    expect(hung.signal?.aborted).toBe(true)
    const before = refresher.record
    await expect(refresher.refresh()).resolves.toBe(before)
    await time.advance(60_000)
    expect(backend.calls).toBe(2)
    expect(errors).toEqual([])
  })
})

describe('records a refresher cannot use', () => {
  it('an entry of cdns that is not a URL pair with an id fails the fetch', () => {
    const time = fakeTime()
    const record = (cdns: unknown) => {
      const backend = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
      return backend.getToken({}).then((good) => ({ ...good, cdns: cdns ?? good.cdns }))
    }
    return Promise.all([
      record([null]).then((bad) =>
        expect(() => assertTokenRecord(bad)).toThrow(/cdns\[0\]\.token/),
      ),
      record('a').then((bad) => expect(() => assertTokenRecord(bad)).toThrow(/"cdns"/)),
      record(undefined).then((good) => {
        const first = (good.cdns as unknown[])[0]
        const { id: _, ...nameless } = first as { id: string }
        expect(() => assertTokenRecord({ ...good, cdns: [first, nameless] })).toThrow(
          /cdns\[1\]\.id/,
        )
        expect(assertTokenRecord(good)).toBe(good)
        // what some serializers write for an absent field
        expect(assertTokenRecord({ ...good, cdns: null })).toBeTruthy()
      }),
    ])
  })

  it('a record with a broken cdns entry is a failed refresh: the next good one is taken', async () => {
    let broken = false
    const { time, refresher, errors } = await setup({
      wrap: (getToken) => async (context) => {
        const record = await getToken(context)
        // what a broken backend sends: not a record of the type
        return broken ? ({ ...record, cdns: [record, null] } as unknown as TokenRecord) : record
      },
    })
    broken = true
    await time.advance(14_000)
    expect(errors).toEqual([expect.any(TypeError)])
    broken = false
    await time.advance(1000)
    expect(refresher.record.cdns).toBeUndefined()
    expect(refresher.token).toBe(refresher.record.token)
    expect(refresher.refreshCount).toBe(1)
  })
})

describe('a backend that asks to wait (Retry-After) while playback waits', () => {
  it('is not called sooner than it asked, however often the player asks for the video', async () => {
    let busy = false
    let calls = 0
    const { time, refresher } = await setup({
      wrap: (getToken) => async (context) => {
        calls++
        if (busy) throw new TokenFetchError(429, 'busy', 120_000)
        return getToken(context)
      },
    })
    busy = true
    await time.advance(14_000) // asked to wait 120 s, past the expiry
    expect(calls).toBe(2)
    await time.advance(6000) // the one try at expiry a valid token gets: asked again
    expect(calls).toBe(3)
    for (let second = 0; second < 60; second++) {
      refresher.rewrite(refresher.url) // the player asks for the expired video
      await time.advance(1000)
    }
    expect(calls).toBe(3)
    busy = false
    await time.advance(61_000)
    expect(calls).toBe(4)
    expect(refresher.expired).toBe(false)
  })

  it('on the page becoming visible: not sooner than asked, and a valid token keeps its try at expiry', async () => {
    let busy = false
    let calls = 0
    const page = Object.assign(new EventTarget(), { hidden: true })
    const { time, refresher } = await setup({
      visibility: page,
      wrap: (getToken) => async (context) => {
        calls++
        if (busy) throw new TokenFetchError(503, 'busy', 300_000)
        return getToken(context)
      },
    })
    busy = true
    await time.advance(14_000) // the planned refresh: asked to wait 300 s, the token valid 6 s
    expect(calls).toBe(2)
    await time.advance(2000)
    page.hidden = false
    page.dispatchEvent(new Event('visibilitychange'))
    await time.advance(0)
    expect(calls).toBe(2) // not at once: the backend asked to wait
    busy = false
    await time.advance(4000) // but not past the expiry either: its one try
    expect(calls).toBe(3)
    expect(refresher.expired).toBe(false)
  })
})

describe('a getToken that throws before it returns a promise', () => {
  it('is a failed refresh, and its timeout is cleared', async () => {
    let broken = false
    const { time, refresher, errors } = await setup({
      wrap: (getToken) => (context) => {
        if (broken) throw new TypeError('bad URL')
        return getToken(context)
      },
    })
    broken = true
    await time.advance(14_000)
    expect(errors).toEqual([expect.any(TypeError)])
    broken = false
    await time.advance(1000)
    expect(refresher.refreshCount).toBe(1)
    await time.advance(20_000) // no TimeoutError of the failed call later
    expect(errors).toHaveLength(1)
  })
})

describe('a page’s callbacks that throw', () => {
  it('onTokenRefreshed: the record still counts, the next refresh is planned as usual', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const { time, backend, refresher, errors } = await setup({
      onTokenRefreshed: () => {
        throw new Error('page bug')
      },
    })
    await time.advance(14_000 * 3)
    expect(backend.calls).toBe(4)
    expect(refresher.refreshCount).toBe(3)
    expect(errors).toEqual([])
    expect(logged).toHaveBeenCalledWith('[token-refresh] a page callback threw', expect.any(Error))
  })

  it('onError: the retry is still armed, and the error event still dispatched', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const { time, backend, refresher } = await setup({
      onError: () => {
        throw new Error('page bug')
      },
    })
    const events: unknown[] = []
    refresher.addEventListener('error', (event) => events.push(event.detail))
    backend.fail(1)
    await time.advance(14_000)
    expect(events).toHaveLength(1)
    await time.advance(1000)
    expect(backend.calls).toBe(3)
    expect(refresher.refreshCount).toBe(1)
    expect(logged).toHaveBeenCalledWith('[token-refresh] a page callback threw', expect.any(Error))
  })
})
