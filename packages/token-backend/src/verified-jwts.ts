import { LruMap } from './lru.ts'

/** A JWT payload as hono's verification returned it. */
type Claims = Record<string, unknown>

interface Verified<K> {
  /** The claims as JSON: every request gets an object of its own. */
  json: string
  /** The clock claims as they were when verified, for the checks; never handed out. */
  times: { exp?: unknown; nbf?: unknown; iat?: unknown }
  keys: K
}

/**
 * The one form of header remembered: what every player sends. Any other spelling hono accepts
 * (more spaces, `bearer`, padding) is verified every time, so one JWT cannot fill the memory
 * with variants of itself; and the length is bounded (a JWT is a few hundred characters).
 */
const CANONICAL = /^Bearer [A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
const MAX_HEADER = 4096

const finiteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value)

/**
 * Whether claims hono once accepted still pass its clock checks at `nowSeconds`: the same
 * three tests (`exp`, `nbf`, `iat`) with the same comparisons, so a remembered JWT expires at
 * the second hono would refuse it.
 *
 * @example
 * ```ts
 * stillValid({ exp: 1_767_225_600 }, 1_767_225_599) // true
 * stillValid({ exp: 1_767_225_600 }, 1_767_225_600) // false: hono refuses exp <= now
 * ```
 */
export function stillValid(claims: Claims, nowSeconds: number): boolean {
  const { exp, nbf, iat } = claims
  if (nbf !== undefined && !(finiteNumber(nbf) && nbf <= nowSeconds)) return false
  if (exp !== undefined && !(finiteNumber(exp) && exp > nowSeconds)) return false
  return iat === undefined || (finiteNumber(iat) && nowSeconds >= iat)
}

/**
 * The claims of JWTs hono's middleware verified, by the exact `Authorization` header they came
 * in (the most recently used, bounded). A viewer's JWT lives for hours and comes back with every
 * refresh of every stream it plays, and its signature check is most of a refresh's cost (on
 * Node a hop to WebCrypto's thread pool). A header seen before under the same configuration and
 * key set is the same input to the same verification, so only the clock checks are run again
 * ({@link stillValid}); anything else (another header, another key set, a claim now out of
 * time) goes to hono, whose answers stay the only refusals. One per verifier: a changed secret,
 * algorithm, issuer or audience is a new configuration and starts empty.
 *
 * `K` is what else a verification depended on, compared by identity: the key set a JWKS JWT
 * was checked with (a JWT of a key since rotated out is verified again, and refused), or `true`
 * for a shared secret, which cannot change within one configuration.
 *
 * @example
 * ```ts
 * const verified = new VerifiedJwts<true>()
 * const claims = verified.get(c.req.header('authorization'), true, nowSeconds)
 * if (claims === undefined) {
 *   // verify with hono's middleware, then: verified.keep(header, true, c.get('jwtPayload'))
 * }
 * ```
 */
export class VerifiedJwts<K> {
  readonly #known: LruMap<string, Verified<K>>

  constructor(capacity = 4096) {
    this.#known = new LruMap(capacity)
  }

  /**
   * The claims of `header` when it was verified against `keys` and still passes the clock: a
   * new object for each call, as hono's verification gives each request its own.
   */
  get(header: string | undefined, keys: K, nowSeconds: number): Claims | undefined {
    if (header === undefined) return undefined
    const verified = this.#known.get(header)
    if (verified === undefined || verified.keys !== keys) return undefined
    if (stillValid(verified.times, nowSeconds)) return JSON.parse(verified.json) as Claims
    // out of time for good: hono refuses it from now on
    this.#known.delete(header)
    return undefined
  }

  /**
   * Remembers what hono's middleware accepted: `claims` is the `jwtPayload` it set, read now,
   * before anything after the middleware may change it.
   */
  keep(header: string | undefined, keys: K, claims: unknown): void {
    if (header === undefined || header.length > MAX_HEADER || !CANONICAL.test(header)) return
    if (typeof claims !== 'object' || claims === null) return
    // the clock claims are numbers: copied here, whatever later changes the object
    const { exp, nbf, iat } = claims as Claims
    this.#known.set(header, { json: JSON.stringify(claims), times: { exp, nbf, iat }, keys })
  }
}
