/** Lifetime used when `expire` is missing, unparsable or not positive (spec 4.14, rule 1). */
export const DEFAULT_LIFETIME_SECONDS = 3600

/**
 * An `expire` strictly greater than this is an absolute Unix timestamp (spec 4.14, rule 2);
 * this exact value is still a relative lifetime.
 */
export const ABSOLUTE_EXPIRY_THRESHOLD = 1_735_689_600

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
  /** Current Unix time in seconds (integer). */
  nowSeconds: number
  /**
   * Optional cap on the lifetime in seconds: the expiry never lies further than this from now.
   * Off by default, as in the spec.
   */
  maxLifetimeSeconds?: number | undefined
}

/**
 * Resolves the `expire` request parameter into an absolute expiry (integer Unix seconds):
 * missing, unparsable or ≤ 0 → now + 3600; greater than 1735689600 → that absolute timestamp
 * (even if already past); otherwise now + expire. A configured cap is applied last.
 *
 * @example
 * ```ts
 * resolveExpiry('600', { nowSeconds: 1_800_000_000 })        // 1_800_000_600
 * resolveExpiry('1900000000', { nowSeconds: 1_800_000_000 }) // 1_900_000_000
 * resolveExpiry(undefined, { nowSeconds: 1_800_000_000 })    // 1_800_003_600
 * ```
 */
export function resolveExpiry(
  expire: string | number | undefined | null,
  { nowSeconds, maxLifetimeSeconds }: ExpiryOptions,
): number {
  const now = Math.floor(nowSeconds)
  const parsed = typeof expire === 'number' ? parseExpire(String(expire)) : parseExpire(expire)
  let expires: number
  if (parsed === undefined || parsed <= 0) expires = now + DEFAULT_LIFETIME_SECONDS
  else if (parsed > ABSOLUTE_EXPIRY_THRESHOLD) expires = parsed
  else expires = now + parsed
  return maxLifetimeSeconds === undefined ? expires : Math.min(expires, now + maxLifetimeSeconds)
}
