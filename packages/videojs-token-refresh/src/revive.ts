import type { TokenRefresher } from '@proj/token-refresh'

/** The part of a video.js player the revival uses. */
export interface RevivablePlayer {
  currentTime(): number
  currentTime(seconds: number): unknown
  duration(): number
  paused(): boolean
  ended(): boolean
  error(): unknown
  src(source: { src: string; type: string }): unknown
  one(type: string, listener: () => void): void
  play(): Promise<void> | undefined
}

/** Options of {@link reviveAfterOutage}. */
export interface ReviveOptions {
  /** The source type given to `player.src`. */
  type: string
  /** How long playback may stand still after the new token before the source is reloaded (ms). */
  checkAfterMs?: number
  timers?: { set(callback: () => void, ms: number): unknown }
}

/**
 * Brings a player back after a token outage (the backend down longer than a token's life): once
 * a new token arrives, a player that gave up (an error) is reloaded at once, and one that is
 * stuck (not paused, yet its time does not move for `checkAfterMs`; VHS can leave its segment
 * loader paused for good after excluding renditions) after that check, with the new URL at its
 * position (VOD) or at the live edge. Returns the function that stops it.
 *
 * @example
 * ```ts
 * const stop = reviveAfterOutage(player, refresher, { type: 'application/x-mpegURL' })
 * ```
 */
export function reviveAfterOutage(
  player: RevivablePlayer,
  refresher: TokenRefresher,
  {
    type,
    checkAfterMs = 4000,
    timers = { set: (callback, ms) => setTimeout(callback, ms) },
  }: ReviveOptions,
): () => void {
  let outage = false
  let stopped = false
  // a failed refresh while the token is expired: playback cannot go on until a new one comes
  const onError = () => {
    if (refresher.expired) outage = true
  }
  const onRefreshed = () => {
    if (!outage || refresher.rejected) return
    outage = false
    const before = player.currentTime()
    const reload = () => {
      const live = player.duration() === Number.POSITIVE_INFINITY
      player.src({ src: refresher.url, type })
      if (!live) player.one('loadedmetadata', () => player.currentTime(before))
      player.play()?.catch(() => undefined)
    }
    // a player that gave up (an error) cannot come back alone: at once, not after the check
    if (player.error()) return reload()
    timers.set(() => {
      if (stopped) return
      const stuck = !player.paused() && !player.ended() && player.currentTime() === before
      if (player.error() || stuck) reload()
    }, checkAfterMs)
  }
  refresher.addEventListener('error', onError)
  refresher.addEventListener('tokenrefreshed', onRefreshed)
  return () => {
    stopped = true
    refresher.removeEventListener('error', onError)
    refresher.removeEventListener('tokenrefreshed', onRefreshed)
  }
}
