import type { SymmetricAlgorithm } from 'hono/utils/jwt/jwa'
import { LruMap } from './lru.ts'

// a secret changes only with the configuration: the last few kept (a rotation swaps two)
const keys = new LruMap<string, Promise<CryptoKey>>(8)

/**
 * A text secret as a WebCrypto HMAC key for hono's JWT `sign` and `verify`, imported once per
 * secret and algorithm. Given the text instead, hono imports it again for every JWT: about half
 * of a verification's cost on Node.
 *
 * @example
 * ```ts
 * const payload = await verify(jwt, await hmacKey(secret, 'HS256'), 'HS256')
 * ```
 */
export function hmacKey(secret: string, alg: SymmetricAlgorithm): Promise<CryptoKey> {
  const id = `${alg}\n${secret}`
  let key = keys.get(id)
  if (key === undefined) {
    const hmac = { name: 'HMAC', hash: `SHA-${alg.slice(2)}` }
    const raw = new TextEncoder().encode(secret)
    key = crypto.subtle.importKey('raw', raw, hmac, false, ['sign', 'verify'])
    keys.set(id, key)
  }
  return key
}
