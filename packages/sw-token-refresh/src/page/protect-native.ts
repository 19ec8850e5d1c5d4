import type { Clock, ProtectionMode, Timers, TokenRefresher } from '@proj/token-refresh'
import { SourceSwap, type SwapMeasurement } from './source-swap.ts'
import type { TokenRefreshWorker } from './worker-connection.ts'

/**
 * How native playback is kept on a valid token: the service worker moves its requests, an edge
 * session URL needs no refresh at all, or the element is swapped to each new URL.
 */
export type NativeMode = Exclude<ProtectionMode, 'hooks'>

/** Options of {@link protectNativePlayback}. */
export interface NativeProtectionOptions {
  /** The page's worker connection (`registerTokenRefreshWorker()`), or its pending promise. */
  worker?: TokenRefreshWorker | Promise<TokenRefreshWorker> | undefined
  /**
   * `auto` (default): the worker when it is there and sees this element's media, else a session
   * URL (with `getSessionUrl`), else source swaps.
   */
  mode?: 'auto' | NativeMode
  /**
   * Fetches an edge session URL for the video (your backend's `GET /session`): the rung between
   * the service worker and source swaps. A session plays any length with no swap at all.
   */
  getSessionUrl?: (() => Promise<string>) | undefined
  /** Point the element at `refresher.url` (default). `false` when a player sets the source. */
  setSource?: boolean
  /** The swap's wall clock and timers (the refresher's, in tests). */
  clock?: Clock
  timers?: Timers
}

/** What {@link protectNativePlayback} set up. */
export interface NativeProtection {
  /**
   * The mode in force: `service-worker` while the worker protects the video (in `auto`, until a
   * swap fell due and the worker had seen none of the element's media), else `swap`.
   */
  readonly mode: NativeMode
  /** The swaps so far: planned ones (swap mode) and revivals after a playback error. */
  readonly swaps: readonly SwapMeasurement[]
  /** Ends the protection; the element keeps its source. */
  destroy(): void
}

/**
 * Protects a `<video>` that plays HLS natively (Safari, iPhones, Chromium's built-in HLS), where
 * no player hook exists. With a service worker every request of the element is moved onto the
 * current pair; without one (or when the browser does not show the element's media requests to
 * it, as Safari may) the element is switched to each new URL with its state restored.
 *
 * In `auto` the element gets its source at once: the first token is valid for a whole lifetime,
 * so the first frame never waits for the worker to take control of the page. Worker or swap is
 * decided from evidence, not timing: when a swap falls due (after a refresh, at the latest just
 * before the playing token expires), the worker is asked whether it has moved media requests
 * made by a media element of this video. Yes: the worker protects it, and no swap ever happens.
 * No: this swap happens, and the question is asked again at the next one. In every mode an
 * element that fails anyway (a backend outage longer than a token's life) is reloaded at its
 * position as soon as a valid token is there, without a page reload; a live element stalled
 * through such an outage is reloaded at the live edge then, before it can fail.
 *
 * @example
 * ```ts
 * const worker = registerTokenRefreshWorker() // once per page, early
 * const refresher = await TokenRefresher.create({ getToken, refreshLeadSeconds: 10 })
 * const protection = await protectNativePlayback(video, refresher, { worker })
 * protection.mode // 'service-worker' or 'swap'
 * ```
 */
export async function protectNativePlayback(
  video: HTMLMediaElement,
  refresher: TokenRefresher,
  options: NativeProtectionOptions = {},
): Promise<NativeProtection> {
  const { mode = 'auto', setSource = true, getSessionUrl } = options
  if (mode === 'session' || (mode === 'auto' && getSessionUrl && !options.worker)) {
    if (!getSessionUrl) throw new Error('mode "session" needs getSessionUrl')
    // nothing else will protect this element: the session from the first request on
    const url = await getSessionUrl()
    // CORS mode for the redirects to the CDN (see SourceSwap's switch to a session)
    video.crossOrigin ??= 'anonymous'
    video.src = url
    return { mode: 'session', swaps: [], destroy() {} }
  }
  let connection: TokenRefreshWorker | undefined
  let release: (() => void) | undefined
  let destroyed = false
  /** The worker was seen moving this element's media: it protects the video, for good. */
  let workerSeesElement = false
  let fellBack = false

  // An explicit service-worker mode insists on the worker: it throws before touching the element.
  if (mode === 'service-worker') {
    if (!options.worker) throw new Error('no worker was given (registerTokenRefreshWorker)')
    connection = await options.worker
    release = await connection.protect(refresher)
  }

  const swap = new SourceSwap(video, refresher, {
    ...(options.clock && { clock: options.clock }),
    ...(options.timers && { timers: options.timers }),
    handledElsewhere: async () => {
      if (mode === 'service-worker' || workerSeesElement) return true
      if (!connection) return false
      const seen = await connection.seen(refresher.url)
      workerSeesElement = (seen?.element ?? 0) > 0
      return workerSeesElement || undefined
    },
    // the worker does not see this element: one switch to a session rather than one per token
    ...(getSessionUrl && mode === 'auto' && { replacement: getSessionUrl }),
  })
  swap.addEventListener('swap', (event) => {
    const { reason } = (event as CustomEvent<SwapMeasurement>).detail
    if (reason === 'session')
      return console.info('[token-refresh] native playback moved to an edge session: no more swaps')
    if (reason !== 'refresh' || workerSeesElement || fellBack || !connection) return
    fellBack = true
    console.info(
      '[token-refresh] the service worker saw no media request of this element: source swaps take over',
    )
  })
  swap.start(setSource)

  if (mode === 'auto') {
    const connecting = options.worker
      ? Promise.resolve(options.worker)
      : Promise.reject(new Error('no worker was given (registerTokenRefreshWorker)'))
    void connecting.then(
      async (worker) => {
        const ends = await worker.protect(refresher)
        if (destroyed) return ends()
        connection = worker
        release = ends
      },
      (error: unknown) =>
        console.info(`[token-refresh] native playback protected by source swaps: ${String(error)}`),
    )
  }

  return {
    get mode() {
      if (mode !== 'auto') return mode
      if (swap.replaced) return 'session'
      return connection && (workerSeesElement || !fellBack) ? 'service-worker' : 'swap'
    },
    swaps: swap.swaps,
    destroy() {
      destroyed = true
      release?.()
      release = undefined
      swap.destroy()
    },
  }
}
