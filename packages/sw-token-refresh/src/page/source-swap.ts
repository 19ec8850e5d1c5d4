import { findTokenPair } from '@proj/signing/url'
import {
  type Clock,
  MAX_RECOVERY_RETRIES,
  type TimerHandle,
  type Timers,
  type TokenRefresher,
} from '@proj/token-refresh'

/** One switch of the `<video>` to a fresh URL, as measured. */
export interface SwapMeasurement {
  /**
   * `refresh`: planned, after a refresh; `rejected`: the element failed on its token, or (live)
   * stalled on an expired one; `session`: the one switch to a session URL, after which no swap
   * is needed.
   */
  reason: 'refresh' | 'rejected' | 'session'
  live: boolean
  /** From setting the new URL to `playing` again (ms); 0 when the element was paused. */
  gapMs: number
  /** VOD: how far the position moved across the swap (s); live: `undefined` (back to the edge). */
  driftSeconds: number | undefined
}

/** Options of {@link SourceSwap}. */
export interface SourceSwapOptions {
  /** Swap at the latest this long before the playing URL's token expires (ms). Default 2000. */
  marginMs?: number
  /** Monotonic milliseconds for the gap (`performance.now`). */
  now?: () => number
  /** The wall clock the refresher uses (`Date.now`), and timers: injected for tests. */
  clock?: Clock
  timers?: Timers
  /**
   * Asked before each planned swap: whether something else keeps the element's requests on
   * fresh pairs (a service worker that was seen moving them). `true` skips the swap, `false`
   * swaps; `undefined` (not known yet) defers the swap to the latest moment (`marginMs` before
   * the playing token expires), where it is taken as `false`. Default: always `false`.
   */
  handledElsewhere?: () => Promise<boolean | undefined> | boolean | undefined
  /**
   * Asked when a planned swap is to happen: a URL that never needs another swap (an edge
   * session URL, `GET /session`), or `undefined`. With one, the element is switched to it once
   * and the swap stops following the refresher.
   */
  replacement?: () => Promise<string | undefined> | string | undefined
}

interface Saved {
  time: number
  paused: boolean
  rate: number
  live: boolean
  track: { kind: string; label: string; language: string } | undefined
}

const HAVE_FUTURE_DATA = 3
// A recovery waits through an outage this many times `maxOutageWaitMs` (30 s: 10 min) at most.
const MAX_OUTAGE_WAITS = 20

/**
 * The native fallback without a service worker: keeps a `<video>` that plays HLS natively
 * (Safari, iPhones) on a valid token by switching it to the refresher's new URL and restoring
 * its state: VOD position, paused/playing, rate, text track (volume and muted survive a source
 * change); live goes back to the live edge.
 *
 * When it swaps: after each refresh, at once if the element is waiting or failed (nothing to
 * lose), else at the first stall, at the latest `marginMs` before the playing URL's token
 * expires. A paused element is not swapped at all until it is played again: then at once,
 * before it asks for media with an old pair. A playback error or a stall past the expiry waits
 * for a valid token (the core's `recover`; through a backend outage, until one arrives) and
 * swaps, at most `MAX_RECOVERY_RETRIES` times in a row without playing in between. A live
 * element stalled past the expiry is swapped in the very event that brings the new token, even
 * when a worker keeps its requests fresh: what the worker held would lead it into a gap.
 *
 * Events: `swap` (`CustomEvent<SwapMeasurement>`), `error` when a rejected token cannot be
 * recovered.
 *
 * @example
 * ```ts
 * const swap = new SourceSwap(video, refresher)
 * swap.start() // sets video.src
 * swap.addEventListener('swap', (event) => console.log(event.detail.gapMs))
 * ```
 */
export class SourceSwap extends EventTarget {
  /** Every swap so far that played (paused: loaded), in order. */
  readonly swaps: SwapMeasurement[] = []
  #video: HTMLMediaElement
  #refresher: TokenRefresher
  #marginMs: number
  #now: () => number
  /** The URL the element plays and when its token expires (client clock, ms). */
  #playingUrl = ''
  #expiresAt = Number.POSITIVE_INFINITY
  #due = false
  #swapping = false
  /** Which swap is the current one: the element's events cannot tell. */
  #swapCount = 0
  #timer: TimerHandle | undefined
  #clock: Clock
  #timers: Timers
  #handledElsewhere: NonNullable<SourceSwapOptions['handledElsewhere']>
  #replacement: SourceSwapOptions['replacement']
  #replaced = false
  #listening = false
  /** What the viewer wants, from play/pause events outside swaps (a swap pauses the element). */
  #wantsPlay = false
  /** Swaps forced by failures since the element last played: bounded by the core's policy. */
  #rejections = 0
  /** A recovery waits for a valid token: later failures join it. */
  #recovering = false

  constructor(video: HTMLMediaElement, refresher: TokenRefresher, options: SourceSwapOptions = {}) {
    super()
    this.#video = video
    this.#refresher = refresher
    this.#marginMs = options.marginMs ?? 2000
    this.#now = options.now ?? (() => performance.now())
    this.#clock = options.clock ?? Date
    this.#timers = options.timers ?? {
      set: (callback, ms) => setTimeout(callback, ms),
      clear: (handle) => clearTimeout(handle),
    }
    this.#handledElsewhere = options.handledElsewhere ?? (() => false)
    this.#replacement = options.replacement
  }

  /** Whether the element was switched to a replacement (a session): nothing left to do. */
  get replaced(): boolean {
    return this.#replaced
  }

  /**
   * Starts watching; with `setSource` (default) also points the element at the current URL,
   * else takes the element's current source as what it plays.
   */
  start(setSource = true): void {
    if (this.#listening) return
    this.#listening = true
    if (setSource) this.#video.src = this.#refresher.url
    this.#playingUrl = this.#video.currentSrc || this.#video.src || this.#refresher.url
    this.#expiresAt = this.#expiryOf(this.#playingUrl)
    this.#wantsPlay = !this.#video.paused || this.#video.autoplay
    this.#refresher.addEventListener('tokenrefreshed', this.#onRefresh)
    for (const type of ['pause', 'waiting', 'stalled'] as const)
      this.#video.addEventListener(type, this.#onIdle)
    this.#video.addEventListener('play', this.#onPlay)
    this.#video.addEventListener('error', this.#onError)
    // protection that starts after a refresh (a player that set its source itself)
    if (this.#refresher.url !== this.#playingUrl) this.#onRefresh()
  }

  /** Stops watching; the element keeps playing what it plays. */
  destroy(): void {
    this.#listening = false
    this.#clearTimer()
    this.#refresher.removeEventListener('tokenrefreshed', this.#onRefresh)
    for (const type of ['pause', 'waiting', 'stalled'] as const)
      this.#video.removeEventListener(type, this.#onIdle)
    this.#video.removeEventListener('play', this.#onPlay)
    this.#video.removeEventListener('error', this.#onError)
  }

  /** Client-clock ms at which the token in `url` expires (its pair is on the server's clock). */
  #expiryOf(url: string): number {
    const pair = findTokenPair(url)
    if (!pair) return Number.POSITIVE_INFINITY
    return pair.expires * 1000 - (this.#refresher.serverNow() - this.#clock.now())
  }

  #onRefresh = () => {
    if (this.#refresher.url === this.#playingUrl) return
    this.#due = true
    const video = this.#video
    if (video.error) return void this.#recover()
    // paused (or ended): nothing is fetched until it plays again, and #onPlay swaps then
    if (video.paused || video.ended) return this.#clearTimer()
    if (video.readyState < HAVE_FUTURE_DATA) {
      // Live, stalled on an expired token (an outage: a worker holds its requests): the held
      // playlist would come back with the window moved on, and Chromium's player, resuming
      // from its stall, seeks into the gap and fails. Reload at the live edge now, in this
      // event, before the worker can answer what it holds (it waits for the page's record).
      if (this.#isLive() && this.#clock.now() >= this.#expiresAt) return this.#swap('rejected')
      return void this.#planned(false)
    }
    this.#armDeadline()
  }

  #isLive(): boolean {
    return this.#video.duration === Number.POSITIVE_INFINITY
  }

  /** The latest moment for the due swap: `marginMs` before the playing token expires. */
  #armDeadline(): void {
    this.#clearTimer()
    const wait = this.#expiresAt - this.#marginMs - this.#clock.now()
    this.#timer = this.#timers.set(() => void this.#planned(true), Math.max(0, wait))
  }

  /** A due swap, unless the element's requests are kept fresh elsewhere (a service worker). */
  async #planned(deadline: boolean): Promise<void> {
    if (!this.#due || this.#swapping) return
    const elsewhere = await this.#handledElsewhere()
    if (!this.#due || !this.#listening) return
    if (elsewhere === true) {
      // the worker moves every request onto the current pair: the element plays that one
      this.#due = false
      this.#adopt(this.#refresher.url)
    } else if (elsewhere === false || deadline) await this.#swapOrReplace()
    else if (this.#timer === undefined) this.#armDeadline()
  }

  /** The due swap: to the replacement when there is one (for good), else to the new URL. */
  async #swapOrReplace(): Promise<void> {
    const url = this.#replacement
      ? await Promise.resolve()
          .then(this.#replacement)
          .catch(() => undefined)
      : undefined
    if (!this.#listening) return
    if (url === undefined) return this.#swap('refresh')
    this.#replaced = true
    this.#refresher.removeEventListener('tokenrefreshed', this.#onRefresh)
    // a session's leaves redirect to the CDN, another origin: Chromium plays a media element's
    // cross-origin redirect only in CORS mode (else a media error, no frame); the page's own
    // mode is kept
    this.#video.crossOrigin ??= 'anonymous'
    this.#swap('session', url)
  }

  #onPlay = () => {
    if (this.#swapping) return
    this.#wantsPlay = true
    // played after a pause: before the element asks for media with an old (maybe expired) pair
    if (this.#due) void this.#planned(true)
    else if (this.#clock.now() >= this.#expiresAt - this.#marginMs) void this.#catchUp(false)
  }

  #onIdle = (event: Event) => {
    if (this.#swapping) return
    if (event.type === 'pause') {
      // a failed element is paused by the browser (after its error event), not by the viewer
      if (!this.#video.error) this.#wantsPlay = false
      return this.#clearTimer()
    }
    // a paused element that stops loading is no stall
    if (this.#video.paused) return
    if (this.#due) void this.#planned(false)
    else if (this.#clock.now() >= this.#expiresAt) void this.#catchUp(true)
  }

  /**
   * The element stalls or starts past its token's life, with no new token yet (an outage): a
   * swap once one is valid, unless its requests are kept fresh elsewhere (a worker holds them
   * until then: the element goes on by itself, and a reload would only cost a restart).
   */
  async #catchUp(refused: boolean): Promise<void> {
    if (this.#replaced || (await this.#handledElsewhere()) === true) return
    await this.#recover(refused)
  }

  #onError = () => {
    // a failed swap ends the swap; recovery below is bounded by MAX_RECOVERY_RETRIES
    this.#swapping = false
    // a session that fails (revoked, ended) is not the refresher's to revive
    if (this.#replaced) return
    void this.#recover()
  }

  /**
   * The element failed, stalled on its token or is played after its token expired: a token that
   * is valid now (one refresh through the core; through a backend outage, as long as it lasts),
   * then a swap at its position.
   */
  async #recover(refused = true): Promise<void> {
    if (this.#recovering) return
    const refresher = this.#refresher
    const hopeless = this.#rejections >= MAX_RECOVERY_RETRIES || refresher.rejected
    if (hopeless || (refused && !this.#due && !refresher.recover(this.#playingUrl))) {
      this.dispatchEvent(
        new CustomEvent('error', {
          detail: new Error('the CDN refused the token and no refresh can help'),
        }),
      )
      return
    }
    this.#recovering = true
    try {
      await refresher.prepare(this.#playingUrl)
      // an outage longer than a token's life: prepare() holds up to maxOutageWaitMs at a time
      for (let i = 0; i < MAX_OUTAGE_WAITS; i++) {
        if (!this.#listening || !refresher.expired || refresher.rejected) break
        await refresher.prepare(refresher.url)
      }
    } finally {
      this.#recovering = false
    }
    if (this.#listening && (this.#video.error || this.#refresher.url !== this.#playingUrl))
      this.#swap('rejected')
  }

  /** The element's requests now carry `url`'s pair (swapped to it, or moved by a worker). */
  #adopt(url: string): void {
    this.#playingUrl = url
    this.#expiresAt = this.#expiryOf(url)
  }

  #swap(reason: SwapMeasurement['reason'], url = this.#refresher.url): void {
    if (!this.#listening || this.#swapping) return
    this.#clearTimer()
    this.#due = false
    if (reason === 'rejected') this.#rejections++
    const video = this.#video
    const saved = this.#save()
    const started = this.#now()
    this.#swapping = true
    this.#adopt(url)
    video.src = this.#playingUrl
    // Before metadata this sets the default playback start position: the element loads the
    // segment at the old position first instead of the first segment.
    if (!saved.live) video.currentTime = saved.time
    video.defaultPlaybackRate = saved.rate
    video.playbackRate = saved.rate
    const swap = ++this.#swapCount
    // A failed swap's listeners are still there at the element's next load (the recovery's, or
    // the page's own source after destroy()): that load is not theirs to seek or measure.
    const current = () => this.#listening && this.#swapping && swap === this.#swapCount
    const finish = (gapMs: number) => {
      if (!current()) return
      this.#swapping = false
      this.#rejections = 0
      const measurement: SwapMeasurement = {
        reason,
        live: saved.live,
        gapMs,
        driftSeconds: saved.live ? undefined : Math.abs(video.currentTime - saved.time),
      }
      this.swaps.push(measurement)
      this.dispatchEvent(new CustomEvent('swap', { detail: measurement }))
    }
    video.addEventListener(
      'loadedmetadata',
      () => {
        if (!current()) return
        if (!saved.live && Math.abs(video.currentTime - saved.time) > 0.1)
          video.currentTime = saved.time
        video.playbackRate = saved.rate
        this.#restoreTrack(saved.track)
        if (saved.paused) finish(0)
      },
      { once: true },
    )
    if (!saved.paused) {
      video.addEventListener('playing', () => finish(this.#now() - started), { once: true })
      video.play().catch(() => undefined)
    }
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#timers.clear(this.#timer)
    this.#timer = undefined
  }

  #save(): Saved {
    const video = this.#video
    const showing = [...video.textTracks].find((track) => track.mode === 'showing')
    const live = this.#isLive()
    return {
      time: video.currentTime,
      paused: !this.#wantsPlay,
      rate: video.playbackRate,
      live,
      track: showing && { kind: showing.kind, label: showing.label, language: showing.language },
    }
  }

  #restoreTrack(track: Saved['track']): void {
    if (!track) return
    const apply = () => {
      const match = [...this.#video.textTracks].find(
        (candidate) =>
          candidate.kind === track.kind &&
          candidate.label === track.label &&
          candidate.language === track.language,
      )
      if (match) match.mode = 'showing'
      return Boolean(match)
    }
    // native HLS announces subtitle tracks after the metadata, sometimes
    if (!apply()) this.#video.textTracks.addEventListener('addtrack', apply, { once: true })
  }
}
