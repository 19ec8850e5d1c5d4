import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import { describe, expect, it, vi } from 'vitest'
import { watchFailures } from './failure-watch.ts'
import type { FailingPlayer } from './give-up.ts'
import type { RevivablePlayer } from './revive.ts'

// What runs only after a failure (the give-up, the outage revival) is a module of its own,
// imported with the first failure: counted here through a mock, whose import waits until the
// test opens the gate (a slow network), so what happens meanwhile reaches it late.
const module = await vi.hoisted(async () =>
  (await import('@proj/token-refresh/testing')).heldImport(),
)
vi.mock('./after-failure.ts', async (importOriginal) => {
  await module.arrival()
  return importOriginal()
})

/** A player that records the errors it is given. */
const fakePlayer = () => {
  const errors: { code: number; message: string }[] = []
  const player = {
    error: (error?: { code: number; message: string }) => {
      if (!error) return errors.at(-1) ?? null
      errors.push(error)
      return undefined
    },
    tech: () => undefined,
    currentTime: () => 0,
    duration: () => 80,
    paused: () => false,
    ended: () => false,
    src: () => undefined,
    one: () => undefined,
    play: () => undefined,
  }
  return { player: player as unknown as RevivablePlayer & FailingPlayer, errors }
}

/** A refresher on a fake clock, a player, and the watch of both; `segment` names a URL of `token`. */
const watched = async () => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
  const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
  const { player, errors } = fakePlayer()
  const onError = vi.fn()
  const watch = watchFailures(player, refresher, onError, { type: 'application/x-mpegURL' })
  const segment = (token: string) =>
    `https://cdn.test/videos/12345_demo/${token}/${refresher.record.expires}/v0/seg_001.ts`
  return { time, refresher, errors, onError, watch, segment }
}

describe('what runs after a failure, loaded on demand', () => {
  it('not loaded while all goes well; in late, it still hears each refusal with its token', async () => {
    const { time, refresher, errors, onError, watch, segment } = await watched()
    // playing well across two refreshes: nothing to load
    for (let second = 0; second < 40; second++) {
      watch.observe(segment(refresher.token), 200, false)
      await time.advance(1000)
    }
    expect(refresher.refreshCount).toBeGreaterThanOrEqual(2)
    expect(module.loads).toBe(0)

    // the CDN's secret changes: a refusal of the current token asks for the module…
    const refused = refresher.token
    watch.observe(segment(refused), 403, false)
    await vi.waitFor(() => expect(module.loads).toBe(1))
    // …which is slow to come: the recovery refresh brings a new token, refused too, and VHS is
    // handed that refusal (a fresh token refused, no refresh can help)
    expect(refresher.recover(segment(refused))).toBe(true)
    await time.advance(0)
    expect(refresher.token).not.toBe(refused)
    watch.observe(segment(refresher.token), 403, true)
    expect(errors).toEqual([])

    module.open()
    await vi.waitFor(() => expect(errors).toHaveLength(1))
    expect(errors[0]?.code).toBe(2)
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ name: 'TokenRejectedError' }))
    expect(module.loads).toBe(1)
    watch.stop()
    refresher.destroy()
  })

  it('a 410 (the CDN says: expired) of a fresh token is a clock behind the CDN’s, not a give-up', async () => {
    const { time, refresher, errors, onError, watch, segment } = await watched()
    module.open()
    const refused = refresher.token
    watch.observe(segment(refused), 410, false)
    expect(refresher.recover(segment(refused), 410)).toBe(true)
    await time.advance(0)
    expect(refresher.token).not.toBe(refused)
    watch.observe(segment(refresher.token), 410, true)
    await vi.waitFor(() => expect(module.loads).toBeGreaterThanOrEqual(1))
    await time.advance(100)
    expect(errors).toEqual([])
    expect(onError).not.toHaveBeenCalled()
    watch.stop()
    refresher.destroy()
  })
})
