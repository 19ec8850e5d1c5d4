import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import { describe, expect, it, vi } from 'vitest'
import { watchFailures } from './failure-watch.ts'
import type { FailingPlayer } from './give-up.ts'
import type { RevivablePlayer } from './revive.ts'

/** A player whose time moves only when told to. */
const fakePlayer = (duration = 80) => {
  const calls: string[] = []
  let time = 30
  let error: unknown = null
  const once = new Map<string, () => void>()
  const player: RevivablePlayer &
    FailingPlayer & {
      move(s: number): void
      fail(): void
      fire(type: string): void
    } = {
    currentTime: ((seconds?: number) => {
      if (seconds === undefined) return time
      calls.push(`currentTime ${seconds}`)
      time = seconds
      return undefined
    }) as RevivablePlayer['currentTime'],
    duration: () => duration,
    paused: () => false,
    ended: () => false,
    error: (() => error) as RevivablePlayer['error'] & FailingPlayer['error'],
    tech: () => undefined,
    src: (source) => {
      calls.push(`src ${source.src}`)
      error = null
    },
    one: (type, listener) => {
      once.set(type, listener)
    },
    play: () => {
      calls.push('play')
      return Promise.resolve()
    },
    move: (seconds) => {
      time += seconds
    },
    fail: () => {
      error = { code: 2 }
    },
    fire: (type) => once.get(type)?.(),
  }
  return { player, calls }
}

/**
 * A refresher whose backend is down past the token's expiry, then back; `player` revived by
 * what the plugin loads with the first failure (failure-watch.ts), in by the time it is back.
 */
const outage = async (player: RevivablePlayer & FailingPlayer) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
  const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
  watchFailures(player, refresher, undefined, {
    type: 'application/x-mpegURL',
    timers: time.timers,
  })
  backend.fail(100)
  await time.advance(30_000)
  await vi.dynamicImportSettled()
  backend.fail(0)
  // the next retry comes within 30 s (nothing asked for the video meanwhile)
  for (let i = 0; i < 300 && refresher.expired; i++) await time.advance(100)
  return { time, refresher }
}

describe('the outage revival (video.js), loaded with the first failure', () => {
  it('reloads a stuck VOD player at its position once the new token came', async () => {
    const { player, calls } = fakePlayer()
    const { time, refresher } = await outage(player)
    expect(refresher.expired).toBe(false)
    expect(calls).toEqual([])
    await time.advance(4_000) // the player did not move since
    expect(calls).toEqual([`src ${refresher.url}`, 'play'])
    player.fire('loadedmetadata')
    expect(calls.at(-1)).toBe('currentTime 30')
    refresher.destroy()
  })

  it('reloads a failed live player at the edge at once, and leaves a player that moves alone', async () => {
    const live = fakePlayer(Number.POSITIVE_INFINITY)
    live.player.fail()
    const stuck = await outage(live.player)
    // it gave up: reloaded as the token comes, without waiting for the stuck check
    expect(live.calls).toEqual([`src ${stuck.refresher.url}`, 'play'])
    await stuck.time.advance(4_000)
    expect(live.calls).toHaveLength(2)
    live.player.fire('loadedmetadata')
    expect(live.calls).toHaveLength(2) // no seek: the live edge

    const playing = fakePlayer()
    const fine = await outage(playing.player)
    playing.player.move(2)
    await fine.time.advance(4_000)
    expect(playing.calls).toEqual([])
  })

  it('does nothing without an outage (a refresh while the token is valid)', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const { player, calls } = fakePlayer()
    watchFailures(player, refresher, undefined, {
      type: 'application/x-mpegURL',
      timers: time.timers,
    })
    backend.fail(1) // one failure inside the lead window: not an outage
    await time.advance(40_000)
    expect(calls).toEqual([])
  })
})
