import { sparkMd5Digest, type TokenDigest } from './digest.ts'

/** The inputs that a token signs, in the order they appear in the signed text. */
export interface TokenInput {
  /** Account ID (`CLIENT_ID`). */
  clientId: string
  /** Video slug (VOD) or stream ID (live). */
  video: string
  /** The CDN resource secret (`SECRET_KEY`). Never sent to a browser. */
  secret: string
  /**
   * Unix timestamp in seconds at which the token expires. A validator may pass the path's text
   * (nginx signs the text as it appears, leading zeros included).
   */
  expires: number | string
  /** Viewer IP for an IP-bound token; empty string (the default) for the plain token. */
  ip?: string | undefined
}

/**
 * The exact text whose MD5 is the token: `{client_id}_{video}_{secret}_{expires}_{ip}`.
 * For the plain token `ip` is empty, so the text ends with `_`.
 *
 * @example
 * ```ts
 * signedText({ clientId: '1', video: 'demo', secret: 's', expires: 1700000000 })
 * // '1_demo_s_1700000000_'
 * ```
 */
export function signedText({ clientId, video, secret, expires, ip = '' }: TokenInput): string {
  return `${clientId}_${video}_${secret}_${expires}_${ip}`
}

/**
 * Base64url without padding (`+`→`-`, `/`→`_`, no `=`), as nginx `secure_link` expects.
 *
 * @example
 * ```ts
 * toBase64Url('\xfb\xff') // '-_8'
 * ```
 */
export function toBase64Url(binary: string): string {
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * Signs one token: base64url of the MD5 digest of the UTF-8 text
 * `{client_id}_{video}_{secret}_{expires}_{ip}`. `digest` is spark-md5 (runs everywhere) unless a
 * native one is given (`nodeMd5Digest` from `@proj/signing/node`); both give the same token.
 *
 * @example
 * ```ts
 * const token = signToken({ clientId: '12345', video: 'demo', secret: 'k', expires: 1767225600 })
 * const tokenIp = signToken({ clientId: '12345', video: 'demo', secret: 'k', expires: 1767225600, ip: '203.0.113.7' })
 * ```
 */
export function signToken(input: TokenInput, digest: TokenDigest = sparkMd5Digest): string {
  return digest(signedText(input))
}
