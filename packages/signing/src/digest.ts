import SparkMD5 from 'spark-md5'

/**
 * The token's digest: MD5 of the UTF-8 bytes of `text`, as base64url without padding (22
 * characters), which is what nginx `secure_link` compares. Implementations must agree byte for
 * byte; the signing functions take one so a runtime with a faster native MD5 can use it.
 *
 * @example
 * ```ts
 * const digest: TokenDigest = sparkMd5Digest
 * digest('12345_demo_s3cr3t_1767225600_') // 'jyv09hQm4Wakp-plYMraMQ'
 * ```
 */
export type TokenDigest = (text: string) => string

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * Base64url (no padding) of the 16 bytes written as 32 hex digits, without the binary string
 * and `btoa` round trip: 5 groups of 3 bytes, then the last byte as 2 characters.
 *
 * @example
 * ```ts
 * hexToBase64Url('8f2bf4f61426e166a4a7ea6560cada31') // 'jyv09hQm4Wakp-plYMraMQ'
 * ```
 */
export function hexToBase64Url(hex: string): string {
  let out = ''
  for (let i = 0; i < 30; i += 6) {
    const group = Number.parseInt(hex.slice(i, i + 6), 16)
    out +=
      BASE64URL.charAt(group >>> 18) +
      BASE64URL.charAt((group >>> 12) & 63) +
      BASE64URL.charAt((group >>> 6) & 63) +
      BASE64URL.charAt(group & 63)
  }
  const last = Number.parseInt(hex.slice(30, 32), 16)
  return out + BASE64URL.charAt(last >>> 2) + BASE64URL.charAt((last & 3) << 4)
}

/**
 * The portable digest: spark-md5, pure JavaScript, so the same code signs in browsers, Node and
 * workerd. It is also the fastest on workerd, where a native digest costs more to call than
 * spark-md5 costs to run (BENCHMARKS.md).
 *
 * @example
 * ```ts
 * sparkMd5Digest('12345_demo_s3cr3t_1767225600_') // 'jyv09hQm4Wakp-plYMraMQ'
 * ```
 */
export const sparkMd5Digest: TokenDigest = (text) =>
  // spark-md5 encodes non-ASCII text as UTF-8 before hashing
  hexToBase64Url(SparkMD5.hash(text))
