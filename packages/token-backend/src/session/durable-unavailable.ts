import { StoreUnavailableError } from '../store-unavailable.ts'

/** How often an isolate logs that the `SessionRegistry` Durable Object failed, at most. */
const LOG_EVERY_MS = 60_000
let loggedAt = Number.NEGATIVE_INFINITY

/**
 * Whether `error`, thrown by a call to a Durable Object, means the object could not answer (an
 * outage) rather than a bug. workerd says so itself: `retryable` (a lost connection, an object
 * reset by a deploy while the call ran), `overloaded`, `durableObjectReset` (a stub kept across a
 * reset of its object). Anything else is a bug to see as a 500: an error of the object's own code
 * (`remote`), a method it lacks, an argument that does not serialize, a binding to a class that
 * is no `DurableObject`; as an "outage" it would be a 503 for every viewer, for ever.
 */
function isOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { retryable, overloaded, durableObjectReset } = error as Record<string, unknown>
  return retryable === true || overloaded === true || durableObjectReset === true
}

/**
 * Runs one call to the `SessionRegistry` Durable Object and makes its outage a
 * {@link StoreUnavailableError}, as the Redis stores do: the app then fails closed (a JSON 503 with
 * `Retry-After`) and lets the sessions and streams this isolate saw active play through it
 * (`cachedSessionStore`, the stream gate), instead of a 500 for every playing viewer while the
 * object restarts. The outage is logged once a minute per isolate (the 503 sends no detail); any
 * other error (the object's own code, a call that cannot be made) is thrown as it is.
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

/**
 * The objects of `namespace` by name, every call to one through {@link askDurableObject}: the one
 * wrapper of the Durable Object stores (sessions, streams), so an outage reads the same in both.
 * The stub is taken inside the call: a `getByName` that fails as an outage is one too, and one
 * that fails otherwise (a binding that is no namespace: a plain `TypeError`) stays a 500.
 *
 * @example
 * ```ts
 * const object = durableObjects(env.SESSION_REGISTRY)
 * const revokedAt = await object(`session:${sid}`)((stub) => stub.revokedAt())
 * ```
 */
export function durableObjects<Stub>(namespace: { getByName(name: string): Stub }) {
  return (name: string) =>
    <T>(call: (stub: Stub) => Promise<T>): Promise<T> =>
      askDurableObject(() => call(namespace.getByName(name)))
}
