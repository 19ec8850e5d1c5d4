import { findTokenPair } from '@proj/signing/url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { TokenFetchError } from './fetch-token.ts'
import { MAX_RECOVERY_RETRIES } from './recovery.ts'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { TokenRefresher } from './token-refresher.ts'

// A token the CDN refuses (a 403: the viewer's address changed under an IP-bound token, a CDN
// hiccup) whose one refresh fails (the backend down, slow, or answering nonsense): the requests
// wait for the retry the refresher has armed, bounded, and are never sent again and again with
// the refused token meanwhile.
const setup = async (lifetime = 300) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime })
  const errors: unknown[] = []
  const refresher = await TokenRefresher.create({
    ...testRefreshOptions(time, backend.getToken),
    refreshLeadSeconds: lifetime / 4,
    random: () => 0.5,
    onError: (error) => errors.push(error),
  })
  return { time, backend, refresher, errors, segment: () => segment(refresher) }
}

/**
 * One request as an adapter drives it: `prepare`, send, and on a refusal by `refuses` what the
 * attempt says; the tokens it was sent with, and how it ended (`ok`, or the attempt's answer).
 */
async function request(
  time: ReturnType<typeof fakeTime>,
  refresher: TokenRefresher,
  url: string,
  refuses: (token: string) => boolean,
) {
  const attempt = refresher.attempt(url)
  const sent: string[] = []
  for (;;) {
    let done = false
    const preparing = attempt.prepare().finally(() => {
      done = true
    })
    while (!done) await time.advance(250)
    const token = findTokenPair(await preparing)?.token ?? ''
    sent.push(token)
    if (!refuses(token)) return { sent, end: 'ok' }
    const next = attempt.failed(403)
    // prepared at once, as the adapters do: the refresh the refusal started is still under way
    if (next !== 'refresh') return { sent, end: String(next) }
  }
}

const segment = (refresher: TokenRefresher) => new URL('v0/seg.ts', refresher.url).href

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a refused token whose refresh failed', () => {
  it('the next request waits for the armed retry and leaves with its token, the refused one sent once', async () => {
    const { time, backend, refresher, segment } = await setup()
    const refused = refresher.token
    backend.fail(2) // the refresh the refusal starts fails, and the first retry
    const first = await request(time, refresher, segment(), (token) => token === refused)
    expect(first.end).toBe('ok')
    expect(first.sent.filter((token) => token === refused)).toHaveLength(1)
    const second = await request(time, refresher, segment(), (token) => token === refused)
    expect(second).toEqual({ sent: [refresher.token], end: 'ok' })
  })

  it('a request that comes after the failure waits too, instead of failing at once', async () => {
    const { time, backend, refresher, segment } = await setup()
    const refused = refresher.token
    backend.fail(3)
    // the refusal, and its refresh failing
    expect(refresher.recover(segment(), 403)).toBe(true)
    await time.advance(0)
    expect(backend.calls).toBe(2)
    // a retry is armed: a second refusal of the token is no reason to fail the request
    expect(refresher.recover(segment(), 403)).toBe(true)
    const next = await request(time, refresher, segment(), (token) => token === refused)
    expect(next).toEqual({ sent: [refresher.token], end: 'ok' })
    expect(refresher.token).not.toBe(refused)
  })

  it('tells players that decide on `stale` (hls.js) to prepare: the refused token is not sent meanwhile', async () => {
    const { time, backend, refresher, segment } = await setup()
    backend.fail(1)
    expect(refresher.stale).toBe(false)
    refresher.recover(segment(), 403)
    await time.advance(0)
    expect(refresher.stale).toBe(true)
    await time.advance(1000) // the retry
    expect(backend.calls).toBe(3)
    expect(refresher.stale).toBe(false)
  })

  it('through an outage: each sending waits at most maxOutageWaitMs, the request fails after its retries', async () => {
    const { time, backend, refresher, segment } = await setup()
    const refused = refresher.token
    backend.fail(1_000_000)
    const began = time.clock.now()
    const outcome = await request(time, refresher, segment(), (token) => token === refused)
    expect(outcome.end).toBe('fail')
    expect(outcome.sent).toEqual(Array(MAX_RECOVERY_RETRIES + 1).fill(refused))
    const waited = time.clock.now() - began
    expect(waited).toBeGreaterThanOrEqual(MAX_RECOVERY_RETRIES * 30_000)
    expect(waited).toBeLessThanOrEqual(MAX_RECOVERY_RETRIES * 30_000 + 1000)
    expect(refresher.rejected).toBe(false)
  })

  it('a refusal while the backend asked to wait (Retry-After) calls it no sooner: the request waits for the retry', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 300 })
    const calls: number[] = []
    const start = time.clock.now()
    const refresher = await TokenRefresher.create({
      ...testRefreshOptions(time, async (context) => {
        calls.push(time.clock.now() - start)
        if (calls.length === 2) throw new TokenFetchError(429, 'busy', 20_000)
        return backend.getToken(context)
      }),
      refreshLeadSeconds: 75,
      random: () => 0.5,
    })
    await time.advance(225_000) // the planned refresh: asked to wait 20 s
    const refused = refresher.token
    await time.advance(5000)
    const outcome = await request(time, refresher, segment(refresher), (token) => token === refused)
    expect(outcome).toEqual({ sent: [refused, refresher.token], end: 'ok' })
    expect(calls).toEqual([0, 225_000, 245_000])
  })

  it('never waits once the refresher gave up or was destroyed', async () => {
    const { time, backend, refresher, segment } = await setup()
    backend.fail(1)
    refresher.recover(segment(), 403)
    await time.advance(0)
    refresher.destroy()
    expect(refresher.recover(segment(), 403)).toBe(false)
    let done = false
    void refresher.prepare(segment()).then(() => {
      done = true
    })
    await time.advance(0)
    expect(done).toBe(true)
  })
})

describe('a CDN whose clock is ahead of the token backend’s (the backend’s Date cannot tell)', () => {
  /** Ten minutes of a player asking for a segment every 2 s; the CDN answers 410 once expired on its clock. */
  async function play(aheadS: number, lifetime: number) {
    const { time, backend, refresher, errors } = await setup(lifetime)
    const cdnNow = () => time.clock.now() + aheadS * 1000
    let played = 0
    for (let t = 0; t < 600_000; t += 2000) {
      const attempt = refresher.attempt(segment(refresher))
      for (let url = await attempt.prepare(); ; url = await attempt.prepare()) {
        if (cdnNow() < (findTokenPair(url)?.expires ?? 0) * 1000) {
          played++
          break
        }
        if (attempt.failed(410) !== 'refresh') break
      }
      await time.advance(2000)
    }
    refresher.destroy()
    return { played, calls: backend.calls, errors, rejected: refresher.rejected }
  }

  it.each([
    [30, 20],
    [90, 60],
  ])(
    '%i s ahead, %i-s tokens: expired there on arrival, the refresher gives up instead of a refresh per refusal',
    async (aheadS, lifetime) => {
      const { played, calls, errors, rejected } = await play(aheadS, lifetime)
      expect(played).toBe(0)
      expect(rejected).toBe(true)
      expect(errors).toEqual([expect.objectContaining({ name: 'TokenRejectedError' })])
      expect(String(errors[0])).toContain('410')
      // then the timer's pace, not a getToken per refused request (900 in these ten minutes)
      expect(calls).toBeLessThan(600 / (lifetime * 0.75) + 5)
    },
  )

  it.each([
    [10, 20],
    [14, 20],
    [50, 60],
  ])(
    '%i s ahead, %i-s tokens: each token refused once before its refresh, recovered, never a give-up',
    async (aheadS, lifetime) => {
      const { played, errors, rejected } = await play(aheadS, lifetime)
      expect(played).toBe(300)
      expect(errors).toEqual([])
      expect(rejected).toBe(false)
    },
  )
})
