/**
 * The shared store (Redis) did not answer in time or is not reachable. The app answers it with a
 * 503 and `Retry-After: retryAfter` (seconds) rather than guessing: a revocation it cannot see
 * must not become "not revoked".
 *
 * @example
 * ```ts
 * try {
 *   await store.admitNetwork(session, network, 2)
 * } catch (err) {
 *   if (err instanceof StoreUnavailableError) return c.json({ error: err.message }, 503)
 *   throw err
 * }
 * ```
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError'
  /** Seconds after which trying again makes sense. */
  readonly retryAfter: number

  constructor(message: string, options: { cause?: unknown; retryAfter?: number } = {}) {
    super(message, { cause: options.cause })
    this.retryAfter = options.retryAfter ?? 1
  }
}
