import type { TokenRefresher } from '@proj/token-refresh'
import type { LoaderCallbacks, LoaderConfiguration, LoaderContext, RetryConfig } from 'hls.js'

/**
 * The multi-CDN side of one loader: whether a failed attempt is sent again at once on another
 * CDN (an error answer the refresher classifies as its CDN's, or no first byte within
 * `refresher.cdnTimeoutMs`). hls.js never sees such a failure, so none of its retry delays (or
 * stalls) apply. With one CDN nothing here acts: the refresher says no, hls.js decides as before.
 *
 * @example
 * ```ts
 * const cdn = new CdnAttempts(refresher)
 * if (cdn.failsOver(attempt, context.url, status)) this.loadInternal()
 * ```
 */
/** Errors this package made itself (a hook or the loader threw): no CDN failed. */
const local = new WeakSet<object>()

/**
 * The error a loader reports when sending threw on this side (a throwing `xhrSetup`, a page
 * loader's `load`): code 0 like a request without answer, but never a reason to leave a CDN.
 *
 * @example
 * ```ts
 * callbacks.onError(localError(error), context, null, stats)
 * ```
 */
export function localError(error: unknown): { code: number; text: string } {
  const made = { code: 0, text: String(error) }
  local.add(made)
  return made
}

/** A failed attempt's answer (0: none) or `'timeout'`, no (first) byte in time. */
export type AttemptFailure = number | 'timeout'

export class CdnAttempts {
  readonly #refresher: TokenRefresher
  /** The attempt the refresher already moved elsewhere (hls.js may ask twice for one failure). */
  #movedAttempt = -1
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(refresher: TokenRefresher) {
    this.#refresher = refresher
  }

  /**
   * Whether attempt number `attempt`, sent to `url` and answered `code` (0: no answer) or timed
   * out, goes again at once on another CDN; the refresher switches CDN the first time it is asked.
   */
  failsOver(attempt: number, url: string, code: AttemptFailure): boolean {
    if (this.#movedAttempt === attempt) return true
    const failure = code === 'timeout' ? code : this.#refresher.cdnFailureOf(url, code)
    if (failure === undefined || !this.#refresher.cdnFailed(url, failure)) return false
    this.#movedAttempt = attempt
    return true
  }

  /**
   * Arms the time-to-first-byte timer of an attempt just sent to `url` (with several CDNs):
   * when it fires before `firstByte()` and the refresher has another CDN, `resend` sends the
   * attempt there. Without another CDN the player's own timeouts go on.
   */
  watch(url: string, firstByte: () => boolean, resend: () => void): void {
    this.clear()
    const ms = this.#refresher.cdnTimeoutMs
    if (ms === undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (!firstByte() && this.#refresher.cdnFailed(url, 'timeout')) resend()
    }, ms)
  }

  /** Stops the timer of the current attempt (it answered, was aborted, or is sent again). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /**
   * `callbacks` that stop the timer when the attempt ends, and first offer an error or a
   * timeout (the player's own, shorter than `cdnTimeoutMs`) to `sentAgain` (with the URL the
   * attempt was sent to): when it sends the request again on another CDN (returns `true`),
   * hls.js is not told. Errors made by {@link localError} go to hls.js. Once `current()` is
   * false (the attempt was given up or replaced), every callback is dropped.
   */
  callbacks(
    callbacks: LoaderCallbacks<LoaderContext>,
    sentAgain: (failed: { url: string; code: AttemptFailure }) => boolean,
    current: () => boolean = () => true,
  ): LoaderCallbacks<LoaderContext> {
    const { onProgress } = callbacks
    const wrapped: LoaderCallbacks<LoaderContext> = {
      ...callbacks,
      onSuccess: (...args) => {
        if (!current()) return
        this.clear()
        callbacks.onSuccess(...args)
      },
      onError: (error, context, details, stats) => {
        if (!current()) return
        this.clear()
        if (local.has(error) || !sentAgain({ url: context.url, code: error.code }))
          callbacks.onError(error, context, details, stats)
      },
      onTimeout: (stats, context, details) => {
        if (!current()) return
        this.clear()
        if (!sentAgain({ url: context.url, code: 'timeout' }))
          callbacks.onTimeout(stats, context, details)
      },
    }
    if (onProgress) wrapped.onProgress = (...args) => current() && onProgress(...args)
    return wrapped
  }

  /**
   * `config` with a `shouldRetry` that first lets `failsOver` take CDN failures: hls.js's own
   * loaders ask it before they retry an error answer or a timeout (its `maxTimeToFirstByteMs`
   * may be shorter than `cdnTimeoutMs`) after a delay. Answering "no retry" for those makes the
   * loader report the error or timeout, which the loader then turns into an immediate send on
   * the next CDN. `sent` is the URL of the attempt (a timeout has no response to tell it).
   */
  config(
    config: LoaderConfiguration,
    failsOver: (url: string, code: AttemptFailure) => boolean,
    sent: () => string,
  ): LoaderConfiguration {
    const policy = config.loadPolicy
    if (!policy || this.#refresher.cdnTimeoutMs === undefined) return config
    const offered = (retry: RetryConfig | null): RetryConfig | null => {
      if (!retry) return retry
      const own = retry.shouldRetry
      const shouldRetry: RetryConfig['shouldRetry'] = (
        retryConfig,
        count,
        timeout,
        response,
        retrying,
      ) => {
        const url = timeout ? sent() : response?.url
        if (url && failsOver(url, timeout ? 'timeout' : (response?.code ?? 0))) return false
        return own ? own(retryConfig, count, timeout, response, retrying) : retrying
      }
      return { ...retry, shouldRetry }
    }
    const { errorRetry, timeoutRetry } = policy
    return {
      ...config,
      loadPolicy: {
        ...policy,
        errorRetry: offered(errorRetry),
        timeoutRetry: offered(timeoutRetry),
      },
    }
  }
}
