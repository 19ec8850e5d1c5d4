import type { CdnAttempt } from '@proj/token-refresh'
import type { LoaderCallbacks, LoaderConfiguration, LoaderContext, RetryConfig } from 'hls.js'

// hls.js's side of a request's CdnAttempt (the core's): the loader's callbacks and its load
// policy, told to the attempt first. hls.js then never sees a failure that another CDN takes,
// so none of its retry delays (or stalls) apply. Refusals stay hls.js's: its load policies ask
// the refresher's `recover` themselves (retry-policy.ts), in the order hls.js handles errors.

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

/** Whether another CDN takes the attempt's failure: an error answer (`code`) or a timeout. */
const resends = (attempt: CdnAttempt, failure: { code: number } | 'timeout') =>
  attempt.failed(failure === 'timeout' ? failure : local.has(failure) ? 'local' : failure.code, {
    recover: false,
  }) === 'resend'

/**
 * `callbacks` that end the attempt's first-byte timer when a sending ends, and first tell an
 * error or a timeout (hls.js's own, shorter than the attempt's) to the attempt: when another CDN
 * takes it, `resend(timedOut)` sends it there and hls.js is not told. Once `current()` is false
 * (the sending was given up or replaced), every callback is dropped.
 *
 * @example
 * ```ts
 * super.load(context, config, attemptCallbacks(attempt, callbacks, () => this.loadInternal()))
 * ```
 */
export function attemptCallbacks(
  attempt: CdnAttempt,
  callbacks: LoaderCallbacks<LoaderContext>,
  resend: (timedOut: boolean) => void,
  current: () => boolean = () => true,
): LoaderCallbacks<LoaderContext> {
  const { onProgress } = callbacks
  const wrapped: LoaderCallbacks<LoaderContext> = {
    ...callbacks,
    onSuccess: (...args) => {
      if (!current()) return
      attempt.end()
      callbacks.onSuccess(...args)
    },
    onError: (error, context, details, stats) => {
      if (!current()) return
      if (resends(attempt, error)) resend(false)
      else callbacks.onError(error, context, details, stats)
    },
    onTimeout: (stats, context, details) => {
      if (!current()) return
      if (resends(attempt, 'timeout')) resend(true)
      else callbacks.onTimeout(stats, context, details)
    },
  }
  if (onProgress) wrapped.onProgress = (...args) => current() && onProgress(...args)
  return wrapped
}

/**
 * `config` with a `shouldRetry` that first tells the attempt: hls.js's own loaders ask it before
 * they retry an error answer or a timeout (its `maxTimeToFirstByteMs` may be shorter than the
 * attempt's bound) after a delay. "No retry" for a failure another CDN takes makes the loader
 * report it, which {@link attemptCallbacks} turns into an immediate sending there. Unchanged for
 * an attempt without a first-byte bound (one CDN, or not the video's URL).
 *
 * @example
 * ```ts
 * super.load(context, attemptConfig(attempt, config), callbacks)
 * ```
 */
export function attemptConfig(
  attempt: CdnAttempt,
  config: LoaderConfiguration,
): LoaderConfiguration {
  const policy = config.loadPolicy
  if (!policy || attempt.timeoutMs === undefined) return config
  const told = (retry: RetryConfig | null): RetryConfig | null => {
    if (!retry) return retry
    const own = retry.shouldRetry
    const shouldRetry: RetryConfig['shouldRetry'] = (
      retryConfig,
      count,
      timeout,
      response,
      retrying,
    ) =>
      !resends(attempt, timeout ? 'timeout' : { code: response?.code ?? 0 }) &&
      (own ? own(retryConfig, count, timeout, response, retrying) : retrying)
    return { ...retry, shouldRetry }
  }
  return {
    ...config,
    loadPolicy: {
      ...policy,
      errorRetry: told(policy.errorRetry),
      timeoutRetry: told(policy.timeoutRetry),
    },
  }
}
