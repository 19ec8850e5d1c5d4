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
  nowSeconds: number
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
 * `secure_link_md5 "${cv}_${secret}_${expires}_${ip}"`: 403 when the token is not the MD5 of
 * that text (also for a malformed token), otherwise 410 once `expires` is in the past
 * (the expiry second itself is still valid), otherwise 200.
 *
 * @example
 * ```ts
 * verifyToken({ clientVideo: '12345_demo', token, expires: '1767225600', secret, ip: '', nowSeconds })
 * ```
 */
export function verifyToken(check: TokenCheck): TokenVerdict {
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
  return Number(check.expires) < check.nowSeconds ? 410 : 200
}
