import type { CdnSignerFactory, SigningConfig } from '@proj/signing'
import type { CdnConfig, PrimaryCdnConfig } from '@proj/signing/config'
import type { AsymmetricAlgorithm, SymmetricAlgorithm } from 'hono/utils/jwt/jwa'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import type { StreamSettings } from '../streams/stream-settings.ts'
import type { ConfigVariable } from './variables.ts'

/** The backend's environment: `wrangler.jsonc` vars, secrets and `.dev.vars`, or `process.env` on Node. */
export type TokenBackendEnv = Partial<Record<ConfigVariable | CdnVariable, string | undefined>>

/** The variables of each CDN listed in `CDNS` (`CDN_B_DOMAIN`, `SECRET_KEY_B`, …). */
export type CdnVariable = `CDN_${string}` | `SECRET_KEY_${string}`

/** How viewers are authenticated before a token is signed. */
export type AuthConfig =
  | { mode: 'none' }
  | {
      mode: 'jwt'
      /** HMAC shared secret, or... */
      secret?: { key: string; alg: SymmetricAlgorithm }
      /** ...public keys: fetched from a JWKS URL and/or given inline. */
      jwks?: { url?: string; keys?: HonoJsonWebKey[]; algs: AsymmetricAlgorithm[] }
      /** Claim listing the videos the viewer may watch (`["a","b"]` or `"*"`). */
      videosClaim: string
      issuer?: string
      audience?: string
      /** Refuse viewer JWTs without `exp` (valid forever otherwise). Default true. */
      requireExp: boolean
    }

/**
 * What a session is tied to: nothing, the viewer's network (IPv4 /24, IPv6 /64) or the exact
 * address. See docs/sessions.md, "Security model".
 */
export type SessionBinding = 'none' | 'prefix' | 'ip'

/** The session lane (`GET /session`, `/s/…`); off unless `SESSION_SECRET` is set. */
export interface SessionConfig {
  /** Signs session credentials (HS256); never the CDN secret. */
  secret: string
  /** Longest session, in seconds (`SESSION_LIFETIME`, default 6 h, at most 24 h). */
  lifetimeSeconds: number
  binding: SessionBinding
  /** Distinct networks one session may be used from, the issuing one included (default 2). */
  maxNetworks: number
  /** Lifetime of each CDN URL a session hands out, in seconds (default 30). */
  leafLifetimeSeconds: number
  /** Bearer token of the revocation endpoint; `undefined`: the endpoint is off. */
  adminToken: string | undefined
  /** Public base of session URLs (behind a proxy); `undefined`: the request's own origin. */
  baseUrl: string | undefined
}

/** Where the Redis of {@link TokenBackendConfig.redis} is. */
export interface RedisConfig {
  /** `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. May hold a password. */
  url: string
  /**
   * `true`: `url` is one node of a Redis Cluster (or its configuration endpoint); the client
   * discovers the others (`REDIS_CLUSTER`). Default `false`: one Redis.
   */
  cluster?: boolean
}

/**
 * The validated configuration. `Auth` is `AuthConfig` whenever `AUTH_MODE` is required (every
 * result of `configFromEnv` and `tokenConfig` without `customAuthorizer`); the configuration of a
 * request (`c.get('tokenConfig')`) may lack it.
 */
export interface TokenBackendConfig<Auth extends AuthConfig | undefined = AuthConfig | undefined> {
  /** The primary CDN: its hosts and secret, and what every CDN shares (`CLIENT_ID`, the cap). */
  signing: SigningConfig
  /**
   * The primary CDN's id and priority (`CDN_ID`, `CDN_PRIORITY`) and signer; `undefined` when
   * none is set and no other CDN is: id `primary`, priority 0, `secure_link`.
   */
  primaryCdn: PrimaryCdnConfig | undefined
  /** The other CDNs (`CDNS`), each with its own secret; `undefined`: the primary alone. */
  cdns: readonly CdnConfig[] | undefined
  /**
   * Where the viewer's address is read (`viewer-address.ts`). `undefined` with neither
   * `IP_HEADERS` nor `TRUSTED_PROXIES`: the connection's own peer (the socket on Node,
   * `CF-Connecting-IP` on Workers), which no caller can forge.
   */
  ipHeaders: readonly string[] | undefined
  /**
   * The proxies in front of the backend as CIDR ranges (`TRUSTED_PROXIES`): when the connection
   * comes from one, the viewer is the right-most `X-Forwarded-For` entry that is not one.
   * `undefined`: none.
   */
  trustedProxies: readonly string[] | undefined
  /** `undefined`: no CORS headers at all (same-origin callers only). */
  allowedOrigins: '*' | readonly string[] | undefined
  /**
   * The built-in check (`AUTH_MODE`). `undefined` only in an app with your own `authorize` and
   * no `AUTH_MODE`: your authorizer is then the only check.
   */
  auth: Auth
  /**
   * Token requests per viewer and period (`RATE_LIMIT_REQUESTS`, `RATE_LIMIT_PERIOD`); the
   * `TOKEN_RATE_LIMITER` binding, when there is one, counts with its own limit. `undefined`: off.
   */
  rateLimit: { requests: number | undefined; periodSeconds: 10 | 60 }
  /** `undefined`: sessions are off (`SESSION_SECRET` unset). */
  session: SessionConfig | undefined
  /**
   * How a viewer's networks are counted (`SESSION_BINDING`, `SESSION_MAX_NETWORKS`): a session's,
   * and with stream limits a `/token` stream's. Read whether sessions are on or not.
   */
  networks: Pick<SessionConfig, 'binding' | 'maxNetworks'>
  /**
   * The operator API's bearer token (`SESSION_ADMIN_TOKEN`): revocation, CDN drains, stream
   * control. Read whether sessions are on or not; `undefined`: that API is off (501).
   */
  adminToken: string | undefined
  /**
   * Shared state for several Node instances (`REDIS_URL`): `serveTokenApp` keeps sessions and
   * rate limits there. `undefined`: each process keeps its own, in memory. A Worker ignores it
   * (its sessions live in a Durable Object).
   */
  redis: RedisConfig | undefined
  /**
   * Stream limits (`STREAM_LIMIT` and the variables beside it): how many streams one viewer may
   * play at once. `undefined`: none, and every answer is what it was without them.
   */
  streams: StreamSettings | undefined
}

/** How a configuration is read: what the app around it does itself. */
export interface ConfigOptions {
  /**
   * The app has its own `authorize`: `AUTH_MODE` (`auth`) may be left out, and `auth` is then
   * `undefined`. Set, it is validated all the same. Default `false`: `AUTH_MODE` is required.
   */
  customAuthorizer?: boolean | undefined
}

/** How viewers are authenticated, as {@link TokenConfigInput} takes it: defaults may be left out. */
export type AuthConfigInput =
  | { mode: 'none' }
  | {
      mode: 'jwt'
      secret?: { key: string; alg?: SymmetricAlgorithm }
      jwks?: { url?: string; keys?: HonoJsonWebKey[]; algs?: AsymmetricAlgorithm[] }
      videosClaim?: string
      issuer?: string
      audience?: string
      requireExp?: boolean
    }

/**
 * The configuration as an object, for `tokenConfig` and `createTokenApp({ config })`: the
 * signing fields and `auth`, everything else optional with the defaults of the variables. A whole
 * {@link TokenBackendConfig} (from `configFromEnv`) is one too.
 */
export interface TokenConfigInput {
  signing: SigningConfig
  /**
   * Headers that carry the viewer's address, read in order (`IP_HEADERS`, spec 4.14's
   * `['x-real-ip', 'x-forwarded-for']`): only behind a proxy that overwrites them, since any
   * caller can write them. Default: the connection's own address.
   */
  ipHeaders?: readonly string[] | undefined
  /** The proxies in front of the backend, as CIDR ranges (`TRUSTED_PROXIES`). */
  trustedProxies?: readonly string[] | undefined
  allowedOrigins?: '*' | readonly string[] | undefined
  /**
   * Required, like `AUTH_MODE`: `{ mode: 'jwt', … }`, or `{ mode: 'none' }` when anyone may get
   * tokens (a warning is logged once). An app with your own `authorize` may leave it out
   * ({@link CustomAuthorizerConfigInput}).
   */
  auth: AuthConfigInput
  rateLimit?: { requests?: number | undefined; periodSeconds?: 10 | 60 | undefined } | undefined
  /**
   * Without `secret` (or `undefined`) sessions are off; `binding` and `maxNetworks` still count a
   * `/token` stream's networks, and `adminToken` still turns the operator API on.
   */
  session?: Partial<SessionConfig> | undefined
  /** `undefined`: no shared state, each Node process keeps its own (`REDIS_URL`). */
  redis?: RedisConfig | undefined
  /**
   * Stream limits: `limit` required, the rest with the defaults of `STREAM_DEFAULTS`. Needs a
   * viewer identity: `auth` in `jwt` mode, or your own `authorize`. `undefined`: no limits.
   */
  streams?: (Partial<StreamSettings> & { limit: number }) | undefined
  /**
   * The primary CDN's (`signing`'s) id (`CDN_ID`, default `primary`), priority (`CDN_PRIORITY`,
   * default 0, lower is preferred) and signer (default `secure_link`, {@link CdnSignerFactory}).
   */
  primaryCdn?: { id?: string; priority?: number; signer?: CdnSignerFactory | undefined } | undefined
  /**
   * The other CDNs (`CDNS`): each with its own secret and hosts; `priority` defaults to its place
   * in the array (1, 2, …). With one or more, `GET /token` adds every CDN's URLs (`cdns`).
   */
  cdns?: readonly CdnInput[] | undefined
}

/** One further CDN of {@link TokenConfigInput.cdns}. */
export interface CdnInput {
  /** 1 to 32 of `a-z 0-9 -`. */
  id: string
  /** Its own secret: never the primary's nor another CDN's. */
  secretKey: string
  cdnDomain: string
  cdnDomainIp: string
  /** Default `https`. */
  scheme?: 'https' | 'http' | undefined
  /** Lower is preferred; default its place in the array (1, 2, …). No two CDNs share one. */
  priority?: number | undefined
  /** Signs for this CDN instead of `secure_link`: made once, from the validated CDN. */
  signer?: CdnSignerFactory | undefined
}

/**
 * The configuration of an app with your own `authorize`: {@link TokenConfigInput} whose `auth`
 * may be left out (your authorizer is then the only check); given, it is validated all the same.
 */
export type CustomAuthorizerConfigInput = Omit<TokenConfigInput, 'auth'> & {
  auth?: AuthConfigInput | undefined
}
