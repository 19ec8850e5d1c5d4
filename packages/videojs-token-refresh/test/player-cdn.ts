// What the package's player tests share: each test gets a fresh fake clock and the tiny
// token-checking CDN, and its players are disposed, then the CDN closed, after it.
import { type FakeTime, fakeTime, tinyCdn } from '@proj/token-refresh/testing'
import type videojs from 'video.js'
import { afterEach, beforeEach } from 'vitest'

type Player = ReturnType<typeof videojs>

/** The current test's clock, CDN and players (clock and CDN replaced before each test). */
export interface PlayerCdn {
  time: FakeTime
  cdn: Awaited<ReturnType<typeof tinyCdn>>
  /** The test's players: those not disposed yet are disposed after it. */
  players: Player[]
}

/**
 * Registers the hooks that give each test of the file a fresh {@link PlayerCdn}; call it at the
 * top of the file, before the file's own hooks (whose `afterEach` then runs before the players
 * are disposed and the CDN closes).
 *
 * @example
 * const env = usePlayerCdn()
 * it('plays', async () => {
 *   const player = videojs(element, options)
 *   env.players.push(player)
 *   await env.time.advance(14_000)
 * })
 */
export function usePlayerCdn(): PlayerCdn {
  const env = { players: [] } as unknown as PlayerCdn
  beforeEach(async () => {
    env.time = fakeTime()
    env.cdn = await tinyCdn(env.time.clock)
  })
  afterEach(async () => {
    for (const player of env.players.splice(0)) if (!player.isDisposed()) player.dispose()
    await env.cdn.close()
  })
  return env
}
