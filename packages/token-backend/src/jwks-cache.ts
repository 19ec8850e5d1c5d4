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
   * With no keys in hand, the least time between the starts of two fetches. A viewer arriving
   * sooner waits for that next fetch instead of being refused. Default 1000.
   */
  retryMs?: number
  /** A key server that has not answered by then counts as down. Default 3000. */
  timeoutMs?: number
  fetch?: typeof fetch
  now?: () => number
}

/** One fetch of the key set, shared by every request that waits for it (single flight). */
interface Attempt {
  /** Resolves (never rejects) once the fetch has ended. */
  done: Promise<void>
  /** Whether the fetch has left; false while it waits for its turn (`retryMs`). */
  started: boolean
  settled: boolean
  /** When it must have ended: its turn plus `timeoutMs`. */
  endsBy: number
}

/**
 * Past `endsBy`, how long a waiter still gives an attempt before giving up on it. An attempt ends
 * by its own timeout; this only matters on Workers, where a request that started the fetch and
 * was cancelled (the viewer went away) can take the fetch, and its timer, with it.
 */
const SETTLE_GRACE_MS = 250

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * The viewer-JWT key set of a JWKS URL, cached on every runtime (Workers and Node alike): fetched
 * once per TTL, again early only for an unknown `kid` and never more than once per
 * `minIntervalMs` (a flood of forged tokens cannot turn into a flood of fetches), with a timeout.
 * Only one fetch is in flight at a time, whatever the number of waiting viewers. A key server
 * that fails keeps the last keys in use. With no keys at all, every viewer waits for a fetch that
 * starts no earlier than its request (at most one per `retryMs`, so at most that far away), and
 * is answered 503 with `Retry-After` (the viewer is not to blame) only if that fetch fails: no
 * window refuses viewers once the key server answers again. No request waits much longer than
 * `retryMs + timeoutMs` (4 s by default).
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
  /** When the last fetch left. */
  #attemptedAt = Number.NEGATIVE_INFINITY
  #attempt: Attempt | undefined
  /** Fetches made so far (for tests and logs). */
  fetches = 0

  constructor(options: JwksCacheOptions) {
    this.#options = {
      ttlMs: 300_000,
      minIntervalMs: 30_000,
      retryMs: 1000,
      timeoutMs: 3000,
      fetch: (input, init) => fetch(input, init),
      now: () => Date.now(),
      ...options,
    }
  }

  /** The keys to verify a token whose header names `kid`. @throws HTTPException 503 */
  async keysFor(kid: string | undefined): Promise<HonoJsonWebKey[]> {
    const { now, ttlMs, minIntervalMs, retryMs } = this.#options
    const arrivedAt = now()
    const held = this.#keys
    if (held) {
      const known = kid === undefined || held.some((key) => key.kid === kid)
      if (known && arrivedAt < this.#fetchedAt + ttlMs) return held
      const attempt =
        this.#pending() ??
        (arrivedAt >= this.#attemptedAt + minIntervalMs ? this.#start(0) : undefined)
      if (attempt) await this.#settled(attempt)
      return this.#keys ?? held
    }
    // No keys: nothing to serve, so the viewer waits for a fetch that starts after it arrived.
    // Joining one that left before it (and failed) would refuse a viewer whose key server may
    // have come back in the meantime, so such a viewer waits for the next one, if that comes
    // within `retryMs` (a fetch that failed fast: the key server refused or answered an error).
    const pending = this.#pending()
    const leftBefore = pending?.started === true
    await this.#settled(pending ?? this.#start(this.#untilNextTurn()))
    if (!this.#keys && leftBefore && now() - arrivedAt < retryMs)
      await this.#settled(this.#pending() ?? this.#start(this.#untilNextTurn()))
    if (this.#keys) return this.#keys
    throw new HTTPException(503, {
      message:
        'viewer tokens cannot be verified right now: the key server (JWT_JWKS_URL) is unavailable',
      res: new Response(null, {
        status: 503,
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryMs / 1000))) },
      }),
    })
  }

  /** The attempt in flight (or waiting for its turn), unless it can no longer end. */
  #pending(): Attempt | undefined {
    const attempt = this.#attempt
    if (!attempt || attempt.settled) return undefined
    return this.#options.now() < attempt.endsBy + SETTLE_GRACE_MS ? attempt : undefined
  }

  /** With no keys, how long until the next fetch may leave (0: now). */
  #untilNextTurn(): number {
    return Math.max(0, this.#attemptedAt + this.#options.retryMs - this.#options.now())
  }

  /** A new attempt, leaving after `delayMs`; every request from now on shares it. */
  #start(delayMs: number): Attempt {
    const endsBy = this.#options.now() + delayMs + this.#options.timeoutMs
    const attempt: Attempt = { done: Promise.resolve(), started: false, settled: false, endsBy }
    attempt.done = (async () => {
      if (delayMs > 0) await sleep(delayMs)
      attempt.started = true
      await this.#fetch()
    })().finally(() => {
      attempt.settled = true
    })
    this.#attempt = attempt
    return attempt
  }

  /** Waits for an attempt, but never past its end (see {@link SETTLE_GRACE_MS}). */
  async #settled(attempt: Attempt): Promise<void> {
    const waitMs = Math.max(0, attempt.endsBy + SETTLE_GRACE_MS - this.#options.now())
    let timer: ReturnType<typeof setTimeout> | undefined
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs)
    })
    const lost = await Promise.race([attempt.done.then(() => false), givenUp.then(() => true)])
    clearTimeout(timer)
    // the next request starts a new fetch instead of joining this one
    if (lost && this.#attempt === attempt) this.#attempt = undefined
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
      const body: unknown = await response.json()
      const listed = isRecord(body) && Array.isArray(body.keys) ? body.keys : []
      // a key that is no JWK is skipped (RFC 7517 §5), and a set without one is a failure: a
      // broken answer must not replace the keys in hand
      const keys = listed.filter(isJwk)
      if (keys.length === 0) throw new Error('no usable key in its "keys" array')
      // replaced, never changed in place: a JWT remembered as verified by the last key set
      // (VerifiedJwts) is verified again once this array is another one
      this.#keys = Object.freeze(keys) as HonoJsonWebKey[]
      this.#fetchedAt = this.#attemptedAt
    } catch (error) {
      console.error(
        `token-backend: JWKS fetch failed (${this.#keys ? 'keeping the last keys' : 'no keys'}): ${String(error)}`,
      )
    }
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A JSON Web Key as far as choosing one goes: a `kty`, and a `kid` that is text when present. */
const isJwk = (key: unknown): key is HonoJsonWebKey =>
  isRecord(key) &&
  typeof key.kty === 'string' &&
  (key.kid === undefined || typeof key.kid === 'string')

/**
 * The `kid` in the header of the bearer JWT of an `Authorization` header, if any.
 *
 * @example
 * ```ts
 * kidOf(c.req.header('authorization')) // 'key-2026-11'
 * ```
 */
export function kidOf(authorization: string | undefined): string | undefined {
  const kid = jwtHeaderOf(authorization)?.kid
  return typeof kid === 'string' ? kid : undefined
}

/**
 * The decoded header of the bearer JWT of an `Authorization` header: `undefined` when there is
 * none or it is not a JWT (three dot-separated base64url parts, a JSON object first), so that
 * such a request is refused (401) without asking the key server.
 *
 * @example
 * ```ts
 * if (jwtHeaderOf(c.req.header('authorization')) === undefined) return deny(401, 'no token')
 * ```
 */
export function jwtHeaderOf(
  authorization: string | undefined,
): Record<string, unknown> | undefined {
  const token = /^Bearer\s+([\w-]+)\.[\w-]+\.[\w-]*$/i.exec(authorization ?? '')?.[1]
  if (!token) return undefined
  try {
    const header: unknown = JSON.parse(atob(token.replace(/-/g, '+').replace(/_/g, '/')))
    return isRecord(header) ? header : undefined
  } catch {
    return undefined
  }
}
