import type { AttemptOutcome, CdnAttempt, TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'

// shaka.util.Error.Code: BAD_HTTP_STATUS (data [uri, status, …]), HTTP_ERROR (no answer,
// data [uri, …]), TIMEOUT (no first bytes within connectionTimeout, data [uri, …])
const BAD_HTTP_STATUS = 1001
const HTTP_ERROR = 1002
const TIMEOUT = 1003

/** The `retry` event of Shaka's NetworkingEngine (a FakeEvent carrying the error). */
interface RetryEvent extends Event {
  error?: { code: number; data: unknown[] }
}

type Engine = shaka.net.NetworkingEngine
type PendingRequest = ReturnType<Engine['request']>

/** The attempt of each request under way, for the request filter (`tokenRequestFilter`). */
export const attemptOf = new WeakMap<shaka.extern.Request, CdnAttempt>()

/** What {@link engineAttempts} installs on a NetworkingEngine. */
export interface EngineAttempts {
  /** For the engine's `retry` event. */
  onRetry: (event: Event) => void
  /** Gives the engine its own `request` back. */
  detach: () => void
}

/** What a Shaka error says about the sending it ended, when it is the CDN's answer (or none). */
function outcomeOf({ code, data }: { code: number; data: unknown[] }): AttemptOutcome | undefined {
  if (code === TIMEOUT) return 'timeout'
  if (code === HTTP_ERROR) return 0
  return code === BAD_HTTP_STATUS ? Number(data[1]) : undefined
}

/**
 * Shaka's NetworkingEngine as a seam of the refresher's attempts (`refresher.attempt`): each
 * request the engine makes is one attempt, whose sendings the request filter
 * (`tokenRequestFilter`) puts on the CDN in use with its pair and, with several CDNs, bounds by
 * the attempt's first-byte timeout (Shaka's `connectionTimeout`). On a `retry`, the attempt is
 * told how the sending ended:
 *
 * - another CDN takes a failure of the CDN (several CDNs: a fresh token refused, a 5xx, no
 *   answer, no first bytes in time): the retry is cancelled, and the engine's `request`, wrapped
 *   on this instance, sends the request again at once (a new request's first sending has no
 *   delay), instead of after Shaka's retry delay (1 s and more, fuzzed);
 * - a refused token starts the refresher's recovery, and Shaka's retry (whose filter waits for
 *   the new pair) goes on, at most `MAX_RECOVERY_RETRIES` times per request: then, or when no
 *   refresh can help, the retry is cancelled and Shaka reports the error;
 * - anything else is Shaka's own retries' business.
 *
 * @example
 * ```ts
 * const attempts = engineAttempts(refresher, engine)
 * engine.registerRequestFilter(tokenRequestFilter(refresher))
 * engine.addEventListener('retry', attempts.onRetry)
 * ```
 */
export function engineAttempts(refresher: TokenRefresher, engine: Engine): EngineAttempts {
  /** Errors whose retry was cancelled because another CDN takes the request. */
  const moved = new WeakSet<object>()
  /** The attempts under way, by the URI of their last sending. */
  const live = new Set<CdnAttempt>()
  const send = engine.request
  const request: Engine['request'] = (type, shakaRequest, context) => {
    const attempt = refresher.attempt(shakaRequest.uris[0] ?? '')
    attemptOf.set(shakaRequest, attempt)
    live.add(attempt)
    const first = send.call(engine, type, shakaRequest, context)
    let current = first
    const settle = (operation: PendingRequest): Promise<unknown> =>
      operation.promise.catch((error: unknown) => {
        if (!moved.has(error as object)) throw error
        current = send.call(engine, type, shakaRequest, context)
        return settle(current)
      })
    // the player holds the first operation: its promise and abort follow the re-sent request
    const abortFirst = first.abort.bind(first)
    return Object.assign(first, {
      promise: settle(first).finally(() => live.delete(attempt)),
      abort: () => (current === first ? abortFirst() : current.abort()),
    })
  }
  engine.request = request
  return {
    onRetry(event) {
      const error = (event as RetryEvent).error
      const outcome = error && outcomeOf(error)
      if (!error || outcome === undefined) return
      // Shaka's retry event names no request: the one under way that sent this URI
      const uri = String(error.data[0])
      const attempt = [...live].find((candidate) => candidate.url === uri)
      const next = attempt?.failed(outcome)
      if (next === 'resend') moved.add(error)
      if (next === 'resend' || next === 'fail') event.preventDefault()
    },
    detach() {
      if (engine.request === request) engine.request = send
    },
  }
}

/**
 * The same as {@link engineAttempts}.
 *
 * @deprecated `engineAttempts`: the engine's seam covers refused tokens as well as CDN failures.
 * @example
 * ```ts
 * engine.addEventListener('retry', cdnFailover(refresher, engine).onRetry)
 * ```
 */
export const cdnFailover: (refresher: TokenRefresher, engine: Engine) => EngineAttempts =
  engineAttempts

/** @deprecated {@link EngineAttempts}. */
export type CdnFailoverOnEngine = EngineAttempts
