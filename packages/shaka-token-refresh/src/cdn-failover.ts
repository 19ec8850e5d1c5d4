import type { CdnFailureReason, TokenRefresher } from '@proj/token-refresh'
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

/** What {@link cdnFailover} installs on a NetworkingEngine. */
export interface CdnFailoverOnEngine {
  /** For the engine's `retry` event, registered before the token recovery's. */
  onRetry: (event: Event) => void
  /** Gives the engine its own `request` back. */
  detach: () => void
}

/** Why Shaka's error is the failure of the CDN it came from, if it is (several CDNs only). */
function reasonOf(
  refresher: TokenRefresher,
  { code, data: [uri, status] }: { code: number; data: unknown[] },
): CdnFailureReason | undefined {
  if (typeof uri !== 'string') return undefined
  if (code === TIMEOUT) return 'timeout'
  if (code === HTTP_ERROR) return refresher.cdnFailureOf(uri, 0)
  return code === BAD_HTTP_STATUS ? refresher.cdnFailureOf(uri, Number(status)) : undefined
}

/**
 * Multi-CDN failover on one Shaka NetworkingEngine. Shaka waits out its retry delay (1 s and
 * more, fuzzed) before each new attempt, whatever failed; a CDN that fails is left at once
 * instead. On a `retry` after a CDN's failure (a fresh token refused, a 5xx, no answer, or no
 * first bytes within `refresher.cdnTimeoutMs`, which the request filter makes the attempt's
 * `connectionTimeout`), `refresher.cdnFailed` moves playback to the next CDN and the retry is
 * cancelled; the engine's `request`, wrapped on this instance, then sends the request again at
 * once (a new request's first attempt has no delay) and its request filter moves it onto the
 * CDN now active, with that CDN's token. At most one re-send per other CDN. With one CDN
 * `cdnFailed` is always false: nothing changes.
 *
 * @example
 * ```ts
 * const failover = cdnFailover(refresher, engine)
 * engine.addEventListener('retry', failover.onRetry)
 * ```
 */
export function cdnFailover(refresher: TokenRefresher, engine: Engine): CdnFailoverOnEngine {
  /** Errors whose retry was cancelled because another CDN takes the request. */
  const moved = new WeakSet<object>()
  /** Requests under way, each with its re-sends so far (at most one per other CDN). */
  const resends = new Map<shaka.extern.Request, number>()
  const others = () => (refresher.record.cdns?.length ?? 1) - 1
  const send = engine.request
  const request: Engine['request'] = (type, shakaRequest, context) => {
    const first = send.call(engine, type, shakaRequest, context)
    let current = first
    resends.set(shakaRequest, 0)
    const settle = (operation: PendingRequest): Promise<unknown> =>
      operation.promise.catch((error: unknown) => {
        if (!moved.has(error as object)) throw error
        resends.set(shakaRequest, (resends.get(shakaRequest) ?? 0) + 1)
        current = send.call(engine, type, shakaRequest, context)
        return settle(current)
      })
    // the player holds the first operation: its promise and abort follow the re-sent request
    const abortFirst = first.abort.bind(first)
    return Object.assign(first, {
      promise: settle(first).finally(() => resends.delete(shakaRequest)),
      abort: () => (current === first ? abortFirst() : current.abort()),
    })
  }
  engine.request = request
  return {
    onRetry(event) {
      const error = (event as RetryEvent).error
      const reason = error && reasonOf(refresher, error)
      if (!error || !reason) return
      const uri = String(error.data[0])
      // Shaka's retry event names no request: the one under way that sent this URI (the
      // engine's request object itself, its uris rewritten by the filter). Re-sent once per
      // other CDN already: Shaka's own retries go on, the CDN is not blamed again
      let sent = 0
      for (const [pending, count] of resends) if (pending.uris.includes(uri)) sent = count
      if (sent >= others() || !refresher.cdnFailed(uri, reason)) return
      moved.add(error)
      event.preventDefault()
    },
    detach() {
      if (engine.request === request) engine.request = send
    },
  }
}
