import { StoreUnavailableError } from '../store-unavailable.ts'

/** How often an isolate logs that the `SessionRegistry` Durable Object failed, at most. */
const LOG_EVERY_MS = 60_000
let loggedAt = Number.NEGATIVE_INFINITY

/**
 * Whether `error`, thrown by a call to a Durable Object, means the object could not answer (an
 * outage), rather than that its own code threw. The runtime marks the latter `remote` (a bug, a
 * method the object lacks: a 500 that must be seen in the logs) and an outage `retryable` or
 * `overloaded` (an object reset by a deploy, a lost connection, an overloaded object); an error
 * without `remote` never reached the object's code (a broken stub).
 */
function isOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true
  const { remote, retryable, overloaded } = error as Record<string, unknown>
  return remote !== true || retryable === true || overloaded === true
}

/**
 * Runs one call to the `SessionRegistry` Durable Object and makes its outage a
 * {@link StoreUnavailableError}, as the Redis stores do: the app then fails closed (a JSON 503 with
 * `Retry-After`) and lets the sessions and streams this isolate saw active play through it
 * (`cachedSessionStore`, the stream gate), instead of a 500 for every playing viewer while the
 * object restarts. The outage is logged once a minute per isolate (the 503 sends no detail); an
 * error of the object's own code is thrown as it is.
 *
 * @example
 * ```ts
 * const revokedAt = await askDurableObject(() => registry.getByName(`session:${sid}`).revokedAt())
 * ```
 */
export async function askDurableObject<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (!isOutage(error)) throw error
    const nowMs = Date.now()
    if (nowMs - loggedAt >= LOG_EVERY_MS) {
      loggedAt = nowMs
      console.error(`token-backend: the SessionRegistry Durable Object did not answer: ${error}`)
    }
    throw new StoreUnavailableError('the SessionRegistry Durable Object did not answer', {
      cause: error,
    })
  }
}
