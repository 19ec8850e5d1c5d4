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

/**
 * What a test key server does with the next fetch: answer the key set (`up`), fail the
 * connection (`down`), answer 500 (`error`), answer only after `slowMs` (`slow`, past the
 * cache's timeout), or never settle (`hang`: the fetch a cancelled Workers request takes with it).
 */
export type KeyServerMode = 'up' | 'down' | 'error' | 'slow' | 'hang'

/** A key server the test switches between modes; `fetch` is set when it is a seam, not a URL. */
export interface TestKeyServer {
  url: string
  fetch?: typeof fetch
  mode: KeyServerMode
  /** Requests it received. */
  hits: number
  close(): Promise<void>
}

/** Options of the test key servers. */
export interface TestKeyServerOptions {
  /** How long a `slow` key server takes to answer. Default 1000. */
  slowMs?: number
  /** The keys it serves. Default one placeholder key of `kid` "a". */
  keys?: object[]
}

const placeholderKeys = [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'a' }]

/**
 * A key server as a `fetch` seam, for any runtime (workerd cannot listen on a port): it honours
 * the abort signal like a real fetch, except in `hang`.
 *
 * @example
 * ```ts
 * const server = scriptedKeyServer()
 * const cache = new JwksCache({ url: server.url, fetch: server.fetch })
 * server.mode = 'down'
 * ```
 */
export function scriptedKeyServer({
  slowMs = 1000,
  keys = placeholderKeys,
}: TestKeyServerOptions = {}): TestKeyServer {
  const server: TestKeyServer = {
    url: 'https://auth.test/scripted/jwks.json',
    mode: 'up',
    hits: 0,
    close: async () => {},
    fetch: (_input, init) => {
      server.hits++
      const signal = init?.signal ?? undefined
      switch (server.mode) {
        case 'up':
          return Promise.resolve(Response.json({ keys }))
        case 'down':
          return Promise.reject(new TypeError('fetch failed'))
        case 'error':
          return Promise.resolve(new Response('down', { status: 500 }))
        case 'hang':
          return new Promise<Response>(() => {})
        case 'slow':
          return new Promise<Response>((resolve, reject) => {
            const timer = setTimeout(() => resolve(Response.json({ keys })), slowMs)
            signal?.addEventListener('abort', () => {
              clearTimeout(timer)
              reject(signal.reason)
            })
          })
      }
    },
  }
  return server
}

/**
 * A real HTTP key server on a loopback port (Node only): `down` closes the connection unanswered,
 * `hang` behaves as `slow` (a real fetch ends at its timeout).
 *
 * @example
 * ```ts
 * const server = await loopbackKeyServer({ keys: [publicJwk] })
 * const cache = new JwksCache({ url: server.url })
 * ```
 */
export async function loopbackKeyServer({
  slowMs = 1000,
  keys = placeholderKeys,
}: TestKeyServerOptions = {}): Promise<TestKeyServer> {
  const { createServer } = await import('node:http')
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const http = createServer((request, response) => {
    server.hits++
    const answer = () => {
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ keys }))
    }
    if (server.mode === 'up') return answer()
    if (server.mode === 'down') return request.socket.destroy()
    if (server.mode === 'error') return response.writeHead(500).end('down')
    const timer = setTimeout(answer, slowMs)
    timers.add(timer)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const server: TestKeyServer = {
    url: `http://127.0.0.1:${port}/jwks.json`,
    mode: 'up',
    hits: 0,
    close: () => {
      for (const timer of timers) clearTimeout(timer)
      http.closeAllConnections()
      return new Promise((resolve) => http.close(() => resolve()))
    },
  }
  return server
}
