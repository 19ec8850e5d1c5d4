import type { Context, Env } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { jwk } from 'hono/jwk'
import { jwt } from 'hono/jwt'
import type { BlankEnv, MiddlewareHandler } from 'hono/types'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import { type AuthConfig, ConfigError } from './config.ts'
import { hmacKey } from './hmac-key.ts'
import { JwksCache, jwtHeaderOf } from './jwks-cache.ts'
import type { TokenAppEnvOf } from './types.ts'
import { VerifiedJwts } from './verified-jwts.ts'

/** The outcome of an authorization check. */
export type AuthDecision = { allow: true } | { allow: false; status: 401 | 403; reason: string }

/**
 * Decides whether the caller may get a token for `video` (already validated as a safe slug).
 * The only thing the worker knows about users: plug your own to check a session, a
 * subscription or a pay-per-view purchase. `E` is your app's Hono environment: its bindings and
 * variables are typed on `c`.
 *
 * @example
 * ```ts
 * const paidOnly: Authorizer<{ Bindings: { ENTITLEMENTS: KVNamespace } }> = async (c, video) => {
 *   const session = c.req.header('cookie')?.match(/session=(\w+)/)?.[1]
 *   if (!session) return deny(401, 'sign in first')
 *   const ok = await c.env.ENTITLEMENTS.get(`${session}:${video}`)
 *   return ok ? allow : deny(403, `no purchase of video "${video}"`)
 * }
 * ```
 */
export type Authorizer<E extends Env = BlankEnv> = (
  c: Context<TokenAppEnvOf<E>>,
  video: string,
) => AuthDecision | Promise<AuthDecision>

/** An allowing decision. @example `return allow` */
export const allow: AuthDecision = { allow: true }

/**
 * A denying decision: 401 when the caller is not authenticated, 403 when it is but may not
 * watch this video. The reason is sent to the caller as `{error}`.
 *
 * @example
 * ```ts
 * return deny(403, 'subscription expired')
 * ```
 */
export function deny(status: 401 | 403, reason: string): AuthDecision {
  return {
    allow: false,
    status,
    reason,
  }
}

let warned = false

/**
 * Mode `none`: everyone may get a token for every video. Fine for local development; in
 * production it lets any caller obtain a token for any asset, so it warns once per isolate.
 *
 * @example
 * ```ts
 * createTokenApp({ authorize: allowAll })
 * ```
 */
export const allowAll: Authorizer = () => {
  if (!warned) {
    warned = true
    console.warn(
      'token-backend: AUTH_MODE is "none": any caller can get a token for any video. Set AUTH_MODE=jwt or plug an authorizer before production.',
    )
  }
  return allow
}

/**
 * The JWT claim check: `"*"`, or an array containing `"*"` or the video.
 *
 * @example
 * ```ts
 * claimAllows(['demo', 'trailer'], 'demo') // true
 * claimAllows('*', 'anything')            // true
 * claimAllows('demo', 'demo')             // false: a list is required
 * ```
 */
export function claimAllows(claim: unknown, video: string): boolean {
  return claim === '*' || (Array.isArray(claim) && (claim.includes('*') || claim.includes(video)))
}

type JwtAuth = Extract<AuthConfig, { mode: 'jwt' }>

/** Per configuration (one per isolate): the verifying middleware and, for a JWKS URL, its key cache. */
interface Verifier {
  middleware: MiddlewareHandler
  cache: JwksCache | undefined
}

const verifiers = new WeakMap<AuthConfig, Verifier>()

/** `JWT_REQUIRE_EXP`'s rule: a JWT without `exp` would be valid forever. */
const refusedForNoExp = (requireExp: boolean, payload: unknown): boolean =>
  requireExp &&
  (typeof payload !== 'object' ||
    payload === null ||
    typeof Reflect.get(payload, 'exp') !== 'number')

// hono's clock for JWT times (not the app's `now`, which only dates what we sign)
const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * Runs `verify` (hono's middleware) unless `header` was verified against `keys` before and its
 * claims are still in time; either way `jwtPayload` is set when the JWT is good. A JWT without
 * `exp` is not remembered where `requireExp` refuses it anyway (it would never time out).
 */
async function rememberingVerification<K>(
  verified: VerifiedJwts<K>,
  keys: K,
  c: Context,
  verify: MiddlewareHandler,
  requireExp: boolean,
): Promise<void> {
  const header = c.req.raw.headers.get('authorization') ?? undefined
  const claims = verified.get(header, keys, nowSeconds())
  if (claims !== undefined) {
    c.set('jwtPayload', claims)
    return
  }
  await verify(c, async () => {
    const payload: unknown = c.get('jwtPayload')
    if (!refusedForNoExp(requireExp, payload)) verified.keep(header, keys, payload)
  })
}

const verifierFor = (auth: JwtAuth): Verifier => {
  let verifier = verifiers.get(auth)
  if (verifier) return verifier
  const verification = {
    ...(auth.issuer !== undefined && { iss: auth.issuer }),
    ...(auth.audience !== undefined && { aud: auth.audience }),
  }
  const realm = 'token'
  if (auth.secret) {
    const { key, alg } = auth.secret
    let middleware: MiddlewareHandler | undefined
    // the key, not the text: hono would import the text again for every JWT
    const ready = hmacKey(key, alg).then((secret) => {
      middleware = jwt({ secret, alg, realm, verification })
      return middleware
    })
    // a shared secret cannot change within one configuration: nothing else to compare
    const verified = new VerifiedJwts<true>()
    verifier = {
      middleware: async (c, next) => {
        await rememberingVerification(
          verified,
          true,
          c,
          middleware ?? (await ready),
          auth.requireExp,
        )
        await next()
      },
      cache: undefined,
    }
  } else {
    const { url, keys: inline = [], algs } = auth.jwks ?? { algs: [] }
    // Our own cache, not the middleware's jwks_uri: that fetches on every request off Workers.
    const cache = url === undefined ? undefined : new JwksCache({ url })
    const verified = new VerifiedJwts<HonoJsonWebKey[]>()
    verifier = {
      cache,
      middleware: async (c, next) => {
        const header = jwtHeaderOf(c.req.header('authorization'))
        // no JWT at all is refused (401) by the middleware: no reason to wait on the key server
        const fetched =
          cache && header !== undefined
            ? await cache.keysFor(typeof header.kid === 'string' ? header.kid : undefined)
            : inline
        // a JWT is remembered with the key set it was verified by: after a rotation, again
        const keys = () => (fetched === inline ? inline : [...inline, ...fetched])
        const verify = jwk({ keys, alg: algs, realm, verification })
        await rememberingVerification(verified, fetched, c, verify, auth.requireExp)
        await next()
      },
    }
  }
  verifiers.set(auth, verifier)
  return verifier
}

/**
 * Mode `jwt`: verifies the viewer's `Authorization: Bearer <jwt>` with Hono's `jwt` (shared
 * secret) or `jwk` (JWKS, keys from a {@link JwksCache}) middleware (signature, `exp`, `nbf`,
 * optional `iss`/`aud`), requires `exp` unless `JWT_REQUIRE_EXP=false`, then requires the videos
 * claim to list the video or `*`. A failed verification throws the
 * middleware's 401 with its `WWW-Authenticate` challenge.
 *
 * @example
 * ```ts
 * // Viewer JWT payload: { "sub": "user-1", "videos": ["demo", "trailer"], "exp": 1767225600 }
 * const authorize = jwtAuthorizer(config.auth)
 * ```
 */
export function jwtAuthorizer(auth: JwtAuth): Authorizer {
  return async (c, video) => {
    try {
      await verifierFor(auth).middleware(c, async () => {})
    } catch (error) {
      throw namedRefusal(error, auth.jwks !== undefined)
    }
    const payload: unknown = c.get('jwtPayload')
    const claims =
      typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {}
    if (refusedForNoExp(auth.requireExp, claims))
      return deny(401, 'viewer token has no exp (it would be valid forever): issue it with one')
    const claim = claims[auth.videosClaim]
    return claimAllows(claim, video)
      ? allow
      : deny(403, `token does not grant access to video "${video}"`)
  }
}

/**
 * What a viewer is told of hono's JWT errors, by name (their messages quote the JWT). Only what
 * the token itself says: hono checks the clock claims before the signature, so these are hints
 * for a player (renew the login, or not), never proof that the token was ours; an issuer or
 * audience refused is not told apart from the rest (`bearer token not accepted`), so that no
 * one can confirm guesses of `JWT_ISSUER` or `JWT_AUDIENCE` without a valid token.
 */
const JWT_REFUSALS: ReadonlyMap<string, string> = new Map([
  ['JwtTokenExpired', 'bearer token expired'],
  ['JwtTokenNotBefore', 'bearer token not valid yet (nbf)'],
  ['JwtTokenIssuedAt', 'bearer token issued in the future (iat)'],
  ['JwtTokenSignatureMismatched', 'bearer token signature does not verify'],
  ['JwtTokenInvalid', 'bearer token malformed'],
  ['JwtHeaderInvalid', 'bearer token header malformed'],
  ['JwtHeaderRequiresKid', 'bearer token has no kid'],
  ['JwtAlgorithmMismatch', 'bearer token algorithm not accepted'],
  ['JwtAlgorithmNotAllowed', 'bearer token algorithm not accepted'],
  ['JwtAlgorithmNotImplemented', 'bearer token algorithm not accepted'],
  ['JwtSymmetricAlgorithmNotAllowed', 'bearer token algorithm not accepted'],
])

/**
 * Hono's 401 for a JWT it could not verify says `Unauthorized` whatever the cause: the same 401
 * and challenge, its body naming why (expired, not yet valid, a bad signature…), so a player can
 * tell a login to renew from a token to replace. Other errors pass as they are. With a key set
 * (`jwks`), hono's "invalid" also means no key of the set has the token's `kid`.
 */
function namedRefusal(error: unknown, jwks: boolean): unknown {
  if (!(error instanceof HTTPException) || error.status !== 401) return error
  const { cause } = error
  const name = cause instanceof Error ? cause.name : ''
  const reason =
    jwks && name === 'JwtTokenInvalid'
      ? 'bearer token malformed, or its key (kid) not in the key set'
      : JWT_REFUSALS.get(name)
  // hono's other 401s (no token, not a Bearer) already say what is wrong
  if (reason === undefined && error.message !== 'Unauthorized') return error
  const message = reason ?? 'bearer token not accepted'
  return new HTTPException(401, { message, ...(error.res && { res: error.res }), cause })
}

/**
 * The built-in authorizer selected by `AUTH_MODE`.
 *
 * @throws {ConfigError} without `auth` (`AUTH_MODE` unset, which only an app with its own
 * authorizer accepts): never an open door by omission.
 * @example
 * ```ts
 * const authorize = authorizerFor(loadConfig(env).auth)
 * ```
 */
export function authorizerFor(auth: AuthConfig | undefined): Authorizer {
  if (auth === undefined)
    throw new ConfigError('AUTH_MODE', 'is required without an authorizer of your own')
  return auth.mode === 'jwt' ? jwtAuthorizer(auth) : allowAll
}
