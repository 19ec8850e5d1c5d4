import { TokenRefresher, withServerDate } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import type shaka from 'shaka-player'
import { describe, expect, it, vi } from 'vitest'
import { liveClock } from './live-clock.ts'

/**
 * A player whose timeline records every clock offset it is given, on a live window of 6 s that
 * follows `Date.now()` and the offset as Shaka's does, with a media element of its own.
 */
const fakePlayer = () => {
  const offsets: number[] = []
  const loadedAt = Date.now()
  const media = Object.assign(new EventTarget(), { currentTime: 0 })
  const player = Object.assign(new EventTarget(), {
    getManifest: () => ({
      presentationTimeline: { setClockOffset: (ms: number) => offsets.push(ms) },
    }),
    getMediaElement: () => media,
    seekRange: () => {
      const end = (Date.now() + (offsets.at(-1) ?? 0) - loadedAt) / 1000 + 10
      return { start: end - 6, end }
    },
  }) as unknown as shaka.Player
  return { player, offsets, media }
}

describe('liveClock (loaded by shakaClockSync for live presentations)', () => {
  it("moves Shaka's clock by the change of server − client since load, not by the skew itself", async () => {
    const time = fakeTime()
    let clientAheadMs = 600_000 // 10 min fast from the start: Shaka loads on that clock
    // the backend signs and dates on its own clock, the server's
    const server = { now: () => time.clock.now() - clientAheadMs }
    const backend = fakeTokenBackend({ clock: server, lifetime: 20 })
    const refresher = await TokenRefresher.create(
      testRefreshOptions(time, async () => withServerDate(await backend.getToken(), server.now())),
    )
    const { player, offsets } = fakePlayer()
    const clock = liveClock(player, refresher) // a live presentation has loaded
    expect(offsets.at(-1)).toBeCloseTo(0, -2)
    clientAheadMs = -600_000 // the clock is set 20 min back: now 10 min slow
    await refresher.refresh()
    expect(offsets.at(-1)).toBeCloseTo(1_200_000, -2)
    clock.onRequest()
    expect(offsets.at(-1)).toBeCloseTo(1_200_000, -2)
    clock.detach()
    refresher.destroy()
  })

  it('undoes a jump of the wall clock at once and asks the server again', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const { player, offsets } = fakePlayer()
    const clock = liveClock(player, refresher) // a live presentation has loaded
    const realNow = Date.now.bind(Date)
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 40_000)
    clock.onRequest()
    expect(offsets.at(-1)).toBeCloseTo(-40_000, -2)
    expect(backend.calls).toBe(2)
    vi.restoreAllMocks()
    clock.detach()
    refresher.destroy()
  })

  it('puts back the playhead Shaka moved to the jumped live edge before the jump was seen', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const { player, media } = fakePlayer()
    const clock = liveClock(player, refresher) // a live presentation has loaded
    media.currentTime = 8
    clock.onRequest()
    const realNow = Date.now.bind(Date)
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 40_000)
    // Shaka's playhead check came first: the playhead is behind the moved window, Shaka seeks
    media.currentTime = player.seekRange().end
    expect(media.currentTime).toBeGreaterThan(48)
    media.dispatchEvent(new Event('seeking'))
    expect(media.currentTime).toBe(8)
    expect(backend.calls).toBe(2)
    // a seek of the viewer's, without a jump, is left alone
    media.currentTime = 5
    media.dispatchEvent(new Event('seeking'))
    clock.onRequest()
    expect(media.currentTime).toBe(5)
    vi.restoreAllMocks()
    clock.detach()
    refresher.destroy()
  })
})
