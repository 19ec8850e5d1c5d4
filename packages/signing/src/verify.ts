/**
 * The CDN side of the scheme: what a token-validating CDN answers for a tokenised path, with
 * nginx `secure_link`'s leniencies. Entry `@proj/signing/verify` (also in the main entry).
 */
import SparkMD5 from 'spark-md5'
import { signedText } from './token.ts'

/** What the CDN answers for a tokenised path: serve it, wrong token, or expired. */
export type TokenVerdict = 200 | 403 | 410

/** A token pair as it appears in the path, plus what it must have been signed for. */
export interface TokenCheck {
  /** `{client_id}_{video}`, the path segment before the pair. */
  clientVideo: string
  token: string
  /** The expiry segment as text (digits). */
  expires: string
  secret: string
  /** `''` on the plain host, the viewer's address on the IP-bound host. */
  ip: string
  /** The CDN's clock, Unix seconds; read as whole seconds, as nginx's `ngx_time()`. */
  nowSeconds: number
}

// nginx's time_t: 2^63 − 1, as digits (ngx_atotm refuses more: the token is then refused)
const MAX_TIME_T = '9223372036854775807'

/**
 * Whether nginx's `ngx_atotm` reads `text` as an expiry `secure_link` accepts: decimal digits
 * only, a value from 1 to the largest time_t (leading zeros allowed). Anything else, 0 included,
 * is "not found" there: a 403, whatever the token.
 */
const isNginxExpiry = (text: string): boolean => {
  if (!/^\d+$/.test(text)) return false
  const digits = text.replace(/^0+/, '')
  if (digits === '') return false
  return (
    digits.length < MAX_TIME_T.length ||
    (digits.length === MAX_TIME_T.length && digits <= MAX_TIME_T)
  )
}

// nginx's ngx_decode_base64url: the url-safe alphabet, no padding, and the unused low bits of
// the last character are ignored (so are they here: same verdict for the same bytes).
const decodeBase64Url = (text: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return undefined
  }
}

/**
 * The CDN's check, exactly as nginx's `secure_link $token,$expires` with
 * `secure_link_md5 "${cv}_${secret}_${expires}_${ip}"`: 403 when `expires` is not one nginx
 * reads (not digits, 0, or beyond a 64-bit time_t) or the token is not the MD5 of that text
 * (also for a malformed token), otherwise 410 once `expires` is in the past (the expiry second
 * itself is still valid), otherwise 200.
 *
 * @throws {RangeError} when `nowSeconds` is not a finite number (`NaN`, `undefined`, `Infinity`):
 * no verdict is right on a broken clock, and a 200 there would admit every expired token.
 * @example
 * ```ts
 * verifyToken({ clientVideo: '12345_demo', token, expires: '1767225600', secret, ip: '', nowSeconds })
 * ```
 */
export function verifyToken(check: TokenCheck): TokenVerdict {
  if (!Number.isFinite(check.nowSeconds))
    throw new RangeError(
      `verifyToken: nowSeconds must be a finite number of Unix seconds, got ${String(check.nowSeconds)}`,
    )
  if (!isNginxExpiry(check.expires)) return 403
  const digest = check.token.length <= 24 ? decodeBase64Url(check.token) : undefined
  const split = check.clientVideo.indexOf('_')
  if (digest?.length !== 16 || split < 0) return 403
  const text = signedText({
    clientId: check.clientVideo.slice(0, split),
    video: check.clientVideo.slice(split + 1),
    secret: check.secret,
    expires: check.expires,
    ip: check.ip,
  })
  if (SparkMD5.hash(text, true) !== digest) return 403
  // nginx compares with whole seconds; past 2^53 the rounding of `Number` cannot reach now
  return Number(check.expires) < Math.floor(check.nowSeconds) ? 410 : 200
}
