import type { EventHandler, TokenRefresher } from '@proj/token-refresh'
import type { FailureEvent } from './failure-watch.ts'

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
 * position (VOD) or at the live edge. It is told the refresher's `error` and `tokenrefreshed`
 * events (`watchFailures`, which loads it with the first failure).
 *
 * @example
 * ```ts
 * const revival = reviveAfterOutage(player, refresher, { type: 'application/x-mpegURL' })
 * refresher.addEventListener('error', (refresherEvent) =>
 *   revival.handle({ refresherEvent, expired: refresher.expired, token: refresher.token }),
 * )
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
): EventHandler<FailureEvent> {
  let outage = false
  let stopped = false
  // a failed refresh while the token was expired: playback cannot go on until a new one comes
  const onError = (expired: boolean) => {
    if (expired) outage = true
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
  return {
    handle(news) {
      if (!('refresherEvent' in news)) return
      if (news.refresherEvent.type === 'error') onError(news.expired)
      else if (news.refresherEvent.type === 'tokenrefreshed') onRefreshed()
    },
    stop() {
      stopped = true
    },
  }
}
