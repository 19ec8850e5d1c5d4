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
export class CdnAttempts {
  readonly #refresher: TokenRefresher
  /** The attempt the refresher already moved elsewhere (hls.js may ask twice for one failure). */
  #movedAttempt = -1
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(refresher: TokenRefresher) {
    this.#refresher = refresher
  }

  /**
   * Whether attempt number `attempt`, sent to `url` and answered `code` (0: no answer), goes
   * again at once on another CDN; the refresher switches CDN the first time it is asked.
   */
  failsOver(attempt: number, url: string, code: number): boolean {
    if (this.#movedAttempt === attempt) return true
    const failure = this.#refresher.cdnFailureOf(url, code)
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
   * `callbacks` that stop the timer when the attempt ends, and first offer an error to
   * `sentAgain` (with the URL the attempt was sent to): when it sends the request again on
   * another CDN (returns `true`), hls.js is not told.
   */
  callbacks(
    callbacks: LoaderCallbacks<LoaderContext>,
    sentAgain: (failed: { url: string; code: number }) => boolean,
  ): LoaderCallbacks<LoaderContext> {
    return {
      ...callbacks,
      onSuccess: (...args) => {
        this.clear()
        callbacks.onSuccess(...args)
      },
      onError: (error, context, details, stats) => {
        this.clear()
        if (!sentAgain({ url: context.url, code: error.code }))
          callbacks.onError(error, context, details, stats)
      },
      onTimeout: (...args) => {
        this.clear()
        callbacks.onTimeout(...args)
      },
    }
  }

  /**
   * `config` with a `shouldRetry` that first lets `failsOver` take CDN failures: hls.js's own
   * loaders ask it before they retry an error answer after a delay. Answering "no retry" for
   * those makes the loader report the error, which the loader then turns into an immediate send
   * on the next CDN.
   */
  config(config: LoaderConfiguration, failsOver: (url: string, code: number) => boolean) {
    const errorRetry = config.loadPolicy?.errorRetry
    if (!errorRetry || this.#refresher.cdnTimeoutMs === undefined) return config
    const own = errorRetry.shouldRetry
    const shouldRetry: RetryConfig['shouldRetry'] = (
      retryConfig,
      count,
      timeout,
      response,
      retry,
    ) => {
      if (response?.url && failsOver(response.url, response.code ?? 0)) return false
      return own ? own(retryConfig, count, timeout, response, retry) : retry
    }
    return {
      ...config,
      loadPolicy: { ...config.loadPolicy, errorRetry: { ...errorRetry, shouldRetry } },
    }
  }
}
