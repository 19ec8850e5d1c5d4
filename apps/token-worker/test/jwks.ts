import { webcrypto } from 'node:crypto'

/** The JWKS URL the worker is pointed at in tests; answered by vitest.config.ts. */
export const TEST_JWKS_URL = 'https://auth.test/.well-known/jwks.json'

/** A fresh ES256 key pair per test run: the private half signs test JWTs inside workerd. */
export async function testJwks() {
  const pair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair
  const kid = 'test-key'
  const publicJwk = {
    ...(await webcrypto.subtle.exportKey('jwk', pair.publicKey)),
    kid,
    alg: 'ES256',
    use: 'sig',
  }
  const privateJwk = {
    ...(await webcrypto.subtle.exportKey('jwk', pair.privateKey)),
    kid,
    alg: 'ES256',
  }
  return { url: TEST_JWKS_URL, publicJwk, privateJwk }
}
