import type { TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'

/** Wall-clock time minus monotonic time (ms): constant unless the wall clock jumps. */
const wallMinusMonotonic = () => Date.now() - performance.now()

// A change larger than this is a jump of the wall clock, not scheduling noise (ms).
const JUMP_MS = 2000

/** What {@link liveClock} (and `shakaClockSync`) give: a request filter and the way out. */
export interface ShakaClockSync {
  /** A request filter: every request also checks the clock (two clock reads). */
  onRequest: () => void
  detach(): void
}

/**
 * Keeps a live Shaka presentation on the server's time when the viewer's clock changes during
 * playback (loaded on demand by `shakaClockSync` when a live presentation has loaded: the
 * presentation is measured at once, as on Shaka's `loaded` event). Shaka places the live edge with `Date.now()`: a clock set 20 minutes back (or a
 * laptop whose clock is corrected) moves its live edge by as much and playback stalls, whatever
 * the token. The refresher knows the server's clock from each token response (`Date`), so the
 * change of `server − client` since the presentation loaded becomes Shaka's clock offset. A
 * jump of the wall clock against the monotonic clock (checked every 25 ms, on every request and
 * on every seek) is undone at once and re-measured with one refresh. Shaka may have seen the jump
 * first (its playhead checks the window every 250 ms): a forward jump leaves the playhead behind
 * the moved window and Shaka seeks to its live edge, seconds in the real future, where it would
 * wait for as long as the jump. That seek is undone too: the playhead goes back where it was.
 *
 * @example
 * ```ts
 * const clock = liveClock(player, refresher) // a live presentation has loaded
 * player.getNetworkingEngine()?.registerRequestFilter(clock.onRequest)
 * ```
 */
export function liveClock(player: shaka.Player, refresher: TokenRefresher): ShakaClockSync {
  /** `server − client` when the presentation loaded: Shaka's timeline is built on that clock. */
  let base: number | undefined
  let offset = 0
  let lastWall = wallMinusMonotonic()
  /** The playhead at the last check without a jump, and when (monotonic ms). */
  let position: { time: number; at: number } | undefined
  let media: HTMLMediaElement | null = null
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
    const before = position
    position = media ? { time: media.currentTime, at: performance.now() } : undefined
    if (Math.abs(jumped) <= JUMP_MS || base === undefined) return
    offset -= jumped
    apply()
    undoJumpSeek(before)
    refresher.refresh().catch(() => undefined)
  }
  // Shaka moved the playhead between the jump and its discovery (further than playback could
  // have taken it): back to where it was, if that is inside the window on the undone clock.
  const undoJumpSeek = (before: typeof position) => {
    if (!media || !before) return
    const elapsed = (performance.now() - before.at) / 1000
    if (Math.abs(media.currentTime - before.time) <= elapsed + 1) return
    const range = player.seekRange()
    if (before.time < range.start || before.time > range.end) return
    media.currentTime = before.time
    position = { time: before.time, at: performance.now() }
  }
  const onLoaded = () => {
    base = undefined
    lastWall = wallMinusMonotonic()
    timeline = player.getManifest()?.presentationTimeline
    media?.removeEventListener('seeking', watch)
    media = player.getMediaElement()
    media?.addEventListener('seeking', watch)
    position = undefined
    measured()
  }
  // every 25 ms (two clock reads): the shorter the gap after a jump, the rarer Shaka's own
  // 250-ms playhead check sees it first and seeks away (an undone seek costs a rebuffer)
  const timer = setInterval(watch, 25)
  player.addEventListener('loaded', onLoaded)
  refresher.addEventListener('tokenrefreshed', measured)
  onLoaded()
  return {
    onRequest: () => watch(),
    detach() {
      clearInterval(timer)
      media?.removeEventListener('seeking', watch)
      player.removeEventListener('loaded', onLoaded)
      refresher.removeEventListener('tokenrefreshed', measured)
    },
  }
}
