import { env } from 'cloudflare:test'
import { sign } from 'hono/jwt'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { NOW_MS, NOW_S, testEnv } from '../test/helpers.ts'
import { TEST_JWKS_URL } from '../test/jwks.ts'
import { createTokenApp } from './app.ts'
import { claimAllows, deny, jwtAuthorizer } from './authorize.ts'

const JWT_SECRET = 'viewer-jwt-shared-secret-0123456789'
const app = createTokenApp({ now: () => NOW_MS })
const realNow = () => Math.floor(Date.now() / 1000)

const call = (video: string, token: string | undefined, overrides: Record<string, string>) =>
  app.request(
    `/token?video=${video}`,
    { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
    testEnv(overrides),
  )

/** GET /token for `video` with `jwt` as the bearer token, under `settings`. */
const withBearer = (jwt: string, settings: object, video = 'demo') =>
  app.request(`/token?video=${video}`, { headers: { authorization: `Bearer ${jwt}` } }, settings)

afterEach(() => vi.restoreAllMocks())

describe('claimAllows', () => {
  it.each([
    ['*', true],
    [['*'], true],
    [['demo', 'other'], true],
    [['other'], false],
    ['demo', false],
    [undefined, false],
    [{ demo: true }, false],
  ])('%j → %s', (claim, allowed) => {
    expect(claimAllows(claim, 'demo')).toBe(allowed)
  })
})

describe('AUTH_MODE=none', () => {
  it('signs for anyone and warns once per isolate, not per request', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    // A fresh module instance so the once-per-isolate flag starts unset.
    vi.resetModules()
    const { createTokenApp: fresh } = await import('./app.ts')
    const none = fresh({ now: () => NOW_MS })
    for (let i = 0; i < 3; i++)
      expect((await none.request('/token?video=demo', {}, testEnv())).status).toBe(200)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toContain('AUTH_MODE is "none"')
  })
})

describe('AUTH_MODE=jwt with a shared secret', () => {
  const mode = { AUTH_MODE: 'jwt', JWT_SECRET }
  const token = (payload: Record<string, unknown>, secret = JWT_SECRET) =>
    sign({ exp: realNow() + 300, ...payload }, secret, 'HS256')

  it('answers 401 with a WWW-Authenticate challenge when no bearer token is sent', async () => {
    const res = await call('demo', undefined, mode)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('Bearer')
    expect(await res.json()).toEqual({ error: 'no authorization included in request' })
  })

  it.each([
    [
      'a wrong signature',
      () => token({ videos: ['demo'] }, 'another-secret-of-enough-length'),
      'bearer token signature does not verify',
    ],
    [
      'an expired token',
      () => token({ videos: ['demo'], exp: realNow() - 10 }),
      'bearer token expired',
    ],
    [
      'a token not yet valid',
      () => token({ videos: ['demo'], nbf: realNow() + 600 }),
      'bearer token not valid yet (nbf)',
    ],
    [
      'a token issued in the future',
      () => token({ videos: ['demo'], iat: realNow() + 600 }),
      'bearer token issued in the future (iat)',
    ],
    ['garbage', async () => 'not-a.jwt-at-all.x', 'bearer token malformed'],
  ])('answers 401 for %s, its body naming why (never quoting the token)', async (_, make, why) => {
    const jwt = await make()
    const res = await call('demo', jwt, mode)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    const body = await res.text()
    expect(JSON.parse(body)).toEqual({ error: why })
    expect(body).not.toContain(jwt.split('.')[1])
  })

  it('refuses a token without exp (valid forever) unless JWT_REQUIRE_EXP=false', async () => {
    const forever = await sign({ videos: ['demo'] }, JWT_SECRET, 'HS256')
    const res = await call('demo', forever, mode)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ error: expect.stringContaining('no exp') })
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="token"')
    expect((await call('demo', forever, { ...mode, JWT_REQUIRE_EXP: 'false' })).status).toBe(200)
    expect((await call('demo', forever, { ...mode, JWT_REQUIRE_EXP: 'maybe' })).status).toBe(500)
  })

  it('answers 403 when the videos claim does not list the video', async () => {
    const res = await call('paid', await token({ videos: ['demo'] }), mode)
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ error: 'token does not grant access to video "paid"' })
    expect((await call('paid', await token({}), mode)).status).toBe(403)
  })

  it('signs when the claim lists the video or "*"', async () => {
    expect((await call('demo', await token({ videos: ['demo'] }), mode)).status).toBe(200)
    expect((await call('paid', await token({ videos: '*' }), mode)).status).toBe(200)
  })

  it('reads a configured claim name and enforces issuer and audience', async () => {
    const strict = {
      ...mode,
      JWT_VIDEOS_CLAIM: 'https://example.com/videos',
      JWT_ISSUER: 'https://id.test',
      JWT_AUDIENCE: 'player',
    }
    const good = await token({
      'https://example.com/videos': ['demo'],
      iss: 'https://id.test',
      aud: 'player',
    })
    expect((await call('demo', good, strict)).status).toBe(200)
    const otherIssuer = await token({
      'https://example.com/videos': ['demo'],
      iss: 'https://evil.test',
      aud: 'player',
    })
    const refusedIssuer = await call('demo', otherIssuer, strict)
    expect(refusedIssuer.status).toBe(401)
    // not told apart: no one confirms guesses of the issuer or audience without a valid token
    expect(await refusedIssuer.json()).toEqual({ error: 'bearer token not accepted' })
    const otherAudience = await token({
      'https://example.com/videos': ['demo'],
      iss: 'https://id.test',
      aud: 'admin',
    })
    const refusedAudience = await call('demo', otherAudience, strict)
    expect(refusedAudience.status).toBe(401)
    expect(await refusedAudience.json()).toEqual({ error: 'bearer token not accepted' })
  })

  it('checks the bearer token before the claim, and validates the query before both', async () => {
    expect((await call('a%2Fb', undefined, mode)).status).toBe(400)
  })

  it.each(['HS384', 'HS512'] as const)(
    'verifies with the pinned JWT_ALG=%s and refuses a JWT of another algorithm',
    async (alg) => {
      const pinned = { ...mode, JWT_ALG: alg }
      const exp = realNow() + 300
      const good = await sign({ exp, videos: ['demo'] }, JWT_SECRET, alg)
      expect((await call('demo', good, pinned)).status).toBe(200)
      const hs256 = await sign({ exp, videos: ['demo'] }, JWT_SECRET, 'HS256')
      expect((await call('demo', hs256, pinned)).status).toBe(401)
      const forged = await sign({ exp, videos: ['demo'] }, `${JWT_SECRET}-not`, alg)
      expect((await call('demo', forged, pinned)).status).toBe(401)
    },
  )

  it('imports the secret once, not once per JWT', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey')
    const verifying = () =>
      importKey.mock.calls.filter(([, , , , usages]) => usages.includes('verify')).length
    const secret = `${JWT_SECRET}-imported-once`
    const once = testEnv({ ...mode, JWT_SECRET: secret })
    const jwt = await token({ videos: ['demo'] }, secret)
    const before = verifying()
    for (let i = 0; i < 3; i++) expect((await withBearer(jwt, once)).status).toBe(200)
    expect(verifying() - before).toBe(1)
  })

  it('verifies a JWT that comes back (every refresh) once, until hono would refuse it', async () => {
    const checks = vi.spyOn(crypto.subtle, 'verify')
    const remembering = testEnv({ ...mode, JWT_SECRET: `${JWT_SECRET}-remembered` })
    const get = (jwt: string, video = 'demo') => withBearer(jwt, remembering, video)
    const exp = realNow() + 120
    const jwt = await sign({ exp, videos: ['demo'] }, `${JWT_SECRET}-remembered`, 'HS256')
    for (let i = 0; i < 3; i++) expect((await get(jwt)).status).toBe(200)
    expect(checks).toHaveBeenCalledTimes(1)
    // the claims are still checked on every request
    expect((await get(jwt, 'paid')).status).toBe(403)
    // one character of the signature changed is another input: verified, and refused
    const tampered = `${jwt.slice(0, -2)}${jwt.at(-2) === 'A' ? 'B' : 'A'}${jwt.at(-1)}`
    expect((await get(tampered)).status).toBe(401)
    expect(checks).toHaveBeenCalledTimes(2)
    // the same JWT under another secret: another configuration, verified again, refused
    const other = testEnv({ ...mode, JWT_SECRET: `${JWT_SECRET}-other` })
    expect((await withBearer(jwt, other)).status).toBe(401)
    expect(checks).toHaveBeenCalledTimes(3)
    // another spelling hono accepts is verified every time, not remembered
    for (let i = 0; i < 2; i++) expect((await get(`  ${jwt}`)).status).toBe(200)
    expect(checks).toHaveBeenCalledTimes(5)
    // at its exp, refused as hono refuses it, with hono's challenge
    vi.useFakeTimers({ toFake: ['Date'], now: exp * 1000 })
    try {
      const expired = await get(jwt)
      expect(expired.status).toBe(401)
      expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"')
    } finally {
      vi.useRealTimers()
    }
  })

  it('remembers a JWT without exp only where such a JWT is accepted', async () => {
    const checks = vi.spyOn(crypto.subtle, 'verify')
    const secret = `${JWT_SECRET}-no-exp`
    const forever = await sign({ videos: ['demo'] }, secret, 'HS256')
    const twice = async (env: Record<string, string>, status: number) => {
      const settings = testEnv({ ...mode, JWT_SECRET: secret, ...env })
      for (let i = 0; i < 2; i++) expect((await withBearer(forever, settings)).status).toBe(status)
    }
    await twice({}, 401)
    expect(checks).toHaveBeenCalledTimes(2)
    await twice({ JWT_REQUIRE_EXP: 'false' }, 200)
    expect(checks).toHaveBeenCalledTimes(3)
  })

  it("gives each request its own claims: an authorizer's change is not seen by the next", async () => {
    const settings = testEnv({ ...mode, JWT_SECRET: `${JWT_SECRET}-own-claims` })
    const greedy = createTokenApp({
      now: () => NOW_MS,
      async authorize(c, video) {
        const auth = c.get('tokenConfig').auth
        if (auth?.mode !== 'jwt') return deny(401, 'sign in')
        const decision = await jwtAuthorizer(auth)(c, video)
        // a careless authorizer of one's own, changing the claims it was given
        ;(c.get('jwtPayload') as { videos: string[] }).videos.push('paid')
        return decision
      },
    })
    const jwt = await token({ videos: ['demo'] }, `${JWT_SECRET}-own-claims`)
    const get = (video: string) =>
      greedy.request(
        `/token?video=${video}`,
        { headers: { authorization: `Bearer ${jwt}` } },
        settings,
      )
    for (let i = 0; i < 2; i++) expect((await get('demo')).status).toBe(200)
    expect((await get('paid')).status).toBe(403)
  })
})

describe('AUTH_MODE=jwt with a JWKS', () => {
  const privateJwk = JSON.parse(env.TEST_PRIVATE_JWK)
  const publicJwk = {
    kty: privateJwk.kty,
    crv: privateJwk.crv,
    x: privateJwk.x,
    y: privateJwk.y,
    kid: privateJwk.kid,
    alg: 'ES256',
  }
  const token = (payload: Record<string, unknown>) =>
    sign({ exp: realNow() + 300, ...payload }, privateJwk, 'ES256')

  it('fetches the key set from JWT_JWKS_URL', async () => {
    const mode = { AUTH_MODE: 'jwt', JWT_JWKS_URL: TEST_JWKS_URL }
    expect((await call('demo', await token({ videos: ['demo'] }), mode)).status).toBe(200)
    expect((await call('other', await token({ videos: ['demo'] }), mode)).status).toBe(403)
    const forged = await sign({ videos: '*', exp: realNow() + 300 }, 'x'.repeat(32), 'HS256')
    expect((await call('demo', forged, mode)).status).toBe(401)
  })

  it('key server down: no token or no JWT is a 401 at once, without asking it; a JWT waits for it (503)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    // the tests' outbound service answers 502 for this host: a key server that is down
    const mode = { AUTH_MODE: 'jwt', JWT_JWKS_URL: 'https://down.auth.test/jwks.json' }
    const fetches = vi.spyOn(globalThis, 'fetch')
    for (const bearer of [undefined, 'garbage', 'a.b', 'x.y.z', '%%%.%%%.%%%']) {
      const answer = await call('demo', bearer, mode)
      expect(answer.status).toBe(401)
      expect(answer.headers.get('www-authenticate')).toContain('Bearer')
    }
    expect(fetches).not.toHaveBeenCalled()
    expect((await call('demo', await token({ videos: ['demo'] }), mode)).status).toBe(503)
    expect(fetches).toHaveBeenCalled()
  })

  it('accepts an inline key set in JWT_JWKS', async () => {
    const mode = {
      AUTH_MODE: 'jwt',
      JWT_JWKS: JSON.stringify({ keys: [publicJwk] }),
      JWT_ALG: 'ES256',
    }
    expect((await call('demo', await token({ videos: ['demo'] }), mode)).status).toBe(200)
    expect((await call('demo', undefined, mode)).status).toBe(401)
    // a key rotated out of the set: not "malformed" alone
    const rotatedOut = await sign(
      { videos: ['demo'], exp: realNow() + 300 },
      { ...privateJwk, kid: 'rotated-out' },
      'ES256',
    )
    const refused = await call('demo', rotatedOut, mode)
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({
      error: 'bearer token malformed, or its key (kid) not in the key set',
    })
  })

  it('verifies a JWT that comes back once per key set', async () => {
    const checks = vi.spyOn(crypto.subtle, 'verify')
    const inline = testEnv({ AUTH_MODE: 'jwt', JWT_JWKS: JSON.stringify([publicJwk]) })
    const jwt = await token({ videos: ['demo'] })
    for (let i = 0; i < 3; i++) expect((await withBearer(jwt, inline)).status).toBe(200)
    expect(checks).toHaveBeenCalledTimes(1)
  })

  it('keeps NOW_S in the signed record while JWT times use the real clock', async () => {
    const mode = { AUTH_MODE: 'jwt', JWT_JWKS: JSON.stringify([publicJwk]) }
    const res = await call('demo', await token({ videos: ['demo'] }), mode)
    expect((await res.json<{ expires: number }>()).expires).toBe(NOW_S + 3600)
  })
})
