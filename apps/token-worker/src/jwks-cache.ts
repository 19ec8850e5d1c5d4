import { HTTPException } from 'hono/http-exception'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'

/** Options of {@link JwksCache}; times in milliseconds. */
export interface JwksCacheOptions {
  /** The key server's JWKS URL. */
  url: string
  /** How long fetched keys are used without asking again. Default 300000 (5 min). */
  ttlMs?: number
  /**
   * The least time between two fetches once keys are in hand, also for an unknown `kid` (forged
   * tokens). Default 30000.
   */
  minIntervalMs?: number
  /**
   * With no keys in hand (a key server down at the first viewer request), the first retry waits
   * this long, doubling per failure up to `coldMaxMs`. Default 1000.
   */
  coldBaseMs?: number
  /** The longest wait between two fetches while no keys were ever fetched. Default 8000. */
  coldMaxMs?: number
  /** A key server that has not answered by then counts as down. Default 3000. */
  timeoutMs?: number
  fetch?: typeof fetch
  now?: () => number
}

/**
 * The viewer-JWT key set of a JWKS URL, cached on every runtime (Workers and Node alike): fetched
 * once per TTL, again early only for an unknown `kid` and never more than once per
 * `minIntervalMs` (a flood of forged tokens cannot turn into a flood of fetches), with a timeout.
 * A key server that fails keeps the last keys in use; with no keys at all the request is
 * answered 503 with `Retry-After` (the viewer is not to blame) and the fetch is retried soon:
 * after `coldBaseMs`, doubling up to `coldMaxMs`, one fetch at a time, so viewers are served
 * within seconds of the key server's return instead of after the long floor.
 *
 * @example
 * ```ts
 * const cache = new JwksCache({ url: 'https://auth.example.com/.well-known/jwks.json' })
 * const keys = await cache.keysFor(kidOf(authorizationHeader))
 * ```
 */
export class JwksCache {
  #options: Required<Omit<JwksCacheOptions, 'fetch' | 'now'>> & {
    fetch: typeof fetch
    now: () => number
  }
  #keys: HonoJsonWebKey[] | undefined
  #fetchedAt = Number.NEGATIVE_INFINITY
  #attemptedAt = Number.NEGATIVE_INFINITY
  #inflight: Promise<void> | undefined
  /** Failed fetches in a row while no keys were ever fetched (the cold backoff). */
  #coldFailures = 0
  /** Fetches made so far (for tests and logs). */
  fetches = 0

  constructor(options: JwksCacheOptions) {
    this.#options = {
      ttlMs: 300_000,
      minIntervalMs: 30_000,
      coldBaseMs: 1000,
      coldMaxMs: 8000,
      timeoutMs: 3000,
      fetch: (input, init) => fetch(input, init),
      now: () => Date.now(),
      ...options,
    }
  }

  /** The keys to verify a token whose header names `kid`. @throws HTTPException 503 */
  async keysFor(kid: string | undefined): Promise<HonoJsonWebKey[]> {
    const { now, ttlMs } = this.#options
    const at = now()
    const known = kid === undefined || !!this.#keys?.some((key) => key.kid === kid)
    const stale = at >= this.#fetchedAt + ttlMs
    if ((stale || !known) && at >= this.#nextFetchAt()) {
      this.#inflight ??= this.#fetch().finally(() => {
        this.#inflight = undefined
      })
      await this.#inflight
    } else if (this.#inflight) await this.#inflight
    if (this.#keys) return this.#keys
    const retryAfter = Math.max(1, Math.ceil((this.#nextFetchAt() - now()) / 1000))
    throw new HTTPException(503, {
      message:
        'viewer tokens cannot be verified right now: the key server (JWT_JWKS_URL) is unavailable',
      res: new Response(null, { status: 503, headers: { 'Retry-After': String(retryAfter) } }),
    })
  }

  /**
   * The earliest time of the next fetch: the long floor once keys exist (it guards against
   * floods of unknown `kid`s); without any, a short backoff (nothing to protect but the key
   * server, and every viewer is waiting).
   */
  #nextFetchAt(): number {
    const { minIntervalMs, coldBaseMs, coldMaxMs } = this.#options
    if (this.#keys || this.#coldFailures === 0) return this.#attemptedAt + minIntervalMs
    const backoff = Math.min(coldMaxMs, minIntervalMs, coldBaseMs * 2 ** (this.#coldFailures - 1))
    return this.#attemptedAt + backoff
  }

  async #fetch(): Promise<void> {
    const { url, timeoutMs, now } = this.#options
    this.#attemptedAt = now()
    this.fetches++
    try {
      const response = await this.#options.fetch(url, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
      })
      if (!response.ok) throw new Error(`answered ${response.status}`)
      const body = (await response.json()) as { keys?: unknown }
      if (!Array.isArray(body.keys) || body.keys.length === 0) throw new Error('no "keys" array')
      this.#keys = body.keys as HonoJsonWebKey[]
      this.#fetchedAt = this.#attemptedAt
      this.#coldFailures = 0
    } catch (error) {
      if (!this.#keys) this.#coldFailures++
      console.error(
        `token-worker: JWKS fetch failed (${this.#keys ? 'keeping the last keys' : 'no keys'}): ${String(error)}`,
      )
    }
  }
}

/**
 * The `kid` in the header of the bearer JWT of an `Authorization` header, if any.
 *
 * @example
 * ```ts
 * kidOf(c.req.header('authorization')) // 'key-2026-11'
 * ```
 */
export function kidOf(authorization: string | undefined): string | undefined {
  const token = /^Bearer\s+([^.\s]+)\./i.exec(authorization ?? '')?.[1]
  if (!token) return undefined
  try {
    const header: unknown = JSON.parse(atob(token.replace(/-/g, '+').replace(/_/g, '/')))
    const kid = (header as { kid?: unknown }).kid
    return typeof kid === 'string' ? kid : undefined
  } catch {
    return undefined
  }
}
