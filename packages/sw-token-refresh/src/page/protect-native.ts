import type { TokenRefresher } from '@proj/token-refresh'
import { SourceSwap, type SwapMeasurement } from './source-swap.ts'
import type { TokenRefreshWorker } from './worker-connection.ts'

/** How native playback is kept on a valid token. */
export type NativeMode = 'service-worker' | 'swap'

/** Options of {@link protectNativePlayback}. */
export interface NativeProtectionOptions {
  /** The page's worker connection (`registerTokenRefreshWorker()`), or its pending promise. */
  worker?: TokenRefreshWorker | Promise<TokenRefreshWorker> | undefined
  /** `auto` (default): the worker when it is there and sees this element's media, else the swap. */
  mode?: 'auto' | NativeMode
  /** Point the element at `refresher.url` (default). `false` when a player sets the source. */
  setSource?: boolean
}

/** What {@link protectNativePlayback} set up. */
export interface NativeProtection {
  /** The mode in force (an `auto` worker that sees no media requests turns into `swap`). */
  readonly mode: NativeMode
  /** The swaps so far (swap mode). */
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
 * Detection in `auto`: once the element can play, the worker is asked how many media segments of
 * this video it has seen; none means it cannot protect them, and the swap takes over.
 *
 * @example
 * ```ts
 * const worker = registerTokenRefreshWorker() // once per page, early
 * const refresher = await TokenRefresher.create({ getToken, refreshLeadSeconds: 10 })
 * const protection = await protectNativePlayback(video, refresher, { worker })
 * protection.mode // 'service-worker' or 'swap'
 * ```
 */
export const protectNativePlayback = async (
  video: HTMLMediaElement,
  refresher: TokenRefresher,
  options: NativeProtectionOptions = {},
): Promise<NativeProtection> => {
  const { mode = 'auto', setSource = true } = options
  let worker: TokenRefreshWorker | undefined
  if (mode !== 'swap')
    try {
      if (!options.worker) throw new Error('no worker was given (registerTokenRefreshWorker)')
      worker = await options.worker
    } catch (error) {
      if (mode === 'service-worker') throw error
      console.info(`[token-refresh] native playback protected by source swaps: ${String(error)}`)
    }

  const swap = new SourceSwap(video, refresher)
  let current: NativeMode = worker ? 'service-worker' : 'swap'
  let release: (() => void) | undefined
  const fallBack = () => {
    current = 'swap'
    swap.start(false)
  }
  const check = async () => {
    const seen = await worker?.seen(refresher.url)
    if (seen?.media || !release) return
    console.info(
      '[token-refresh] the service worker saw no media request of this video: source swaps take over',
    )
    fallBack()
  }
  const onCanPlay = () => void check()

  if (worker) {
    release = await worker.protect(refresher)
    if (setSource) video.src = refresher.url
    if (mode === 'auto') {
      if (video.readyState >= 3) void check()
      else video.addEventListener('canplay', onCanPlay, { once: true })
    }
  } else swap.start(setSource)

  return {
    get mode() {
      return current
    },
    swaps: swap.swaps,
    destroy() {
      video.removeEventListener('canplay', onCanPlay)
      release?.()
      release = undefined
      swap.destroy()
    },
  }
}
