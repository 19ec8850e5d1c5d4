/** A token backend answered with something other than a 2xx status. */
export class TokenFetchError extends Error {
  override name = 'TokenFetchError'
  /** The backend's HTTP status. */
  readonly status: number
  /** How long the backend asked to wait (`Retry-After` of a 429 or 503), in ms. */
  readonly retryAfterMs: number | undefined
  constructor(status: number, message: string, retryAfterMs?: number) {
    super(message)
    this.status = status
    this.retryAfterMs = retryAfterMs
  }
}
