import { describe, expect, it, vi } from 'vitest'
import { NOW_MS, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'
import {
  ConfigError,
  configFromEnv,
  loadConfig,
  type TokenConfigInput,
  tokenConfig,
} from './config.ts'

const app = createTokenApp({ now: () => NOW_MS })
const SECRET = 'test-secret'
const SIGNING = { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' }

describe('configFromEnv', () => {
  it('reads the documented defaults', () => {
    const config = configFromEnv({
      CLIENT_ID: '1',
      SECRET_KEY: 's',
      CDN_DOMAIN: 'a.test',
      CDN_DOMAIN_IP: 'b.test:8443',
      AUTH_MODE: 'none',
    })
    expect(config).toEqual({
      signing: {
        clientId: '1',
        secretKey: 's',
        cdnDomain: 'a.test',
        cdnDomainIp: 'b.test:8443',
        scheme: 'https',
      },
      ipHeaders: undefined,
      trustedProxies: undefined,
      allowedOrigins: undefined,
      auth: { mode: 'none' },
      rateLimit: { requests: undefined, periodSeconds: 60 },
      networks: { binding: 'prefix', maxNetworks: 2 },
    })
  })

  it('parses lists, the cap and the scheme', () => {
    const config = configFromEnv(
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

describe('customAuthorizer: the app has its own authorizer', () => {
  const custom = { customAuthorizer: true }

  it('leaves auth undefined when AUTH_MODE is unset or empty', () => {
    expect(configFromEnv(testEnv({ AUTH_MODE: undefined }), custom).auth).toBeUndefined()
    expect(configFromEnv(testEnv({ AUTH_MODE: '' }), custom).auth).toBeUndefined()
    // the JWT variables then configure nothing, as under "none"
    expect(
      configFromEnv(testEnv({ AUTH_MODE: undefined, JWT_SECRET: 'short' }), custom).auth,
    ).toBeUndefined()
    expect(() => configFromEnv(testEnv({ AUTH_MODE: undefined }))).toThrow(
      'server misconfigured: AUTH_MODE is required',
    )
  })

  it('still validates AUTH_MODE when it is set', () => {
    expect(configFromEnv(testEnv({ AUTH_MODE: 'none' }), custom).auth).toEqual({ mode: 'none' })
    expect(() => configFromEnv(testEnv({ AUTH_MODE: 'basic' }), custom)).toThrow(
      'server misconfigured: AUTH_MODE must be "jwt"',
    )
    expect(() => configFromEnv(testEnv({ AUTH_MODE: 'jwt' }), custom)).toThrow(
      'server misconfigured: JWT_SECRET or JWT_JWKS_URL or JWT_JWKS is required',
    )
  })

  it('loadConfig reads an env object once per way of reading', () => {
    const env = testEnv({ AUTH_MODE: undefined })
    const first = loadConfig(env, custom)
    expect(loadConfig(env, custom)).toBe(first)
    expect(loadConfig(env, { customAuthorizer: true })).toBe(first)
    // the strict reading of the same object is its own, and refuses it
    expect(() => loadConfig(env)).toThrow('server misconfigured: AUTH_MODE is required')
    const strict = testEnv()
    expect(loadConfig(strict)).toBe(loadConfig(strict, { customAuthorizer: false }))
  })

  it('tokenConfig: auth may be left out, and is validated when given', () => {
    const signing = { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' }
    expect(tokenConfig({ signing }, custom).auth).toBeUndefined()
    expect(tokenConfig({ signing, auth: { mode: 'none' } }, custom).auth).toEqual({ mode: 'none' })
    expect(() => tokenConfig({ signing, auth: { mode: 'jwt' } }, custom)).toThrow(
      'server misconfigured: config.auth.secret.key or config.auth.jwks.url or config.auth.jwks.keys is required when config.auth.mode is "jwt"',
    )
    const misspelt = { signing, auth: { mode: 'nobody' } } as unknown as TokenConfigInput
    expect(() => tokenConfig(misspelt, custom)).toThrow(
      'server misconfigured: config.auth.mode must be "jwt"',
    )
  })
})

describe('missing or invalid configuration → 500 naming the variable, never its value', () => {
  it.each([
    [
      { AUTH_MODE: undefined },
      'AUTH_MODE is required: it must be "jwt" (viewers need a JWT: set JWT_SECRET, JWT_JWKS_URL or JWT_JWKS) or "none" (anyone may get tokens)',
    ],
    [{ AUTH_MODE: '' }, 'AUTH_MODE is required'],
    [{ SECRET_KEY: undefined }, 'SECRET_KEY is required'],
    [{ SECRET_KEY: '' }, 'SECRET_KEY is required'],
    [{ CLIENT_ID: undefined }, 'CLIENT_ID is required'],
    [{ CLIENT_ID: 'abc' }, 'CLIENT_ID must be the numeric account ID'],
    [{ CDN_DOMAIN: undefined }, 'CDN_DOMAIN is required'],
    [{ CDN_DOMAIN: 'https://cdn.test/x' }, 'CDN_DOMAIN must be a host name'],
    [{ CDN_DOMAIN_IP: 'cdn test' }, 'CDN_DOMAIN_IP must be a host name'],
    [{ CDN_DOMAIN: 'cdn.test:99999' }, 'CDN_DOMAIN must be a host name'],
    [{ CDN_DOMAIN_IP: '[::::]' }, 'CDN_DOMAIN_IP must be a host name'],
    [{ REDIS_URL: 'redis://cache.test:6379/abc' }, 'REDIS_URL must name a database by its number'],
    [{ CDN_SCHEME: 'ftp' }, 'CDN_SCHEME must be "https" or "http"'],
    [{ IP_HEADERS: 'x real ip' }, 'IP_HEADERS must be a comma-separated list'],
    [
      { ALLOWED_ORIGINS: 'player.test' },
      'ALLOWED_ORIGINS must be "*" or a comma-separated list of origins',
    ],
    [{ ALLOWED_ORIGINS: 'https://player.test/' }, 'ALLOWED_ORIGINS must be'],
    [{ MAX_EXPIRE_SECONDS: '0' }, 'MAX_EXPIRE_SECONDS must be a positive whole number'],
    [{ MAX_EXPIRE_SECONDS: '1h' }, 'MAX_EXPIRE_SECONDS must be a positive whole number'],
    [{ AUTH_MODE: 'basic' }, 'AUTH_MODE must be "jwt" (viewers need a JWT'],
    [{ AUTH_MODE: 'jwt' }, 'JWT_SECRET or JWT_JWKS_URL or JWT_JWKS is required'],
    [{ AUTH_MODE: 'jwt', JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 16 characters'],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(32), JWT_ALG: 'RS256' },
      'JWT_ALG must be HS256, HS384, HS512',
    ],
    [{ AUTH_MODE: 'jwt', JWT_JWKS_URL: 'not a url' }, 'JWT_JWKS_URL must be an http(s) URL'],
    [
      { SESSION_BASE_URL: 'https://ops:hunter2@tokens.test' },
      'SESSION_BASE_URL must be an http(s) URL without user',
    ],
    [
      { SESSION_BASE_URL: 'https://tokens.test/tok?x=1' },
      'SESSION_BASE_URL must be an http(s) URL without user',
    ],
    [
      { SESSION_BASE_URL: 'https://tokens.test/#top' },
      'SESSION_BASE_URL must be an http(s) URL without user',
    ],
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
    expect(() => configFromEnv(testEnv(overrides))).toThrow(ConfigError)
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

describe('an unedited deployment signs nothing: the example.com placeholders are refused', () => {
  it.each([
    [{ CDN_DOMAIN: 'cdn.example.com' }, 'CDN_DOMAIN is still the placeholder cdn.example.com'],
    [{ CDN_DOMAIN_IP: 'example.com:8443' }, 'CDN_DOMAIN_IP is still the placeholder'],
    [{ CDN_DOMAIN: 'CDN.Example.COM' }, 'CDN_DOMAIN is still the placeholder'],
    [{ CDN_DOMAIN_IP: 'cdn-ip.example' }, 'CDN_DOMAIN_IP is still the placeholder'],
    [{ CDN_DOMAIN: 'media.example.org' }, 'CDN_DOMAIN is still the placeholder'],
  ])('%j → 500 %s', async (overrides, message) => {
    const res = await app.request('/token?video=demo', {}, testEnv(overrides))
    expect(res.status).toBe(500)
    expect((await res.json<{ error: string }>()).error).toContain(message)
  })

  it('a host that only ends like the placeholder is a real one', () => {
    expect(configFromEnv(testEnv({ CDN_DOMAIN: 'cdn.notexample.com' })).signing.cdnDomain).toBe(
      'cdn.notexample.com',
    )
  })
})

describe('tokenConfig: the configuration as an object', () => {
  const signing = { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' }
  const NONE = { mode: 'none' } as const

  it('fills the defaults of the variables', () => {
    expect(tokenConfig({ signing, auth: { mode: 'none' } })).toEqual(
      configFromEnv({
        CLIENT_ID: '1',
        SECRET_KEY: 's',
        CDN_DOMAIN: 'a.test',
        CDN_DOMAIN_IP: 'b.test',
        AUTH_MODE: 'none',
      }),
    )
    const full = tokenConfig({
      signing,
      ipHeaders: ['CF-Connecting-IP'],
      allowedOrigins: ['https://player.test'],
      auth: { mode: 'jwt', jwks: { url: 'https://auth.test/jwks', algs: ['ES256', 'EdDSA'] } },
      rateLimit: { requests: 5, periodSeconds: 10 },
      session: { secret: 's'.repeat(32), maxNetworks: 3 },
    })
    expect(full.ipHeaders).toEqual(['cf-connecting-ip'])
    expect(full.auth).toMatchObject({ mode: 'jwt', videosClaim: 'videos', requireExp: true })
    expect(full.auth.mode === 'jwt' && full.auth.jwks?.algs).toEqual(['ES256', 'EdDSA'])
    expect(full.rateLimit).toEqual({ requests: 5, periodSeconds: 10 })
    expect(full.session).toMatchObject({
      maxNetworks: 3,
      lifetimeSeconds: 6 * 3600,
      binding: 'prefix',
    })
  })

  it('refuses a configuration without auth: "none" is a choice to name', () => {
    // what JavaScript (no type check) can pass
    const input = { signing } as TokenConfigInput
    expect(() => tokenConfig(input)).toThrow(
      'server misconfigured: config.auth.mode is required: it must be "jwt" (viewers need a JWT: set config.auth.secret.key, config.auth.jwks.url or config.auth.jwks.keys) or "none" (anyone may get tokens)',
    )
    expect(() => createTokenApp({ config: input })).toThrow(ConfigError)
  })

  it.each([
    [
      { signing: { ...signing, cdnDomain: 'https://a.test/x' }, auth: NONE },
      'config.signing.cdnDomain must be a host name',
    ],
    [
      { signing: { ...signing, secretKey: '' }, auth: NONE },
      'config.signing.secretKey is required: it must be set',
    ],
    [
      { signing: { ...signing, cdnDomainIp: 'cdn-ip.example.com' }, auth: NONE },
      'config.signing.cdnDomainIp is still the placeholder',
    ],
    [{ signing, auth: NONE, ipHeaders: [] }, 'config.ipHeaders must be a comma-separated list'],
    [
      { signing, auth: NONE, session: { secret: 'short' } },
      'config.session.secret must be at least 32 characters',
    ],
    [
      { signing, auth: NONE, session: { secret: 's'.repeat(32), leafLifetimeSeconds: 1 } },
      'config.session.leafLifetimeSeconds must be',
    ],
    [
      {
        signing: { ...signing, secretKey: 's'.repeat(32) },
        auth: NONE,
        session: { secret: 's'.repeat(32) },
      },
      'config.session.secret must differ from config.signing.secretKey',
    ],
    [
      { signing, auth: { mode: 'jwt' } },
      'config.auth.secret.key or config.auth.jwks.url or config.auth.jwks.keys is required when config.auth.mode is "jwt"',
    ],
    [
      { signing, auth: NONE, rateLimit: { requests: 1.5 } },
      'config.rateLimit.requests must be a whole number',
    ],
  ] as const)('%j → ConfigError: %s', (input, message) => {
    expect(() => tokenConfig(input)).toThrow(`server misconfigured: ${message}`)
  })

  it('createTokenApp({ config }) validates once at creation, and then needs no environment', async () => {
    expect(() =>
      createTokenApp({
        config: { signing: { ...signing, clientId: 'abc' }, auth: { mode: 'none' } },
      }),
    ).toThrow('config.signing.clientId must be the numeric account ID')
    const configured = createTokenApp({
      config: { signing, auth: { mode: 'none' } },
      audit: () => undefined,
    })
    // no env at all (Node's adapters pass none): the object is the configuration
    // on Workers the viewer is CF-Connecting-IP, which the platform sets
    const res = await configured.request('/token?video=demo', {
      headers: { 'cf-connecting-ip': '192.0.2.9', 'x-real-ip': '203.0.113.66' },
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      client_ip: '192.0.2.9',
      url: expect.stringContaining('https://a.test/'),
    })
    // and it wins over the variables
    const over = await configured.request('/token?video=demo', {}, testEnv())
    expect(await over.json()).toMatchObject({ url: expect.stringContaining('https://a.test/') })
  })
})

describe('stream limits (STREAM_*)', () => {
  const jwt = { AUTH_MODE: 'jwt', JWT_SECRET: 'j'.repeat(32) }

  it('are off unless STREAM_LIMIT is set, and take the documented defaults', () => {
    expect(configFromEnv(testEnv({ ...jwt, STREAM_LIMIT_POLICY: 'evict-oldest' })).streams).toBe(
      undefined,
    )
    expect(configFromEnv(testEnv({ ...jwt, STREAM_LIMIT: '2' })).streams).toEqual({
      limit: 2,
      policy: 'reject-newest',
      mode: 'enforce',
      claim: 'max_streams',
      graceSeconds: 30,
      sessionIdleSeconds: 60,
    })
  })

  it('need a viewer identity: refused with AUTH_MODE=none, unless the app has its own authorizer', () => {
    const none = testEnv({ AUTH_MODE: 'none', STREAM_LIMIT: '2' })
    expect(() => configFromEnv(none)).toThrow(
      new ConfigError(
        'STREAM_LIMIT',
        'needs a viewer identity: JWT or an authorizer (AUTH_MODE=jwt, or your own authorize)',
      ),
    )
    expect(() =>
      tokenConfig({ signing: SIGNING, auth: { mode: 'none' }, streams: { limit: 2 } }),
    ).toThrow(/config\.streams\.limit needs a viewer identity/)
    expect(configFromEnv(none, { customAuthorizer: true }).streams?.limit).toBe(2)
  })

  it('count networks and take the operator token without SESSION_SECRET: those settings are not only the session lane’s', () => {
    const config = configFromEnv(
      testEnv({
        ...jwt,
        STREAM_LIMIT: '2',
        SESSION_SECRET: undefined,
        SESSION_BINDING: 'none',
        SESSION_MAX_NETWORKS: '3',
        SESSION_ADMIN_TOKEN: 'a'.repeat(32),
      }),
    )
    expect(config.session).toBeUndefined()
    expect(config.networks).toEqual({ binding: 'none', maxNetworks: 3 })
    expect(config.adminToken).toBe('a'.repeat(32))
    // a validated configuration reads as itself, sessions off
    expect(tokenConfig(config)).toEqual(config)
    // the object form says it in `session` without a secret
    const object = tokenConfig({
      signing: SIGNING,
      auth: { mode: 'jwt', secret: { key: 'j'.repeat(32) } },
      session: { maxNetworks: 3, adminToken: 'a'.repeat(32) },
      streams: { limit: 2 },
    })
    expect([object.session, object.networks, object.adminToken]).toEqual([
      undefined,
      { binding: 'prefix', maxNetworks: 3 },
      'a'.repeat(32),
    ])
  })

  it.each([
    ['SESSION_MAX_NETWORKS', '9', 'must be a number of networks from 1 to 8'],
    ['SESSION_BINDING', 'x', 'must be "prefix"'],
    ['SESSION_ADMIN_TOKEN', 'short', 'must be at least 32 printable ASCII characters'],
    ['SESSION_ADMIN_TOKEN', `${'a'.repeat(20)} ${'b'.repeat(20)}`, 'without spaces'],
    ['SESSION_LIFETIME', '-5', 'SESSION_LIFETIME'],
  ])('%s=%j is refused without SESSION_SECRET too: %s', (variable, value, message) => {
    expect(() =>
      configFromEnv(
        testEnv({ ...jwt, STREAM_LIMIT: '2', SESSION_SECRET: undefined, [variable]: value }),
      ),
    ).toThrow(message)
  })

  it.each([
    ['STREAM_LIMIT', '0', 'must be a whole number of streams per viewer, from 1 to 9999'],
    ['STREAM_LIMIT_POLICY', 'newest', 'must be "reject-newest" (default) or "evict-oldest"'],
    ['STREAM_LIMIT_MODE', 'dry-run', 'must be "enforce" (default) or "log"'],
    ['STREAM_GRACE', '-1', 'must be a whole number of seconds from 0 to 3600'],
    ['SESSION_STREAM_IDLE', '1', 'must be a whole number of seconds from 5 to 3600'],
  ])('%s=%s is refused: %s', (variable, value, message) => {
    expect(() => configFromEnv(testEnv({ ...jwt, STREAM_LIMIT: '2', [variable]: value }))).toThrow(
      message,
    )
  })
})

describe('one table, two forms: the variables and the object read alike', () => {
  const signing = { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' }
  const NONE = { mode: 'none' } as const

  it('every variable set: the object that says the same is the same configuration', () => {
    const sessionSecret = 'q'.repeat(32)
    const admin = 'z'.repeat(32)
    const fromEnv = configFromEnv({
      CLIENT_ID: '1',
      SECRET_KEY: 's',
      CDN_DOMAIN: 'a.test',
      CDN_DOMAIN_IP: 'b.test',
      CDN_SCHEME: 'http',
      MAX_EXPIRE_SECONDS: '600',
      CDN_ID: 'main',
      CDN_PRIORITY: '5',
      CDNS: 'b',
      CDN_B_DOMAIN: 'c.test',
      CDN_B_DOMAIN_IP: 'd.test',
      CDN_B_SCHEME: 'http',
      CDN_B_PRIORITY: '9',
      SECRET_KEY_B: 't',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1',
      ALLOWED_ORIGINS: 'https://p.test',
      AUTH_MODE: 'jwt',
      JWT_JWKS_URL: 'https://auth.test/jwks',
      JWT_JWKS: '{"keys":[{"kty":"EC"}]}',
      JWT_ALG: 'ES256',
      JWT_VIDEOS_CLAIM: 'v',
      JWT_ISSUER: 'iss',
      JWT_AUDIENCE: 'aud',
      JWT_REQUIRE_EXP: 'false',
      RATE_LIMIT_REQUESTS: '20',
      RATE_LIMIT_PERIOD: '10',
      SESSION_SECRET: sessionSecret,
      SESSION_LIFETIME: '3600',
      SESSION_BINDING: 'ip',
      SESSION_MAX_NETWORKS: '3',
      SESSION_LEAF_LIFETIME: '12',
      SESSION_ADMIN_TOKEN: admin,
      SESSION_BASE_URL: 'https://tokens.test/',
      REDIS_URL: 'redis://cache.test:6379/0',
      STREAM_LIMIT: '3',
      STREAM_LIMIT_POLICY: 'evict-oldest',
      STREAM_LIMIT_MODE: 'log',
      STREAM_LIMIT_CLAIM: 'plan_streams',
      STREAM_GRACE: '0',
      SESSION_STREAM_IDLE: '90',
    })
    const fromObject = tokenConfig({
      signing: { ...signing, scheme: 'http', maxLifetimeSeconds: 600 },
      primaryCdn: { id: 'main', priority: 5 },
      cdns: [
        {
          id: 'b',
          cdnDomain: 'c.test',
          cdnDomainIp: 'd.test',
          scheme: 'http',
          priority: 9,
          secretKey: 't',
        },
      ],
      trustedProxies: ['10.0.0.0/8', '127.0.0.1'],
      allowedOrigins: ['https://p.test'],
      auth: {
        mode: 'jwt',
        jwks: { url: 'https://auth.test/jwks', keys: [{ kty: 'EC' }], algs: ['ES256'] },
        videosClaim: 'v',
        issuer: 'iss',
        audience: 'aud',
        requireExp: false,
      },
      rateLimit: { requests: 20, periodSeconds: 10 },
      session: {
        secret: sessionSecret,
        lifetimeSeconds: 3600,
        binding: 'ip',
        maxNetworks: 3,
        leafLifetimeSeconds: 12,
        adminToken: admin,
        baseUrl: 'https://tokens.test/',
      },
      redis: { url: 'redis://cache.test:6379/0' },
      streams: {
        limit: 3,
        policy: 'evict-oldest',
        mode: 'log',
        claim: 'plan_streams',
        graceSeconds: 0,
        sessionIdleSeconds: 90,
      },
    })
    expect(fromObject).toEqual(fromEnv)
    expect(fromEnv.streams?.graceSeconds).toBe(0)
    expect(fromEnv.session?.baseUrl).toBe('https://tokens.test')
    // a validated configuration reads as itself
    expect(tokenConfig(fromEnv)).toEqual(fromEnv)
  })

  it('checks an object as values: no number read from text, no text from a number', () => {
    const wrong = (extra: object) => ({ signing, auth: NONE, ...extra }) as TokenConfigInput
    expect(() => tokenConfig(wrong({ rateLimit: { requests: '5' } }))).toThrow(
      'config.rateLimit.requests must be a whole number',
    )
    expect(() => tokenConfig(wrong({ ipHeaders: 'x-real-ip' }))).toThrow(
      'config.ipHeaders must be a comma-separated list of header names',
    )
    expect(() => tokenConfig(wrong({ signing: { ...signing, clientId: 1 } }))).toThrow(
      'config.signing.clientId must be the numeric account ID',
    )
    expect(() =>
      tokenConfig(
        wrong({ auth: { mode: 'jwt', secret: { key: 'k'.repeat(16) }, requireExp: 'no' } }),
      ),
    ).toThrow('config.auth.requireExp must be "true"')
  })

  it('refuses a field no setting has: a misspelt one would leave its default on', () => {
    const input = (extra: object) => ({ signing, auth: NONE, ...extra }) as TokenConfigInput
    expect(() => tokenConfig(input({ sesion: { secret: 's'.repeat(32) } }))).toThrow(
      'server misconfigured: config.sesion is not a setting',
    )
    expect(() =>
      tokenConfig(
        input({ auth: { mode: 'jwt', secret: { key: 'k'.repeat(16) }, videoClaim: 'x' } }),
      ),
    ).toThrow('config.auth.videoClaim is not a setting')
    expect(() =>
      tokenConfig(
        input({ cdns: [{ id: 'b', secret: 't', cdnDomain: 'c.test', cdnDomainIp: 'd.test' }] }),
      ),
    ).toThrow('config.cdns[0].secret is not a setting of a CDN')
  })

  it('names the field the object set: auth.secret.alg or auth.jwks.algs', () => {
    expect(() =>
      tokenConfig({
        signing,
        auth: { mode: 'jwt', secret: { key: 'k'.repeat(16), alg: 'RS256' as 'HS256' } },
      }),
    ).toThrow('config.auth.secret.alg must be HS256, HS384, HS512 with config.auth.secret.key')
    expect(() =>
      tokenConfig({
        signing,
        auth: {
          mode: 'jwt',
          jwks: { url: 'https://a.test/jwks', algs: ['ES256', 'HS256' as 'ES256'] },
        },
      }),
    ).toThrow('config.auth.jwks.algs must be an asymmetric algorithm with a JWKS')
  })

  it('an error of the object form carries no advice for variables', () => {
    try {
      tokenConfig({ signing: { ...signing, secretKey: '' }, auth: NONE })
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).advice).toBeUndefined()
      expect((error as ConfigError).variable).toBe('config.signing.secretKey')
    }
    expect(() => configFromEnv(testEnv({ SECRET_KEY: '' }))).toThrow(
      'SECRET_KEY is required: it must be set, without spaces or line breaks at either end (wrangler secret put SECRET_KEY)',
    )
  })
})
