/** Lifetime used when `expire` is missing, unparsable or not positive (spec 4.14, rule 1). */
export const DEFAULT_LIFETIME_SECONDS = 3600

/**
 * An `expire` strictly greater than this is an absolute Unix timestamp (spec 4.14, rule 2);
 * this exact value is still a relative lifetime.
 */
export const ABSOLUTE_EXPIRY_THRESHOLD = 1_735_689_600

/**
 * The latest clock {@link resolveExpiry} signs with: now plus the longest relative lifetime (an
 * `expire` of {@link ABSOLUTE_EXPIRY_THRESHOLD}) is still a safe integer, so every expiry it
 * answers is exact.
 */
export const MAX_NOW_SECONDS = Number.MAX_SAFE_INTEGER - ABSOLUTE_EXPIRY_THRESHOLD

const SIGNED_DECIMAL = /^[+-]?\d+$/

/**
 * Parses `expire` exactly as the vendor's backend does (a signed integer of the WHOLE text):
 * `'60'`, `'+60'`, `'-5'` parse; `'60s'`, `'1.5'`, `'1e3'`, `'0x10'`, `' 60'`, `''` and values
 * beyond the safe integer range do not. Unlike `parseInt`/`Number`, nothing is guessed.
 *
 * @returns the integer, or `undefined` when the text is missing or unparsable.
 * @example
 * ```ts
 * parseExpire('+60') // 60
 * parseExpire('60s') // undefined
 * ```
 */
export function parseExpire(text: string | undefined | null): number | undefined {
  if (text == null || !SIGNED_DECIMAL.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : undefined
}

/** Options for {@link resolveExpiry}. */
export interface ExpiryOptions {
  /** Current Unix time in seconds: from 0 to {@link MAX_NOW_SECONDS}, a fraction rounded down. */
  nowSeconds: number
  /**
   * Optional cap on the lifetime in seconds (a whole number, 0 or more): the expiry never lies
   * further than this from now. Off by default, as in the spec.
   */
  maxLifetimeSeconds?: number | undefined
}

/**
 * The options checked: a `NaN`, an infinite or a huge clock or cap would sign `/NaN/`,
 * `/Infinity/` or `/1e+21/` into every URL, or an expiry that is not the one signed.
 */
const checkOptions = ({ nowSeconds, maxLifetimeSeconds }: ExpiryOptions): void => {
  if (!(Number.isFinite(nowSeconds) && nowSeconds >= 0 && nowSeconds <= MAX_NOW_SECONDS))
    throw new RangeError(
      `nowSeconds must be Unix seconds from 0 to ${MAX_NOW_SECONDS}, got ${String(nowSeconds)}`,
    )
  if (
    maxLifetimeSeconds !== undefined &&
    !(Number.isSafeInteger(maxLifetimeSeconds) && maxLifetimeSeconds >= 0)
  )
    throw new RangeError(
      `maxLifetimeSeconds must be a whole number of seconds (0 or more, a safe integer), got ${String(maxLifetimeSeconds)}`,
    )
}

/**
 * Resolves the `expire` request parameter into an absolute expiry (integer Unix seconds):
 * missing, unparsable or ≤ 0 → now + 3600; greater than 1735689600 → that absolute timestamp
 * (even if already past); otherwise now + expire. A configured cap is applied last.
 *
 * @throws {RangeError} when `nowSeconds` is not from 0 to {@link MAX_NOW_SECONDS} (`NaN` and
 * `Infinity` included) or `maxLifetimeSeconds` is not a safe integer ≥ 0.
 * @example
 * ```ts
 * resolveExpiry('600', { nowSeconds: 1_800_000_000 })        // 1_800_000_600
 * resolveExpiry('1900000000', { nowSeconds: 1_800_000_000 }) // 1_900_000_000
 * resolveExpiry(undefined, { nowSeconds: 1_800_000_000 })    // 1_800_003_600
 * ```
 */
export function resolveExpiry(
  expire: string | number | undefined | null,
  options: ExpiryOptions,
): number {
  checkOptions(options)
  const { nowSeconds, maxLifetimeSeconds } = options
  const now = Math.floor(nowSeconds)
  const parsed = typeof expire === 'number' ? parseExpire(String(expire)) : parseExpire(expire)
  let expires: number
  if (parsed === undefined || parsed <= 0) expires = now + DEFAULT_LIFETIME_SECONDS
  else if (parsed > ABSOLUTE_EXPIRY_THRESHOLD) expires = parsed
  else expires = now + parsed
  return maxLifetimeSeconds === undefined ? expires : Math.min(expires, now + maxLifetimeSeconds)
}
