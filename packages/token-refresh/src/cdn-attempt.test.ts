import { findTokenPair } from '@proj/signing/url'
import { describe, expect, it } from 'vitest'
import { MAX_RECOVERY_RETRIES, TokenRejectedError } from './recovery.ts'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { CdnChange } from './types.ts'

// One request as an adapter drives it, against the refresher of a fake backend (no network:
// the outcomes are what a CDN would answer).
const setup = async (cdns: string[] = ['a', 'b'], timeoutMs = 3000) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 60, cdns })
  const refresher = await TokenRefresher.create({
    ...testRefreshOptions(time, backend.getToken),
    refreshLeadSeconds: 15,
    cdn: { cooldownMs: 20_000, timeoutMs, probe: async () => false },
  })
  const changes: CdnChange[] = []
  refresher.addEventListener('cdnchange', (event) => changes.push(event.detail))
  const segment = (host = 'a.cdn.test') =>
    `https://${host}/videos/12345_demo/tok0000old/1767225600/v0/seg_001.ts`
  return { time, backend, refresher, changes, segment }
}

/** `host token` of a URL. */
const where = (url: string) => `${new URL(url).host} ${findTokenPair(url)?.token}`

describe('CdnAttempt with two CDNs', () => {
  it('sends to the CDN in use with its pair, and moves a CDN failure to the next one', async () => {
    const { refresher, changes, segment, backend } = await setup()
    const attempt = refresher.attempt(segment('b.cdn-ip.test'))
    expect(where(attempt.send())).toBe('a.cdn.test tok0001aplain')
    expect(attempt.timeoutMs).toBe(3000)
    expect(attempt.failed(503)).toBe('resend')
    expect(where(attempt.send())).toBe('b.cdn.test tok0001bplain')
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'server-error' }])
    expect(attempt.failed(200)).toBeUndefined()
    expect(backend.calls).toBe(1)
  })

  it('tells its first-byte bound before the first sending, for the video’s URLs only', async () => {
    // hls.js wraps the load policy of a request before the request is sent
    const { refresher, segment } = await setup(['a', 'b'], 2500)
    expect(refresher.attempt(segment('b.cdn-ip.test')).timeoutMs).toBe(2500)
    expect(refresher.attempt('https://licence.test/widevine').timeoutMs).toBeUndefined()
  })

  it.each([
    [403, 'refused'],
    [410, 'refused'],
    [0, 'network'],
    ['timeout', 'timeout'],
  ] as const)(
    'takes %s while the token is fresh for a failure of the CDN (%s), no refresh',
    async (outcome, reason) => {
      const { refresher, changes, segment, backend, time } = await setup()
      const attempt = refresher.attempt(segment())
      attempt.send()
      expect(attempt.failed(outcome)).toBe('resend')
      expect(changes.map((change) => change.reason)).toEqual([reason])
      await time.advance(0)
      expect(backend.calls).toBe(1)
    },
  )

  it('never sends one request twice to a CDN: the last CDN failing goes to the player', async () => {
    const { refresher, changes, segment, time } = await setup()
    const attempt = refresher.attempt(segment())
    attempt.send()
    expect(attempt.failed(503)).toBe('resend')
    attempt.send()
    time.jump(20_000) // a's cooldown is over: only the request's own history keeps it off a
    expect(attempt.failed(502)).toBeUndefined()
    expect(changes).toHaveLength(1)
    expect(refresher.activeCdn).toBe('b')
  })

  it('answers twice the same about one failure (a player that asks twice), moving once', async () => {
    const { refresher, changes, segment } = await setup(['a', 'b', 'c'])
    const attempt = refresher.attempt(segment())
    attempt.send()
    expect(attempt.failed(503)).toBe('resend')
    expect(attempt.failed(503)).toBe('resend')
    expect(changes.map(({ to }) => to)).toEqual(['b'])
  })

  it('leaves a local error, a 404 and a refusal of an expired token to the player, moving nothing', async () => {
    const { refresher, changes, segment, time } = await setup()
    for (const outcome of ['local', 404] as const) {
      const attempt = refresher.attempt(segment())
      attempt.send()
      expect(attempt.failed(outcome)).toBeUndefined()
    }
    const attempt = refresher.attempt(segment())
    attempt.send()
    time.jump(61_000) // the token it carries expired: a refresh helps, another CDN does not
    expect(attempt.failed(410)).toBe('refresh')
    expect(changes).toEqual([])
  })

  it('sends a request still on a CDN left by an earlier failure to the CDN in use', async () => {
    const { refresher, changes, segment } = await setup()
    const early = refresher.attempt(segment())
    const late = refresher.attempt(segment())
    early.send()
    late.send() // both on a
    expect(early.failed(503)).toBe('resend')
    expect(late.failed(503)).toBe('resend')
    expect(where(late.send())).toBe('b.cdn.test tok0001bplain')
    expect(changes).toHaveLength(1)
  })

  it('bounds each sending by the first-byte timeout: no byte, the next CDN', async () => {
    const { refresher, changes, segment } = await setup(['a', 'b'], 30)
    const attempt = refresher.attempt(segment())
    const resent = new Promise<string>((resolve) => {
      attempt.send()
      attempt.watch(
        () => false,
        () => resolve(attempt.send()),
      )
    })
    expect(where(await resent)).toBe('b.cdn.test tok0001bplain')
    expect(changes.map(({ reason }) => reason)).toEqual(['timeout'])
    // a sending whose first byte came in time is not given up
    let gaveUp = false
    attempt.watch(
      () => true,
      () => {
        gaveUp = true
      },
    )
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(gaveUp).toBe(false)
  })

  it('stops the first-byte timer when told the sending ended', async () => {
    const { refresher, changes, segment } = await setup(['a', 'b'], 30)
    const attempt = refresher.attempt(segment())
    attempt.send()
    attempt.watch(
      () => false,
      () => undefined,
    )
    attempt.end()
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(changes).toEqual([])
  })
})

describe('CdnAttempt with one CDN', () => {
  it('has no first-byte bound and moves nothing', async () => {
    const { refresher, segment, changes } = await setup([])
    const attempt = refresher.attempt(segment('cdn.test'))
    expect(where(attempt.send())).toBe('cdn.test tok0001plain')
    expect(attempt.timeoutMs).toBeUndefined()
    for (const outcome of [0, 503, 'timeout'] as const)
      expect(attempt.failed(outcome)).toBeUndefined()
    expect(changes).toEqual([])
  })

  it('a refused token: refresh, at most MAX_RECOVERY_RETRIES times per request, and every refusal counts', async () => {
    const { refresher, segment, backend, time } = await setup([])
    const errors: unknown[] = []
    refresher.addEventListener('error', (event) => errors.push(event.detail))
    const attempt = refresher.attempt(segment('cdn.test'))
    const answers: string[] = []
    for (let sending = 0; sending <= MAX_RECOVERY_RETRIES; sending++) {
      await attempt.prepare()
      answers.push(String(attempt.failed(403)))
      await time.advance(0) // the refresh the refusal started
    }
    expect(answers).toEqual(['refresh', 'refresh', 'fail'])
    expect(backend.calls).toBe(3)
    // three fresh tokens refused in a row: the refresher gave up (the third refusal told it)
    expect(errors).toEqual([expect.any(TokenRejectedError)])
  })

  it('asked twice about one refusal, answers the same and counts it once', async () => {
    const { refresher, segment, backend, time } = await setup([])
    const attempt = refresher.attempt(segment('cdn.test'))
    attempt.send()
    expect([attempt.failed(403), attempt.failed(403)]).toEqual(['refresh', 'refresh'])
    attempt.send()
    expect([attempt.failed(404), attempt.failed(404)]).toEqual([undefined, undefined])
    await time.advance(0)
    expect(backend.calls).toBe(2)
  })

  it('sends a refused request again with the new pair once prepared', async () => {
    const { refresher, segment, time } = await setup([])
    const attempt = refresher.attempt(segment('cdn.test'))
    attempt.send()
    expect(attempt.failed(410)).toBe('refresh')
    const again = attempt.prepare()
    await time.advance(0)
    expect(where(await again)).toBe('cdn.test tok0002plain')
  })
})
