import { type CdnSignerFactory, parseIpRanges, type SigningConfig } from '@proj/signing'
import {
  type CdnConfig,
  type CdnListVariable,
  ConfigError,
  cdnVariables,
  DEFAULT_CDN_ID,
  isCdnId,
  type PrimaryCdnConfig,
  parseCdnList,
  parseSigningConfig,
  perEnvironment,
  type SigningVariable,
} from '@proj/signing/config'
import type { AsymmetricAlgorithm, SymmetricAlgorithm } from 'hono/utils/jwt/jwa'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import * as v from 'valibot'

/** The worker's environment: `wrangler.jsonc` vars, secrets and `.dev.vars`, or `process.env` on Node. */
export type TokenWorkerEnv = Partial<Record<ConfigVariable | CdnVariable, string | undefined>>

/** The variables of each CDN listed in `CDNS` (`CDN_B_DOMAIN`, `SECRET_KEY_B`, …). */
type CdnVariable = `CDN_${string}` | `SECRET_KEY_${string}`

/** The worker's own variables; the signing ones are `@proj/signing/config`'s. */
type WorkerVariable =
  | 'IP_HEADERS'
  | 'TRUSTED_PROXIES'
  | 'ALLOWED_ORIGINS'
  | 'AUTH_MODE'
  | 'JWT_SECRET'
  | 'JWT_ALG'
  | 'JWT_JWKS_URL'
  | 'JWT_JWKS'
  | 'JWT_VIDEOS_CLAIM'
  | 'JWT_ISSUER'
  | 'JWT_AUDIENCE'
  | 'JWT_REQUIRE_EXP'
  | 'RATE_LIMIT_REQUESTS'
  | 'RATE_LIMIT_PERIOD'
  | 'SESSION_SECRET'
  | 'SESSION_LIFETIME'
  | 'SESSION_BINDING'
  | 'SESSION_MAX_NETWORKS'
  | 'SESSION_LEAF_LIFETIME'
  | 'SESSION_ADMIN_TOKEN'
  | 'SESSION_BASE_URL'
  | 'REDIS_URL'

/** Every variable the worker reads. */
export type ConfigVariable = SigningVariable | CdnListVariable | WorkerVariable

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

/** Defaults and caps of the session lane, in one place. */
export const SESSION_DEFAULTS = {
  lifetimeSeconds: 6 * 3600,
  maxLifetimeSeconds: 24 * 3600,
  binding: 'prefix',
  maxNetworks: 2,
  leafLifetimeSeconds: 30,
} as const

/**
 * The validated configuration. `Auth` is `AuthConfig` whenever `AUTH_MODE` is required (every
 * result of {@link configFromEnv} and {@link tokenConfig} without `customAuthorizer`); the
 * configuration of a request (`c.get('tokenConfig')`) may lack it.
 */
export interface TokenWorkerConfig<Auth extends AuthConfig | undefined = AuthConfig | undefined> {
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
   * Shared state for several Node instances (`REDIS_URL`): `serveTokenApp` keeps sessions and
   * rate limits there. `undefined`: each process keeps its own, in memory. A Worker ignores it
   * (its sessions live in a Durable Object).
   */
  redis: RedisConfig | undefined
}

/** Where the Redis of {@link TokenWorkerConfig.redis} is. */
export interface RedisConfig {
  /** `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. May hold a password. */
  url: string
}

export { type CdnConfig, ConfigError, type PrimaryCdnConfig }

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const SYMMETRIC = ['HS256', 'HS384', 'HS512'] as const
const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)

const isOrigin = (text: string) => {
  try {
    const url = new URL(text)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === text
  } catch {
    return false
  }
}

const isHttpUrl = (text: string) => {
  try {
    return /^https?:$/.test(new URL(text).protocol)
  } catch {
    return false
  }
}

const isRedisUrl = (text: string) => {
  try {
    const url = new URL(text)
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== ''
  } catch {
    return false
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const csv = <T extends v.GenericSchema<string, unknown>>(item: T) =>
  v.pipe(v.string(), v.transform(list), v.array(item), v.minLength(1))
const jwk = v.looseObject({ kty: v.string() })
const jwks = v.union([
  v.pipe(
    v.object({ keys: v.pipe(v.array(jwk), v.minLength(1)) }),
    v.transform((set) => set.keys),
  ),
  v.pipe(v.array(jwk), v.minLength(1)),
])
const nonEmpty = v.pipe(v.string(), v.minLength(1))

// valibot: each rule is a few functions that tree-shake, which keeps the Worker bundle (paid on
// every cold start) small.
/** One rule per variable: `[schema, what is expected]`. Missing optional → `undefined`. */
const rules = {
  IP_HEADERS: [
    v.optional(
      csv(
        v.pipe(
          v.string(),
          v.regex(HEADER_NAME),
          v.transform((s) => s.toLowerCase()),
        ),
      ),
    ),
    'must be a comma-separated list of header names',
  ],
  TRUSTED_PROXIES: [
    v.optional(
      v.pipe(
        csv(v.string()),
        v.check((list) => 'ranges' in parseIpRanges(list)),
      ),
    ),
    'must be a comma-separated list of addresses or CIDR ranges such as 10.0.0.0/8, 127.0.0.1 (the proxies in front of the backend)',
  ],
  ALLOWED_ORIGINS: [
    v.optional(v.union([v.literal('*'), csv(v.pipe(v.string(), v.check(isOrigin)))])),
    'must be "*" or a comma-separated list of origins such as https://player.example.com',
  ],
  // no default: who may get tokens is a choice the configuration names (closed by default),
  // unless the app has its own authorizer (readAuth)
  AUTH_MODE: [
    v.picklist(['none', 'jwt']),
    'must be "jwt" (viewers need a JWT: set JWT_SECRET, JWT_JWKS_URL or JWT_JWKS) or "none" (anyone may get tokens)',
  ],
  JWT_SECRET: [v.optional(v.pipe(v.string(), v.minLength(16))), 'must be at least 16 characters'],
  JWT_ALG: [
    v.optional(v.picklist([...SYMMETRIC, ...ASYMMETRIC])),
    `must be one of ${[...SYMMETRIC, ...ASYMMETRIC].join(', ')}`,
  ],
  JWT_JWKS_URL: [v.optional(v.pipe(v.string(), v.check(isHttpUrl))), 'must be an http(s) URL'],
  JWT_JWKS: [
    v.optional(v.pipe(v.string(), v.transform(parseJson), jwks)),
    'must be a JSON Web Key Set ({"keys":[…]}) or an array of JWKs',
  ],
  JWT_VIDEOS_CLAIM: [v.optional(nonEmpty, 'videos'), 'must be a claim name'],
  JWT_ISSUER: [v.optional(nonEmpty), 'must be non-empty'],
  JWT_AUDIENCE: [v.optional(nonEmpty), 'must be non-empty'],
  JWT_REQUIRE_EXP: [
    v.optional(v.picklist(['true', 'false']), 'true'),
    'must be "true" (default: viewer JWTs need exp) or "false"',
  ],
  RATE_LIMIT_REQUESTS: [
    v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d{0,8}$/), v.transform(Number))),
    'must be a whole number of requests per viewer and period, 1 or more',
  ],
  RATE_LIMIT_PERIOD: [
    // unset is handled where it is read
    v.optional(
      v.pipe(
        v.picklist(['10', '60']),
        v.transform((text) => (text === '10' ? 10 : 60) as 10 | 60),
      ),
    ),
    'must be 10 or 60 (seconds, the periods of the Workers Rate Limiting binding)',
  ],
  SESSION_SECRET: [
    v.optional(v.pipe(v.string(), v.minLength(32))),
    'must be at least 32 characters (e.g. openssl rand -base64 32)',
  ],
  SESSION_LIFETIME: [
    v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[1-9]\d{0,5}$/),
        v.transform(Number),
        v.maxValue(SESSION_DEFAULTS.maxLifetimeSeconds),
      ),
    ),
    `must be a whole number of seconds, at most ${SESSION_DEFAULTS.maxLifetimeSeconds} (24 h)`,
  ],
  SESSION_BINDING: [
    v.optional(v.picklist(['none', 'prefix', 'ip'])),
    'must be "prefix" (default: the viewer\'s /24 or /64), "ip" or "none"',
  ],
  SESSION_MAX_NETWORKS: [
    v.optional(v.pipe(v.string(), v.regex(/^[1-8]$/), v.transform(Number))),
    'must be a number of networks from 1 to 8',
  ],
  SESSION_LEAF_LIFETIME: [
    v.optional(
      v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(5), v.maxValue(600)),
    ),
    'must be a whole number of seconds from 5 to 600',
  ],
  SESSION_ADMIN_TOKEN: [
    v.optional(v.pipe(v.string(), v.minLength(32))),
    'must be at least 32 characters',
  ],
  SESSION_BASE_URL: [
    v.optional(
      v.pipe(
        v.string(),
        v.check(isHttpUrl),
        v.transform((url) => url.replace(/\/+$/, '')),
      ),
    ),
    'must be an http(s) URL such as https://tokens.example.com',
  ],
  REDIS_URL: [
    v.optional(v.pipe(v.string(), v.check(isRedisUrl))),
    'must be a redis:// or rediss:// URL such as redis://redis.internal:6379/0',
  ],
} satisfies Record<WorkerVariable, [v.GenericSchema, string]>

type Parsed = { [K in WorkerVariable]: v.InferOutput<(typeof rules)[K][0]> }

const read = <K extends WorkerVariable>(env: TokenWorkerEnv, variable: K): Parsed[K] => {
  const [schema, expected] = rules[variable]
  // An empty string is "not set": wrangler and shells both produce it for unset values.
  const raw = env[variable] === '' ? undefined : env[variable]
  const result = v.safeParse(schema, raw)
  if (!result.success)
    throw new ConfigError(variable, raw === undefined ? `is required: it ${expected}` : expected)
  return result.output as Parsed[K]
}

/** Whether a variable is set: an empty string is not (wrangler and shells produce it for unset). */
const isSet = (env: TokenWorkerEnv, variable: ConfigVariable) =>
  env[variable] !== undefined && env[variable] !== ''

/**
 * The built-in check; `undefined` when `AUTH_MODE` is unset and the app has its own authorizer
 * (the JWT_* variables then configure nothing, as under `none`). Set, it is validated all the same.
 */
const readAuth = (env: TokenWorkerEnv, customAuthorizer: boolean): AuthConfig | undefined => {
  if (customAuthorizer && !isSet(env, 'AUTH_MODE')) return undefined
  if (read(env, 'AUTH_MODE') === 'none') return { mode: 'none' }
  const key = read(env, 'JWT_SECRET')
  const alg = read(env, 'JWT_ALG')
  const url = read(env, 'JWT_JWKS_URL')
  const keys = read(env, 'JWT_JWKS') as HonoJsonWebKey[] | undefined
  const issuer = read(env, 'JWT_ISSUER')
  const audience = read(env, 'JWT_AUDIENCE')
  if (key === undefined && url === undefined && keys === undefined) {
    throw new ConfigError(
      'JWT_SECRET',
      'or JWT_JWKS_URL or JWT_JWKS is required when AUTH_MODE is "jwt"',
    )
  }
  if (key !== undefined && (url !== undefined || keys !== undefined)) {
    throw new ConfigError(
      'JWT_SECRET',
      'cannot be combined with JWT_JWKS_URL or JWT_JWKS: choose one',
    )
  }
  const isSymmetric = (a: string | undefined): a is SymmetricAlgorithm =>
    a !== undefined && (SYMMETRIC as readonly string[]).includes(a)
  if (key !== undefined && alg !== undefined && !isSymmetric(alg)) {
    throw new ConfigError('JWT_ALG', `must be ${SYMMETRIC.join(', ')} with JWT_SECRET`)
  }
  if (key === undefined && isSymmetric(alg))
    throw new ConfigError('JWT_ALG', 'must be an asymmetric algorithm with a JWKS')
  return {
    mode: 'jwt',
    ...(key !== undefined && { secret: { key, alg: isSymmetric(alg) ? alg : 'HS256' } }),
    ...((url !== undefined || keys !== undefined) && {
      jwks: {
        ...(url !== undefined && { url }),
        ...(keys !== undefined && { keys }),
        algs: alg !== undefined && !isSymmetric(alg) ? [alg] : [...ASYMMETRIC],
      },
    }),
    videosClaim: read(env, 'JWT_VIDEOS_CLAIM'),
    ...(issuer !== undefined && { issuer }),
    ...(audience !== undefined && { audience }),
    requireExp: read(env, 'JWT_REQUIRE_EXP') === 'true',
  }
}

const readRedis = (env: TokenWorkerEnv): RedisConfig | undefined => {
  const url = read(env, 'REDIS_URL')
  return url === undefined ? undefined : { url }
}

const readSession = (
  env: TokenWorkerEnv,
  cdnSecrets: readonly (readonly [variable: string, secret: string])[],
): SessionConfig | undefined => {
  const secret = read(env, 'SESSION_SECRET')
  if (secret === undefined) return undefined
  const shared = cdnSecrets.find(([, cdnSecret]) => cdnSecret === secret)
  if (shared !== undefined)
    throw new ConfigError(
      'SESSION_SECRET',
      `must differ from ${shared[0]} (a session is not a CDN token)`,
    )
  return {
    secret,
    lifetimeSeconds: read(env, 'SESSION_LIFETIME') ?? SESSION_DEFAULTS.lifetimeSeconds,
    binding: read(env, 'SESSION_BINDING') ?? SESSION_DEFAULTS.binding,
    maxNetworks: read(env, 'SESSION_MAX_NETWORKS') ?? SESSION_DEFAULTS.maxNetworks,
    leafLifetimeSeconds: read(env, 'SESSION_LEAF_LIFETIME') ?? SESSION_DEFAULTS.leafLifetimeSeconds,
    adminToken: read(env, 'SESSION_ADMIN_TOKEN'),
    baseUrl: read(env, 'SESSION_BASE_URL'),
  }
}

/**
 * The names reserved for documentation (RFC 2606: `example.com`, `.net`, `.org` and their
 * subdomains, the `.example` TLD): the shipped wrangler.jsonc's are `cdn.example.com`.
 */
const PLACEHOLDER_HOST = /(?:^|\.)example(?:\.com|\.net|\.org)?\.?(?::\d+)?$/i

/**
 * An unedited deployment must not sign anything: URLs for `cdn.example.com` would carry valid
 * tokens for your account to a host that is not your CDN.
 */
function refusePlaceholder(variable: string, host: string): void {
  if (PLACEHOLDER_HOST.test(host))
    throw new ConfigError(
      variable,
      `is still the placeholder ${host}: set it to your CDN's host name (wrangler.jsonc "vars", .dev.vars or the environment)`,
    )
}

/** How a configuration is read: what the app around it does itself. */
export interface ConfigOptions {
  /**
   * The app has its own `authorize`: `AUTH_MODE` (`auth`) may be left out, and `auth` is then
   * `undefined`. Set, it is validated all the same. Default `false`: `AUTH_MODE` is required.
   */
  customAuthorizer?: boolean | undefined
}

/**
 * Validates the environment into a typed configuration, failing on the first bad variable. A CDN
 * host still at the `example.com` placeholder is refused: deployed unedited, nothing is signed;
 * so is an unset `AUTH_MODE` (`none`, anyone may get tokens, is a choice to name), unless the
 * app has its own authorizer (`customAuthorizer`).
 *
 * @throws {ConfigError} naming the variable (never its value).
 * @example
 * ```ts
 * const config = configFromEnv({ CLIENT_ID: '12345', SECRET_KEY: '…', CDN_DOMAIN: 'cdn.mysite.net',
 *   CDN_DOMAIN_IP: 'cdn-ip.mysite.net', AUTH_MODE: 'jwt', JWT_SECRET: '…' })
 * config.ipHeaders // undefined: the connection's own address
 * ```
 */
export function configFromEnv(env: TokenWorkerEnv): TokenWorkerConfig<AuthConfig>
export function configFromEnv(env: TokenWorkerEnv, options: ConfigOptions): TokenWorkerConfig
export function configFromEnv(
  env: TokenWorkerEnv,
  { customAuthorizer = false }: ConfigOptions = {},
): TokenWorkerConfig {
  const signing = parseSigningConfig(env)
  refusePlaceholder('CDN_DOMAIN', signing.cdnDomain)
  refusePlaceholder('CDN_DOMAIN_IP', signing.cdnDomainIp)
  const { primary, cdns } = parseCdnList(env, signing)
  for (const cdn of cdns) {
    const names = cdnVariables(cdn.id)
    refusePlaceholder(names.cdnDomain, cdn.cdnDomain)
    refusePlaceholder(names.cdnDomainIp, cdn.cdnDomainIp)
  }
  const named = cdns.length > 0 || isSet(env, 'CDN_ID') || isSet(env, 'CDN_PRIORITY')
  const ipHeaders = read(env, 'IP_HEADERS')
  const trustedProxies = read(env, 'TRUSTED_PROXIES')
  if (ipHeaders !== undefined && trustedProxies !== undefined)
    throw new ConfigError(
      'IP_HEADERS',
      'cannot be combined with TRUSTED_PROXIES: choose one (TRUSTED_PROXIES reads X-Forwarded-For from the proxies it lists; IP_HEADERS trusts its headers from anyone)',
    )
  return {
    signing,
    primaryCdn: named ? primary : undefined,
    cdns: cdns.length > 0 ? cdns : undefined,
    ipHeaders,
    trustedProxies,
    allowedOrigins: read(env, 'ALLOWED_ORIGINS'),
    auth: readAuth(env, customAuthorizer),
    rateLimit: {
      requests: read(env, 'RATE_LIMIT_REQUESTS'),
      periodSeconds: read(env, 'RATE_LIMIT_PERIOD') ?? 60,
    },
    session: readSession(env, [
      ['SECRET_KEY', signing.secretKey],
      ...cdns.map((cdn) => [cdnVariables(cdn.id).secretKey, cdn.secretKey] as const),
    ]),
    redis: readRedis(env),
  }
}

// one memo per way of reading: the same env object reads differently with an authorizer
const strictConfig = perEnvironment((env: TokenWorkerEnv) => configFromEnv(env))
const customAuthorizerConfig = perEnvironment((env: TokenWorkerEnv) =>
  configFromEnv(env, { customAuthorizer: true }),
)

/**
 * {@link configFromEnv}, memoised per environment object: Workers pass the same `env` to every
 * request of an isolate, so the work is done once.
 *
 * @example
 * ```ts
 * app.use(async (c, next) => { c.set('tokenConfig', loadConfig(c.env)); await next() })
 * ```
 */
export function loadConfig(env: TokenWorkerEnv): TokenWorkerConfig<AuthConfig>
export function loadConfig(env: TokenWorkerEnv, options: ConfigOptions): TokenWorkerConfig
export function loadConfig(env: TokenWorkerEnv, options: ConfigOptions = {}): TokenWorkerConfig {
  return options.customAuthorizer ? customAuthorizerConfig(env) : strictConfig(env)
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
 * The configuration as an object, for {@link tokenConfig} and `createTokenApp({ config })`: the
 * signing fields and `auth`, everything else optional with the defaults of the variables. A whole
 * {@link TokenWorkerConfig} (from {@link configFromEnv}) is one too.
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
  /** `undefined`: sessions are off. */
  session?: (Partial<SessionConfig> & { secret: string }) | undefined
  /** `undefined`: no shared state, each Node process keeps its own (`REDIS_URL`). */
  redis?: RedisConfig | undefined
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

/** Where each variable lives in {@link TokenConfigInput}: what a ConfigError of an object names. */
const FIELDS: Record<ConfigVariable, string> = {
  CLIENT_ID: 'signing.clientId',
  SECRET_KEY: 'signing.secretKey',
  CDN_DOMAIN: 'signing.cdnDomain',
  CDN_DOMAIN_IP: 'signing.cdnDomainIp',
  CDN_SCHEME: 'signing.scheme',
  CDN_ID: 'primaryCdn.id',
  CDN_PRIORITY: 'primaryCdn.priority',
  CDNS: 'cdns',
  MAX_EXPIRE_SECONDS: 'signing.maxLifetimeSeconds',
  IP_HEADERS: 'ipHeaders',
  TRUSTED_PROXIES: 'trustedProxies',
  ALLOWED_ORIGINS: 'allowedOrigins',
  AUTH_MODE: 'auth.mode',
  JWT_SECRET: 'auth.secret.key',
  JWT_ALG: 'auth.secret.alg or auth.jwks.algs',
  JWT_JWKS_URL: 'auth.jwks.url',
  JWT_JWKS: 'auth.jwks.keys',
  JWT_VIDEOS_CLAIM: 'auth.videosClaim',
  JWT_ISSUER: 'auth.issuer',
  JWT_AUDIENCE: 'auth.audience',
  JWT_REQUIRE_EXP: 'auth.requireExp',
  RATE_LIMIT_REQUESTS: 'rateLimit.requests',
  RATE_LIMIT_PERIOD: 'rateLimit.periodSeconds',
  SESSION_SECRET: 'session.secret',
  SESSION_LIFETIME: 'session.lifetimeSeconds',
  SESSION_BINDING: 'session.binding',
  SESSION_MAX_NETWORKS: 'session.maxNetworks',
  SESSION_LEAF_LIFETIME: 'session.leafLifetimeSeconds',
  SESSION_ADMIN_TOKEN: 'session.adminToken',
  SESSION_BASE_URL: 'session.baseUrl',
  REDIS_URL: 'redis.url',
}

/** A value as the variable would hold it; an empty list stays invalid (`,` lists nothing). */
const text = (value: string | number | boolean | readonly string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value.join(',') || ',' : String(value)

/** The object as the variables that mean the same: one set of rules for both ways in. */
function variablesOf({
  signing,
  auth,
  session,
  rateLimit,
  redis,
  primaryCdn,
  cdns = [],
  ...rest
}: CustomAuthorizerConfigInput) {
  // missing `auth` (allowed by the type with an authorizer, or plain JavaScript): AUTH_MODE unset
  const jwt = auth?.mode === 'jwt' ? auth : undefined
  const algs = jwt?.jwks?.algs
  const env: Record<ConfigVariable, string | undefined> = {
    CLIENT_ID: text(signing.clientId),
    SECRET_KEY: text(signing.secretKey),
    CDN_DOMAIN: text(signing.cdnDomain),
    CDN_DOMAIN_IP: text(signing.cdnDomainIp),
    CDN_SCHEME: text(signing.scheme),
    MAX_EXPIRE_SECONDS: text(signing.maxLifetimeSeconds),
    IP_HEADERS: text(rest.ipHeaders),
    TRUSTED_PROXIES: text(rest.trustedProxies),
    ALLOWED_ORIGINS: text(rest.allowedOrigins),
    AUTH_MODE: text(auth?.mode),
    JWT_SECRET: text(jwt?.secret?.key),
    JWT_ALG: text(jwt?.secret?.alg ?? (algs?.length === 1 ? algs[0] : undefined)),
    JWT_JWKS_URL: text(jwt?.jwks?.url),
    JWT_JWKS: jwt?.jwks?.keys === undefined ? undefined : JSON.stringify(jwt.jwks.keys),
    JWT_VIDEOS_CLAIM: text(jwt?.videosClaim),
    JWT_ISSUER: text(jwt?.issuer),
    JWT_AUDIENCE: text(jwt?.audience),
    JWT_REQUIRE_EXP: text(jwt?.requireExp),
    RATE_LIMIT_REQUESTS: text(rateLimit?.requests),
    RATE_LIMIT_PERIOD: text(rateLimit?.periodSeconds),
    SESSION_SECRET: text(session?.secret),
    SESSION_LIFETIME: text(session?.lifetimeSeconds),
    SESSION_BINDING: text(session?.binding),
    SESSION_MAX_NETWORKS: text(session?.maxNetworks),
    SESSION_LEAF_LIFETIME: text(session?.leafLifetimeSeconds),
    SESSION_ADMIN_TOKEN: text(session?.adminToken),
    SESSION_BASE_URL: text(session?.baseUrl),
    REDIS_URL: text(redis?.url),
    CDN_ID: text(primaryCdn?.id),
    CDN_PRIORITY: text(primaryCdn?.priority),
    CDNS: cdns.length > 0 ? cdns.map((cdn) => cdn.id).join(',') : undefined,
  }
  // each CDN's variables, and the field each stands for (what an error names)
  const cdnEnv: Record<string, string | undefined> = {}
  const fields: Record<string, string> = {}
  cdns.forEach((cdn, index) => {
    // an id that is not one could not round-trip through CDNS ("a,b" would be two)
    if (!isCdnId(cdn.id))
      throw new ConfigError(
        `config.cdns[${index}].id`,
        'must be 1 to 32 characters from a-z, 0-9 and - (not at either end)',
      )
    const names = cdnVariables(cdn.id)
    for (const key of ['cdnDomain', 'cdnDomainIp', 'scheme', 'priority', 'secretKey'] as const) {
      cdnEnv[names[key]] = text(cdn[key])
      fields[names[key]] = `cdns[${index}].${key}`
    }
  })
  return { env: { ...env, ...cdnEnv }, algs, fields }
}

/** Gives the object's signers to the CDNs the variables validated. */
function withSigners(
  config: TokenWorkerConfig,
  { primaryCdn, cdns }: CustomAuthorizerConfigInput,
): TokenWorkerConfig {
  const signers = new Map(cdns?.map((cdn) => [cdn.id, cdn.signer]))
  return {
    ...config,
    ...(primaryCdn?.signer && {
      primaryCdn: {
        ...(config.primaryCdn ?? { id: DEFAULT_CDN_ID, priority: 0 }),
        signer: primaryCdn.signer,
      },
    }),
    ...(config.cdns && {
      cdns: config.cdns.map((cdn) => {
        const signer = signers.get(cdn.id)
        return signer ? { ...cdn, signer } : cdn
      }),
    }),
  }
}

/**
 * Validates a configuration object by the rules of the variables, filling the same defaults:
 * what `createTokenApp({ config })` does once, when the app is created. `auth` is required
 * unless `customAuthorizer` (the app has its own `authorize`).
 *
 * @throws {ConfigError} naming the field (`config.signing.cdnDomain …`), never its value.
 * @example
 * ```ts
 * const config = tokenConfig({
 *   signing: { clientId: '12345', secretKey: process.env.SECRET_KEY ?? '',
 *     cdnDomain: 'cdn.mysite.net', cdnDomainIp: 'cdn-ip.mysite.net' },
 *   auth: { mode: 'jwt', secret: { key: process.env.JWT_SECRET ?? '' } },
 * })
 * config.auth.mode // 'jwt'
 * ```
 */
export function tokenConfig(
  input: TokenConfigInput,
  options?: ConfigOptions,
): TokenWorkerConfig<AuthConfig>
export function tokenConfig(
  input: CustomAuthorizerConfigInput,
  options: ConfigOptions,
): TokenWorkerConfig
export function tokenConfig(
  input: CustomAuthorizerConfigInput,
  options: ConfigOptions = {},
): TokenWorkerConfig {
  const { env, algs, fields } = variablesOf(input)
  try {
    const config = withSigners(configFromEnv(env, options), input)
    // several JWKS algorithms have no variable form: checked here, kept as given
    if (algs !== undefined && algs.length > 1 && config.auth?.mode === 'jwt' && config.auth.jwks) {
      if (!algs.every((alg) => (ASYMMETRIC as readonly string[]).includes(alg)))
        throw new ConfigError('JWT_ALG', `must be asymmetric algorithms (${ASYMMETRIC.join(', ')})`)
      config.auth.jwks.algs = [...algs]
    }
    return config
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    const field = (name: string) =>
      `config.${fields[name] ?? FIELDS[name as ConfigVariable] ?? name}`
    const names = new RegExp(
      `\\b(${[...Object.keys(FIELDS), ...Object.keys(fields)].join('|')})\\b`,
      'g',
    )
    const expected = error.detail.slice(error.variable.length + 1)
    // "(wrangler secret put SECRET_KEY)" is advice for variables, not for an object
    throw new ConfigError(
      field(error.variable),
      expected.replace(/ \(wrangler secret put \w+\)/, '').replace(names, field),
    )
  }
}
