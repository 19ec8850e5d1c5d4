import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import type shaka from 'shaka-player'
import { describe, expect, it, vi } from 'vitest'
import { shakaClockSync } from './clock-sync.ts'

// The live clock correction is a module of its own, imported when a live presentation has
// loaded: counted here through a mock whose first import fails (the page's origin unreachable).
const module = vi.hoisted(() => ({ loads: 0, failing: true }))
vi.mock('./live-clock.ts', async (importOriginal) => {
  module.loads++
  if (module.failing) {
    module.failing = false
    throw new TypeError('Failed to fetch dynamically imported module')
  }
  return importOriginal()
})

/** A player of a VOD or live presentation whose timeline records the clock offsets it gets. */
const fakePlayer = () => {
  const offsets: number[] = []
  const state = { live: false }
  const media = Object.assign(new EventTarget(), { currentTime: 0 })
  const player = Object.assign(new EventTarget(), {
    isLive: () => state.live,
    getManifest: () => ({
      presentationTimeline: { setClockOffset: (ms: number) => offsets.push(ms) },
    }),
    getMediaElement: () => media,
    seekRange: () => ({ start: 0, end: 10 }),
  }) as unknown as shaka.Player
  return { player, offsets, state }
}

describe('shakaClockSync, loaded on demand', () => {
  it('not for VOD; for a live presentation once loaded, and again after a failed import', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const { player, offsets, state } = fakePlayer()
    const clock = shakaClockSync(player, refresher)
    clock.onRequest() // the manifest's request: nothing loaded yet
    player.dispatchEvent(new Event('loaded')) // a VOD presentation
    clock.onRequest()
    await vi.dynamicImportSettled()
    expect(module.loads).toBe(0)

    state.live = true
    player.dispatchEvent(new Event('loaded')) // a live one: the import fails
    await vi.waitFor(() => expect(module.loads).toBe(1))
    await vi.dynamicImportSettled()
    expect(offsets).toEqual([])
    clock.onRequest() // the next request tries again: in, it measures the presentation
    await vi.waitFor(() => expect(offsets).toHaveLength(1))
    expect(module.loads).toBe(2)
    clock.detach()
    refresher.destroy()
  })
})
