import { z } from '@hono/zod-openapi'
import type { Context, Next } from 'hono'
import { verify } from 'hono/jwt'
import { type ApiConfig, apiConfig } from './config.ts'
import { DEV_CLIENT_ID, RESELLER_ID, SECOND_CLIENT_ID } from './data/accounts.ts'
import type { ApiBindings, ApiEnv, Principal } from './env.ts'
import { ApiError } from './errors.ts'

/** Paths that take no `Authorization` (spec 4.9; the refresh method carries its own token). */
const PUBLIC = new Set(['/iam/auth/jwt/login', '/iam/auth/jwt/refresh', '/openapi.json'])

const encoder = new TextEncoder()
const digest = async (text: string) => crypto.subtle.digest('SHA-256', encoder.encode(text))

/**
 * Finds `presented` among `keys` in constant time: every key is compared, each through SHA-256
 * digests of equal length, so neither the match position nor the key lengths show in timing.
 *
 * @example
 * ```ts
 * await findKey('k2', ['k1', 'k2']) // 1
 * ```
 */
export async function findKey(presented: string, keys: readonly string[]): Promise<number> {
  const want = await digest(presented)
  let found = -1
  for (const [index, key] of keys.entries()) {
    const equal = crypto.subtle.timingSafeEqual(want, await digest(key))
    if (equal && found === -1) found = index
  }
  return found
}

/** A JWT time claim (RFC 7519 NumericDate): whole seconds since the epoch. */
const numericDate = z.number().int().nonnegative()

/**
 * The claims of an access or refresh JWT issued by the login method, as a schema: a signature
 * says who wrote a token, not what is in it. `exp` is required (hono's `verify` only checks one
 * that is there, and a token without it would never expire), and `client_id` is the account
 * number the principal carries (a string `"1001"` was echoed as a string by `/iam/clients/me`).
 */
const SessionClaimsSchema = z.object({
  sub: z.string().min(1),
  client_id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  kind: z.enum(['client', 'reseller'] as const satisfies readonly Principal['kind'][]),
  token_type: z.enum(['access', 'refresh']),
  exp: numericDate,
  iat: numericDate,
})

/** The claims of an access or refresh JWT issued by the login method. */
export type SessionClaims = z.infer<typeof SessionClaimsSchema>

/**
 * Verifies a login JWT of the expected type: its HS256 signature, its time claims (`exp` required
 * and in the future) and the shape of its claims; `undefined` when any of that fails.
 *
 * @example
 * ```ts
 * const claims = await verifySession(token, env, 'refresh')
 * ```
 */
export async function verifySession(
  token: string,
  env: ApiBindings,
  type: SessionClaims['token_type'],
): Promise<SessionClaims | undefined> {
  const { jwtSecret } = apiConfig(env)
  if (!jwtSecret) throw new ApiError(500, 'Emulator misconfigured: JWT_SECRET is not set.')
  let payload: unknown
  try {
    payload = await verify(token, jwtSecret, 'HS256')
  } catch {
    return undefined
  }
  const claims = SessionClaimsSchema.safeParse(payload)
  if (!claims.success || claims.data.token_type !== type) return undefined
  // checked here too: hono's verify skips a falsy `exp`, so `exp: 0` would never expire
  return claims.data.exp > Date.now() / 1000 ? claims.data : undefined
}

/** An API key and the account it acts for. */
interface KeyHolder {
  key: string
  kind: Principal['kind']
  clientId: number
  /** Non-secret: which list and position (`apikey:client:0`), for rate limits and the journal. */
  label: string
}

/**
 * Every configured key with its account: `API_KEYS` act for client 1001, `SECOND_CLIENT_API_KEYS`
 * for client 1002 (each client sees only its own resources), `RESELLER_API_KEYS` for the reseller.
 */
const holdersOf = new WeakMap<ApiConfig, KeyHolder[]>()
/** {@link keyHolders} once per configuration (`apiConfig` reads each environment once). */
const holders = (config: ApiConfig): KeyHolder[] => {
  const found = holdersOf.get(config) ?? keyHolders(config)
  holdersOf.set(config, found)
  return found
}

const keyHolders = (config: ApiConfig): KeyHolder[] => [
  ...config.clientKeys.map((key, i) => ({
    key,
    kind: 'client' as const,
    clientId: DEV_CLIENT_ID,
    label: `apikey:client:${i}`,
  })),
  ...config.secondClientKeys.map((key, i) => ({
    key,
    kind: 'client' as const,
    clientId: SECOND_CLIENT_ID,
    label: `apikey:client${SECOND_CLIENT_ID}:${i}`,
  })),
  ...config.resellerKeys.map((key, i) => ({
    key,
    kind: 'reseller' as const,
    clientId: RESELLER_ID,
    label: `apikey:reseller:${i}`,
  })),
]

/**
 * Authentication for every endpoint but login/refresh (spec 5): `Authorization: APIKey <key>`
 * (scheme case-insensitive, one space) with a client or reseller key, or `Bearer <access JWT>`
 * from the login method. Sets `principal`; 401 otherwise.
 *
 * @example
 * ```ts
 * app.use(authenticate)
 * ```
 */
export async function authenticate(c: Context<ApiEnv>, next: Next): Promise<Response | void> {
  if (PUBLIC.has(c.req.path) || c.req.path.startsWith('/__admin')) return next()
  const header = c.req.header('authorization')
  if (!header) throw new ApiError(401, 'Authentication credentials were not provided.')
  const space = header.indexOf(' ')
  const scheme = space === -1 ? header : header.slice(0, space)
  const credential = space === -1 ? '' : header.slice(space + 1)
  if (!credential || credential.includes(' '))
    throw new ApiError(401, 'Invalid Authorization header: expected "<scheme> <token>".')
  if (scheme.toLowerCase() === 'apikey') {
    const known = holders(apiConfig(c.env))
    const index = await findKey(
      credential,
      known.map((holder) => holder.key),
    )
    const holder = known[index]
    if (!holder) throw new ApiError(401, 'Invalid API key.')
    c.set('principal', {
      kind: holder.kind,
      clientId: holder.clientId,
      via: 'apikey',
      label: holder.label,
    })
    return next()
  }
  if (scheme.toLowerCase() === 'bearer') {
    const claims = await verifySession(credential, c.env, 'access')
    if (!claims)
      throw new ApiError(
        401,
        'Given token not valid for any token type (invalid, expired or not an access token).',
      )
    c.set('principal', {
      kind: claims.kind,
      clientId: claims.client_id,
      via: 'jwt',
      label: `jwt:${claims.sub}`,
    })
    return next()
  }
  throw new ApiError(401, `Unsupported authorization scheme "${scheme}": use APIKey or Bearer.`)
}

/**
 * Reseller endpoints: 403 for a client credential.
 *
 * @example
 * ```ts
 * cloud.use('/reseller/*', requireReseller)
 * ```
 */
export async function requireReseller(c: Context<ApiEnv>, next: Next): Promise<Response | void> {
  if (c.get('principal').kind !== 'reseller') {
    throw new ApiError(
      403,
      'You do not have permission to perform this action: a reseller credential is required.',
    )
  }
  return next()
}

/**
 * Whether `principal` may see a resource of client account `clientId`: a client its own only, the
 * reseller every one of its clients' (all seeded clients are). Anything else is, for the caller,
 * not there at all: a 404 or an absent list item, never a 403 that would confirm it exists.
 *
 * @example
 * ```ts
 * const mine = c.get('data').aiTasks.filter((t) => owns(c.get('principal'), t.client_id))
 * ```
 */
export function owns(principal: Principal, clientId: number): boolean {
  return principal.kind === 'reseller' || principal.clientId === clientId
}
