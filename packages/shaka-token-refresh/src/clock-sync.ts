import type { TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'

/** Wall-clock time minus monotonic time (ms): constant unless the wall clock jumps. */
const wallMinusMonotonic = () => Date.now() - performance.now()

// A change larger than this is a jump of the wall clock, not scheduling noise (ms).
const JUMP_MS = 2000

/**
 * Keeps a live Shaka presentation on the server's time when the viewer's clock changes during
 * playback. Shaka places the live edge with `Date.now()`: a clock set 20 minutes back (or a
 * laptop whose clock is corrected) moves its live edge by as much and playback stalls, whatever
 * the token. The refresher knows the server's clock from each token response (`Date`), so the
 * change of `server − client` since the presentation loaded becomes Shaka's clock offset. A
 * jump of the wall clock against the monotonic clock (checked every 100 ms and on every request)
 * is undone at once, before Shaka's playhead follows it, and re-measured with one refresh.
 *
 * @example
 * ```ts
 * const clock = shakaClockSync(player, refresher)
 * player.getNetworkingEngine()?.registerRequestFilter(clock.onRequest)
 * ```
 */
export function shakaClockSync(player: shaka.Player, refresher: TokenRefresher) {
  /** `server − client` when the presentation loaded: Shaka's timeline is built on that clock. */
  let base: number | undefined
  let offset = 0
  let lastWall = wallMinusMonotonic()
  // Read once per load: getManifest() is Shaka's only way to the timeline, and it warns on each
  // call that the manifest structure is internal.
  let timeline: { setClockOffset(offset: number): void } | undefined
  const apply = () => timeline?.setClockOffset(offset)
  // The server's word, from the last token response.
  const measured = () => {
    const skew = refresher.serverNow() - Date.now()
    base ??= skew
    offset = skew - base
    apply()
  }
  // Between two token responses: a jump of the wall clock against the monotonic clock is
  // undone at once, then re-measured (a sleeping laptop's jump is real and comes back as 0).
  const watch = () => {
    const wall = wallMinusMonotonic()
    const jumped = wall - lastWall
    lastWall = wall
    if (Math.abs(jumped) <= JUMP_MS || base === undefined) return
    offset -= jumped
    apply()
    refresher.refresh().catch(() => undefined)
  }
  const onLoaded = () => {
    base = undefined
    lastWall = wallMinusMonotonic()
    timeline = player.getManifest()?.presentationTimeline
    measured()
  }
  const timer = setInterval(watch, 100)
  player.addEventListener('loaded', onLoaded)
  refresher.addEventListener('tokenrefreshed', measured)
  return {
    /** A request filter: every request also checks the clock (two clock reads). */
    onRequest: () => watch(),
    detach() {
      clearInterval(timer)
      player.removeEventListener('loaded', onLoaded)
      refresher.removeEventListener('tokenrefreshed', measured)
    },
  }
}
