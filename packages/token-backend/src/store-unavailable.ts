/**
 * The shared store (Redis, or yours) did not answer in time or is not reachable. Thrown by a
 * `SessionStore` or a `ViewerLimit`, the app answers it with a JSON 503 and
 * `Retry-After: retryAfter` (seconds) rather than guessing: a revocation it cannot see must not
 * become "not revoked", a limit it cannot count must not become "allowed". Runtime-agnostic: a
 * store of your own on Workers throws it too.
 *
 * @example
 * ```ts
 * const store: SessionStore = {
 *   async isRevoked(session) {
 *     const reply = await fetch(`${api}/revoked/${session.sid}`).catch((cause) => {
 *       throw new StoreUnavailableError('revocation API unreachable', { cause, retryAfter: 2 })
 *     })
 *     return (await reply.json()) === true
 *   },
 *   // …
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
