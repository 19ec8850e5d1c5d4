import { describe, expect, it, vi } from 'vitest'
import { NOW_MS, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'
import { ConfigError, parseConfig } from './config.ts'

const app = createTokenApp({ now: () => NOW_MS })
const SECRET = 'test-secret'

describe('parseConfig', () => {
  it('reads the documented defaults', () => {
    const config = parseConfig({
      CLIENT_ID: '1',
      SECRET_KEY: 's',
      CDN_DOMAIN: 'a.test',
      CDN_DOMAIN_IP: 'b.test:8443',
    })
    expect(config).toEqual({
      signing: {
        clientId: '1',
        secretKey: 's',
        cdnDomain: 'a.test',
        cdnDomainIp: 'b.test:8443',
        scheme: 'https',
      },
      ipHeaders: ['x-real-ip', 'x-forwarded-for'],
      allowedOrigins: undefined,
      auth: { mode: 'none' },
      rateLimit: { requests: undefined, periodSeconds: 60 },
    })
  })

  it('parses lists, the cap and the scheme', () => {
    const config = parseConfig(
      testEnv({
        IP_HEADERS: ' CF-Connecting-IP , x-real-ip',
        ALLOWED_ORIGINS: 'https://a.test, http://localhost:5173',
        MAX_EXPIRE_SECONDS: '600',
        CDN_SCHEME: 'http',
      }),
    )
    expect(config.ipHeaders).toEqual(['cf-connecting-ip', 'x-real-ip'])
    expect(config.allowedOrigins).toEqual(['https://a.test', 'http://localhost:5173'])
    expect(config.signing.maxLifetimeSeconds).toBe(600)
    expect(config.signing.scheme).toBe('http')
  })
})

describe('missing or invalid configuration → 500 naming the variable, never its value', () => {
  it.each([
    [{ SECRET_KEY: undefined }, 'SECRET_KEY is required'],
    [{ SECRET_KEY: '' }, 'SECRET_KEY is required'],
    [{ CLIENT_ID: undefined }, 'CLIENT_ID is required'],
    [{ CLIENT_ID: 'abc' }, 'CLIENT_ID must be the numeric account ID'],
    [{ CDN_DOMAIN: undefined }, 'CDN_DOMAIN is required'],
    [{ CDN_DOMAIN: 'https://cdn.test/x' }, 'CDN_DOMAIN must be a host name'],
    [{ CDN_DOMAIN_IP: 'cdn test' }, 'CDN_DOMAIN_IP must be a host name'],
    [{ CDN_SCHEME: 'ftp' }, 'CDN_SCHEME must be "https" or "http"'],
    [{ IP_HEADERS: 'x real ip' }, 'IP_HEADERS must be a comma-separated list'],
    [
      { ALLOWED_ORIGINS: 'player.test' },
      'ALLOWED_ORIGINS must be "*" or a comma-separated list of origins',
    ],
    [{ ALLOWED_ORIGINS: 'https://player.test/' }, 'ALLOWED_ORIGINS must be'],
    [{ MAX_EXPIRE_SECONDS: '0' }, 'MAX_EXPIRE_SECONDS must be a positive whole number'],
    [{ MAX_EXPIRE_SECONDS: '1h' }, 'MAX_EXPIRE_SECONDS must be a positive whole number'],
    [{ AUTH_MODE: 'basic' }, 'AUTH_MODE must be "none" or "jwt"'],
    [{ AUTH_MODE: 'jwt' }, 'JWT_SECRET or JWT_JWKS_URL or JWT_JWKS is required'],
    [{ AUTH_MODE: 'jwt', JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 16 characters'],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(32), JWT_ALG: 'RS256' },
      'JWT_ALG must be HS256, HS384, HS512',
    ],
    [{ AUTH_MODE: 'jwt', JWT_JWKS_URL: 'not a url' }, 'JWT_JWKS_URL must be an http(s) URL'],
    [{ AUTH_MODE: 'jwt', JWT_JWKS: '{"keys":[]}' }, 'JWT_JWKS must be a JSON Web Key Set'],
    [{ AUTH_MODE: 'jwt', JWT_JWKS: 'nope' }, 'JWT_JWKS must be a JSON Web Key Set'],
    [
      { AUTH_MODE: 'jwt', JWT_JWKS_URL: 'https://a.test/jwks', JWT_ALG: 'HS256' },
      'JWT_ALG must be an asymmetric',
    ],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(32), JWT_JWKS_URL: 'https://a.test/jwks' },
      'JWT_SECRET cannot be combined',
    ],
  ])('%j → %s', async (overrides, message) => {
    expect(() => parseConfig(testEnv(overrides))).toThrow(ConfigError)
    const res = await app.request('/token?video=demo', {}, testEnv(overrides))
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text).error).toContain(`server misconfigured: ${message}`)
    expect(text).not.toContain(SECRET)
    const { AUTH_MODE: _documentedEnum, ...values } = overrides as Record<
      string,
      string | undefined
    >
    for (const value of Object.values(values)) if (value) expect(text).not.toContain(value)
  })
})

describe('the secret never leaves the worker', () => {
  it('appears in no response body, header or log line, whatever the outcome', async () => {
    const logged: unknown[] = []
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => logged.push(...args))
    }
    const requests: [string, RequestInit][] = [
      ['/token?video=demo', {}],
      ['/token?video=demo&client_ip=test-secret', {}],
      ['/token?video=test-secret/x', {}],
      ['/token', { method: 'POST', body: 'test-secret' }],
      ['/nowhere', {}],
      [
        '/token',
        {
          method: 'OPTIONS',
          headers: { origin: 'https://player.test', 'access-control-request-method': 'GET' },
        },
      ],
    ]
    for (const [path, init] of requests) {
      const res = await app.request(path, init, testEnv())
      expect(await res.text()).not.toContain(SECRET)
      for (const [, value] of res.headers) expect(value).not.toContain(SECRET)
    }
    await app.request('/token?video=demo', {}, testEnv({ CDN_DOMAIN: SECRET }))
    await app.request('/token?video=demo', {}, testEnv({ MAX_EXPIRE_SECONDS: SECRET }))
    expect(logged.length).toBeGreaterThan(0)
    for (const entry of logged)
      expect(String(entry instanceof Error ? entry.stack : entry)).not.toContain(SECRET)
    vi.restoreAllMocks()
  })
})
