import { sign, verify } from 'hono/jwt'
import * as v from 'valibot'
import type { SessionBinding } from '../config.ts'
import { hmacKey } from '../hmac-key.ts'
import { LruMap } from '../lru.ts'

/** The claims of a session credential (a JWT, HS256, signed with `SESSION_SECRET`). */
export interface SessionClaims {
  /** The account (`CLIENT_ID`) the session plays from. */
  cid: string
  /** The one video it may play. */
  video: string
  type: 'vod' | 'live'
  /** Session ID: what the operator revokes and the audit log names. */
  sid: string
  /** Issued at / expires at, Unix seconds (whole: what every release reads). */
  iat: number
  exp: number
  /**
   * Issued at, Unix milliseconds: a viewer's revocation and a session issued in the same second
   * are told apart ({@link issuedAt}). A claim of its own, not a fraction in `iat`: the release
   * before reads `iat` as a whole number and ignores claims it does not know, so its instances
   * accept these credentials during a rolling upgrade or after a rollback.
   */
  iatms?: number
  /** How it is bound, and the network it was issued to (absent for `none`). */
  bind: SessionBinding
  net?: string
  /** The viewer JWT's subject, when there was one: revoking it revokes all its sessions. */
  sub?: string
  /**
   * The viewer's stream limit when the session was issued with stream limits on (their JWT's
   * claim, or the configuration's): what an idle session coming back is counted against.
   */
  lim?: number
}

const claimsSchema = v.object({
  cid: v.string(),
  video: v.string(),
  type: v.picklist(['vod', 'live']),
  sid: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/)),
  iat: v.pipe(v.number(), v.integer()),
  exp: v.pipe(v.number(), v.integer()),
  bind: v.picklist(['none', 'prefix', 'ip']),
  net: v.optional(v.string()),
  sub: v.optional(v.string()),
  lim: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  iatms: v.optional(v.pipe(v.number(), v.integer())),
})

/**
 * When a session was issued, Unix seconds to the millisecond (`iatms`, or `iat` for a
 * credential of an earlier release): what a viewer's revocation moment is compared with.
 *
 * @example
 * ```ts
 * issuedAt({ ...claims, iat: 1767225600, iatms: 1767225600344 }) // 1767225600.344
 * ```
 */
export function issuedAt(claims: Pick<SessionClaims, 'iat' | 'iatms'>): number {
  return claims.iatms === undefined ? claims.iat : claims.iatms / 1000
}

/**
 * Signs a session credential. Hono's JWT utilities (Web Crypto HMAC): no hand-made crypto.
 *
 * @example
 * ```ts
 * const credential = await signSession(claims, env.SESSION_SECRET)
 * const url = `${origin}/s/${claims.video}/${credential}/master.m3u8`
 * ```
 */
export async function signSession(claims: SessionClaims, secret: string): Promise<string> {
  return sign({ ...claims }, await hmacKey(secret, 'HS256'), 'HS256')
}

/** Why a credential was refused. */
export type SessionProblem = 'invalid' | 'expired'

/**
 * Verifies a credential's signature (HS256 only) and the shape of its claims, then its expiry
 * against `nowSeconds` (the app's clock, not the library's).
 *
 * @example
 * ```ts
 * const result = await verifySession(credential, secret, Math.floor(Date.now() / 1000))
 * if ('problem' in result) fail(result.problem === 'expired' ? 410 : 403, '…')
 * ```
 */
export async function verifySession(
  credential: string,
  secret: string,
  nowSeconds: number,
): Promise<{ claims: SessionClaims } | { problem: SessionProblem }> {
  const claims = await readClaims(credential, secret)
  if (claims === undefined) return { problem: 'invalid' }
  return claims.exp <= nowSeconds ? { problem: 'expired' } : { claims }
}

const readClaims = async (credential: string, secret: string) => {
  try {
    const payload = await verify(credential, await hmacKey(secret, 'HS256'), {
      alg: 'HS256',
      exp: false,
      nbf: false,
      iat: false,
    })
    const parsed = v.safeParse(claimsSchema, payload)
    return parsed.success ? (parsed.output as SessionClaims) : undefined
  } catch {
    return undefined
  }
}

/**
 * {@link verifySession} with the verified claims of recent credentials kept in memory (the most
 * recently used, bounded):
 * a player asks for a segment every few seconds with the same credential, and the HMAC check
 * is most of a leaf redirect's cost. Expiry is still checked on every call.
 *
 * @example
 * ```ts
 * const sessions = verifiedSessions()
 * const result = await sessions.verify(credential, secret, nowSeconds)
 * ```
 */
export function verifiedSessions(capacity = 4096) {
  // the most recently used credentials: a playing one is never dropped for an old one
  const known = new LruMap<string, SessionClaims>(capacity)
  return {
    async verify(
      credential: string,
      secret: string,
      nowSeconds: number,
    ): Promise<{ claims: SessionClaims } | { problem: SessionProblem }> {
      // keyed by the secret too: a new SESSION_SECRET must not keep honouring old credentials
      const key = `${secret}\n${credential}`
      const claims = known.get(key)
      if (claims !== undefined)
        return claims.exp <= nowSeconds ? { problem: 'expired' } : { claims }
      const result = await verifySession(credential, secret, nowSeconds)
      if ('claims' in result) known.set(key, result.claims)
      return result
    },
  }
}
