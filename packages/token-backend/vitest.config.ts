import { join } from 'node:path'
import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { createCdn, createOrigin } from '@proj/cdn-emulator'
import { defineConfig } from 'vitest/config'
import { testJwks } from './test/jwks.ts'

// Session playlists come from a real token-checking CDN (the emulator, 403/410 like nginx) in
// front of the real test media: a session that signs wrongly fails these tests.
const origin = createOrigin({
  mediaDir: join(import.meta.dirname, '../../apps/cdn-emulator/media/vod'),
})
const cdn = createCdn({
  secret: 'test-secret',
  ipBound: false,
  origin: (path) => origin.request(path),
  clientIp: () => '127.0.0.1',
})

/**
 * The backend's own operator lines that tests provoke on purpose, each checked where it matters:
 * the warning of AUTH_MODE=none (authorize.test.ts), an audit line (app.test.ts, audit-log.test.ts),
 * a configuration error (the 500 answers of config.test.ts and cdns.test.ts), a key server down
 * (jwks-cache.node.test.ts), a Durable Object or a Redis that cannot answer (durable-unavailable.test.ts,
 * the redis tests). A green run prints none of them; anything else still shows.
 */
const EXPECTED_LINES = [
  /^token-backend: AUTH_MODE is "none"/,
  /^\{"event":"(token_issued|session_issued|session_refused|session_revoked|cdn_drained|cdn_undrained|stream_[a-z_]+)"/,
  /^server misconfigured: /,
  /^token-backend: JWKS fetch failed/,
  /^token-backend: the CDN answered 40[13] to a session playlist URL/,
  /^token-backend: the SessionRegistry Durable Object did not answer/,
  /^redis: [A-Z]+ .*\(answered 503; at most one such line a minute\)/,
]
const quietExpected = (log: string) => !EXPECTED_LINES.some((line) => line.test(log))

// Tests run inside workerd, in the Worker of test/wrangler.test.jsonc (test/worker.ts: the app and
// its Durable Object). Bindings below pin EVERY variable, so a local .dev.vars (which the plugin
// also reads) cannot change what the tests see; "" means unset. Outbound fetches (the JWKS URL)
// are answered here, in Node. The `*.node.test.ts` files run in Node: the same app served as a
// Node user serves it.
export default defineConfig(async () => {
  const jwks = await testJwks()
  return {
    test: {
      onConsoleLog: quietExpected,
      projects: [
        {
          extends: true,
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './test/wrangler.test.jsonc' },
              miniflare: {
                bindings: {
                  SECRET_KEY: 'test-secret',
                  CLIENT_ID: '12345',
                  CDN_DOMAIN: 'cdn.test',
                  CDN_DOMAIN_IP: 'cdn-ip.test',
                  IP_HEADERS: 'x-real-ip,x-forwarded-for',
                  TRUSTED_PROXIES: '',
                  ALLOWED_ORIGINS: 'https://player.test',
                  CDN_SCHEME: '',
                  // one CDN unless a test lists more (src/cdns.test.ts)
                  CDN_ID: '',
                  CDN_PRIORITY: '',
                  CDNS: '',
                  MAX_EXPIRE_SECONDS: '',
                  AUTH_MODE: 'none',
                  JWT_SECRET: '',
                  JWT_ALG: '',
                  JWT_JWKS_URL: '',
                  JWT_JWKS: '',
                  JWT_VIDEOS_CLAIM: '',
                  JWT_ISSUER: '',
                  JWT_AUDIENCE: '',
                  JWT_REQUIRE_EXP: '',
                  RATE_LIMIT_REQUESTS: '',
                  RATE_LIMIT_PERIOD: '',
                  SESSION_SECRET: 'test-session-secret-of-32-characters!',
                  SESSION_LIFETIME: '',
                  SESSION_BINDING: '',
                  SESSION_MAX_NETWORKS: '',
                  SESSION_LEAF_LIFETIME: '',
                  SESSION_ADMIN_TOKEN: 'test-admin-token-of-32-characters-ok',
                  SESSION_BASE_URL: '',
                  STREAM_LIMIT: '',
                  STREAM_LIMIT_POLICY: '',
                  STREAM_LIMIT_MODE: '',
                  STREAM_LIMIT_CLAIM: '',
                  STREAM_GRACE: '',
                  SESSION_STREAM_IDLE: '',
                  TEST_PRIVATE_JWK: JSON.stringify(jwks.privateJwk),
                },
                // a real workerd rate limiter for the binding test (never TOKEN_RATE_LIMITER
                // itself: every other test would be counted)
                ratelimits: {
                  TEST_RATE_LIMITER: { namespace_id: '1001', simple: { limit: 3, period: 10 } },
                },
                outboundService: (request: Request) => {
                  const url = new URL(request.url)
                  if (url.href === jwks.url) return Response.json({ keys: [jwks.publicJwk] })
                  if (url.host === 'cdn.test') return cdn.request(url.pathname + url.search)
                  return new Response('no such test host', { status: 502 })
                },
              },
            }),
          ],
          test: {
            name: 'token-backend',
            include: ['src/**/*.test.ts'],
            exclude: ['src/**/*.node.test.ts'],
          },
        },
        {
          test: {
            name: 'token-backend-node',
            include: ['src/**/*.node.test.ts'],
            environment: 'node',
          },
        },
      ],
    },
  }
})
