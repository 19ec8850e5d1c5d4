import type { TokenDigest } from '@proj/signing'
import { perEnvironment } from '@proj/signing/config'
import type { Env, Hono as HonoApp, MiddlewareHandler, Schema } from 'hono'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
// PatternRouter: a few route families need no more, and the bundle is 5 KiB smaller
import { Hono } from 'hono/tiny'
import type { BlankEnv } from 'hono/types'
import type { AuditSink } from './audit-log.ts'
import type { Authorizer } from './authorize.ts'
import { cdnSigners } from './cdn-record.ts'
import {
  type CustomAuthorizerConfigInput,
  loadConfig,
  type TokenBackendConfig,
  type TokenConfigInput,
  tokenConfig,
} from './config.ts'
import { handleError, handleNotFound } from './errors.ts'
import { mountPrefix } from './mount.ts'
import type { RateLimitConfig, ViewerLimit } from './rate-limit.ts'
import { readOnlyRoutes, VIEWER_METHODS } from './read-only-routes.ts'
import { answerHeaders, requestIdOf } from './response-headers.ts'
import type { CdnHealthPolicy } from './session/cdn-health.ts'
import type { PlaylistCache } from './session/playlist-cache.ts'
import type { REVOCATION_CACHE_MS } from './session/session-routes.ts'
import { sessionRoutes } from './session/session-routes.ts'
import type { SessionStore, STORE_OUTAGE_TRUST_MS } from './session/session-store.ts'
import type { StoreUnavailableError } from './store-unavailable.ts'
import { streamGate } from './streams/stream-gate.ts'
import type { StreamStore } from './streams/stream-store.ts'
import { streamsRoute } from './streams/streams-route.ts'
import { tokenRoute } from './token-route.ts'
import type { TokenAppEnv, TokenAppEnvOf } from './types.ts'
import { type ConnectionAddress, viewerAddresses } from './viewer-address.ts'
import { viewerLimits } from './viewer-request.ts'

/**
 * Options of {@link createTokenApp}; `E` is the Hono environment of your app (its `Bindings`).
 * With your own `authorize`, {@link CustomAuthorizerAppOptions} are accepted too: `AUTH_MODE`
 * (`config.auth`) may then be left out.
 */
export interface TokenAppOptions<E extends Env = BlankEnv> {
  /**
   * The configuration, validated once when the app is created (a {@link ConfigError} names the
   * field). Without it, every request reads the variables of `c.env` (Workers `vars` and
   * secrets), validated once per environment object. `auth` (`AUTH_MODE`) is required here:
   * closed by default.
   */
  config?: TokenConfigInput
  /**
   * Replaces the `AUTH_MODE` authorizer with your own check (tokens and sessions alike); then
   * `AUTH_MODE` may be left out ({@link CustomAuthorizerAppOptions}).
   */
  authorize?: Authorizer<E>
  /** Clock in milliseconds; injected by tests. */
  now?: () => number
  /**
   * The token MD5: spark-md5 by default (the fastest on workerd); `createNodeTokenApp`
   * (`@proj/token-backend/node`) passes `nodeMd5Digest`. Same tokens either way.
   */
  digest?: TokenDigest
  /**
   * Where the audit line of each issued token or session goes (default `console.log`: Workers'
   * logs). `createNodeTokenApp` passes `stdoutAudit()` (batched writes to stdout).
   */
  audit?: AuditSink
  /**
   * Session state (revocations, networks): default the `SESSION_REGISTRY` Durable Object when
   * bound (behind a {@link REVOCATION_CACHE_MS} cache), else process memory (the Node entry; on
   * Workers it would be per isolate). A store given here is used as it is: wrap a remote one in
   * `cachedSessionStore(store)` (answers kept {@link REVOCATION_CACHE_MS}), which keeps most leaf
   * requests off it and sessions already playing through a short outage ({@link STORE_OUTAGE_TRUST_MS}). A
   * store that throws {@link StoreUnavailableError} makes the request a 503 with `Retry-After`.
   */
  sessions?: SessionStore
  /**
   * Where viewers' streams are counted when the configuration has stream limits (`STREAM_LIMIT`):
   * default the `SESSION_REGISTRY` Durable Object when bound, else process memory (one Node
   * process; on Workers, one isolate). Several Node instances share `redisStreamStore(client)`
   * (`@proj/token-backend/redis`). A store that throws {@link StoreUnavailableError} makes a new
   * stream a 503; a stream this instance admitted plays on through a short outage.
   */
  streams?: StreamStore
  /**
   * The per-viewer rate limit (`RATE_LIMIT_REQUESTS` per `RATE_LIMIT_PERIOD`), made once per
   * configuration: default a counter in this process (or isolate). Give one shared by every
   * instance of the backend, or a viewer's limit is multiplied by their number. The
   * `TOKEN_RATE_LIMITER` binding, when bound (Workers), is used instead. A limit that throws
   * {@link StoreUnavailableError} makes the request a 503 with `Retry-After` (fail closed).
   *
   * @example
   * ```ts
   * import { connectRedis, redisLimit, redisSessionStore } from '@proj/token-backend/redis'
   *
   * const client = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
   * const app = createTokenApp({
   *   config,
   *   sessions: cachedSessionStore(redisSessionStore(client)),
   *   rateLimit: (limit) => redisLimit(client, limit),
   * })
   * ```
   */
  rateLimit?: (limit: RateLimitConfig) => ViewerLimit
  /** Upstream playlists of sessions: default the Workers Cache API, else bounded memory. */
  playlists?: PlaylistCache
  /** How the worker fetches playlists from the CDN (default `fetch`). */
  fetcher?: typeof fetch
  /**
   * How sessions fail over between several CDNs (`CDNS`): probe interval, timeout, cooldown,
   * good probes to come back. Default `CDN_HEALTH_DEFAULTS`.
   */
  cdnHealth?: Partial<CdnHealthPolicy>
  /**
   * The address of the connection's peer, for servers other than those the app knows: the
   * socket on Node (`@hono/node-server`), Bun and Deno, `CF-Connecting-IP` on Workers
   * (`runtimeConnectionAddress`). The viewer's address is this, unless the configuration trusts
   * proxies (`TRUSTED_PROXIES`) or headers (`IP_HEADERS`). Nothing known: `0.0.0.0`.
   *
   * @example
   * ```ts
   * createTokenApp({ config, connectionAddress: (c) => c.env.remoteAddress })
   * ```
   */
  connectionAddress?: ConnectionAddress
}

/**
 * Options of {@link createTokenApp} with your own `authorize`: the configuration may leave out
 * `auth` (the `AUTH_MODE` variable), your authorizer then being the only check. Given, it is still
 * validated, and `c.get('tokenConfig').auth` holds it.
 */
export interface CustomAuthorizerAppOptions<E extends Env = BlankEnv>
  extends Omit<TokenAppOptions<E>, 'authorize' | 'config'> {
  /** Your check: tokens and sessions alike. */
  authorize: Authorizer<E>
  /** As {@link TokenAppOptions.config}, `auth` optional. */
  config?: CustomAuthorizerConfigInput
}

/** Whether `ALLOWED_ORIGINS` lets `origin` call `/token` or `/session` from a browser. */
const originAllowed = ({ allowedOrigins }: TokenBackendConfig, origin: string): boolean =>
  allowedOrigins === '*' || (allowedOrigins?.includes(origin) ?? false)

const corsForConfig = cors({
  // only reached for an allowed origin (corsWhenCrossOrigin)
  origin: (origin, c) =>
    (c as { get(key: 'tokenConfig'): TokenBackendConfig }).get('tokenConfig').allowedOrigins === '*'
      ? '*'
      : origin,
  allowMethods: ['GET'],
  allowHeaders: ['Authorization'],
  // Players estimate the server clock from Date (clock-skew-proof refresh) and honour
  // Retry-After (429, 503); neither is CORS-safelisted, so pages cannot read them unless exposed.
  exposeHeaders: ['Date', 'Retry-After'],
  maxAge: 600,
})

/**
 * The token backend of spec 4.14 as a Hono app: `GET /token?video=…[&type=vod][&expire=…][&client_ip=…]`
 * answers the six-field record of spec 2.11 with `Cache-Control: no-store`; `GET /session`,
 * `/s/…` and `POST /sessions/revoke` are the session lane. Order per request: configuration
 * (500 naming a bad variable) → CORS → query validation (400) → authorization (401/403) →
 * per-viewer rate limit (429 with `Retry-After`, when configured) → signing.
 *
 * Serve it as a Worker (`export default createTokenApp()`), on Node (`@proj/token-backend/node`),
 * or mount it in your app under any prefix (`app.route('/video', createTokenApp(…))`): session
 * URLs carry the prefix, errors and unknown paths under it answer `{error}`.
 *
 * Closed by default: the configuration must name `AUTH_MODE` (`config.auth`), unless you pass
 * your own `authorize`, which then decides alone when `AUTH_MODE` is left out.
 *
 * @throws {ConfigError} at creation when `config` is given and invalid.
 * @example
 * ```ts
 * import { allow, createTokenApp, deny } from '@proj/token-backend'
 * type Bindings = { MEMBERS: KVNamespace }
 * export default createTokenApp<{ Bindings: Bindings }>({
 *   authorize: async (c, video) =>
 *     (await c.env.MEMBERS.get(c.req.header('x-member') ?? '')) ? allow : deny(403, 'members only'),
 * })
 * ```
 */
export function createTokenApp<E extends Env = BlankEnv>(
  options: TokenAppOptions<E> | CustomAuthorizerAppOptions<E> = {},
): TokenApp<E> {
  // The caller's environment is only a type: at run time c.env is whatever the server passes,
  // which is exactly what the authorizer is typed to read.
  return backendRoutes(options as AnyTokenAppOptions) as unknown as TokenApp<E>
}

/** Both forms of options, as the routes read them. */
type AnyTokenAppOptions = TokenAppOptions | CustomAuthorizerAppOptions

/** The routes of {@link createTokenApp}, typed over the app's own environment. */
function backendRoutes({
  config: given,
  authorize,
  now = Date.now,
  digest,
  // a function of its own: console.log can be replaced (tests spy on it) after the app is made
  audit = (line) => console.log(line),
  sessions,
  streams,
  rateLimit,
  playlists,
  fetcher,
  cdnHealth,
  connectionAddress,
}: AnyTokenAppOptions) {
  // your authorizer decides alone: AUTH_MODE may be left out (and is still validated when set)
  const reading = { customAuthorizer: authorize !== undefined }
  // validated here, once: a bad object fails the start (Node) or the isolate (Workers)
  const fixed = given === undefined ? undefined : tokenConfig(given, reading)
  // In-memory limits live as long as the app (the Node process, or one Workers isolate).
  const admission = {
    authorize,
    limitFor: viewerLimits(now, rateLimit),
    viewerAddress: viewerAddresses(connectionAddress),
  }
  // each CDN's signer, made once per configuration (Workers: once per environment object) and
  // shared by the token and session routes
  const signersOf = perEnvironment((config: TokenBackendConfig) => cdnSigners(config, digest))
  // one ledger gate for both lanes: a viewer's streams count together
  const gate = streamGate({ now, audit, store: streams })
  const app = new Hono<TokenAppEnv>()
  app.onError(handleError)
  app.notFound(handleNotFound)
  // hono/request-id's own header handling is off: the ID goes out with answerHeaders()
  app.use(requestId({ headerName: '', generator: requestIdOf }))
  app.use(function config(c, next) {
    // no environment at all (a Node adapter without one): the first missing variable is named
    c.set('tokenConfig', fixed ?? loadConfig(c.env ?? {}, reading))
    return next()
  })
  // A request without Origin is not a CORS request: nothing to add, and the middleware's work
  // was a third of the endpoint's cost (BENCHMARKS.md). The answer is no-store, so no Vary.
  // An origin that is not allowed (or ALLOWED_ORIGINS unset) gets no CORS header at all, not
  // even on a preflight: the README promises "no CORS headers".
  const corsWhenCrossOrigin: MiddlewareHandler<TokenAppEnv> = (c, next) => {
    const origin = c.req.header('origin')
    if (origin === undefined || !originAllowed(c.get('tokenConfig'), origin)) return next()
    // the middleware answers a preflight itself, with the headers set so far: the ones every
    // answer of the backend carries, and the Allow of a plain OPTIONS
    if (c.req.method === 'OPTIONS') {
      const { 'content-type': _, ...headers } = answerHeaders(c)
      for (const [name, value] of Object.entries({ ...headers, allow: VIEWER_METHODS }))
        c.header(name, value)
    }
    return corsForConfig(c, next)
  }
  app.use('/token', corsWhenCrossOrigin)
  app.use('/session', corsWhenCrossOrigin)
  return app
    .route('/', tokenRoute({ now, audit, admission, signersOf, streams: gate }))
    .route(
      '/',
      sessionRoutes({
        now,
        audit,
        signersOf,
        store: sessions,
        playlists,
        fetcher,
        cdnHealth,
        streams: gate,
        ...admission,
      }),
    )
    .route('/', streamsRoute({ now, gate }))
    .route('/', readOnlyRoutes())
    .all('*', function notFoundUnderPrefix(c, next) {
      // Mounted under a prefix, the parent's notFound would answer its own shape: everything
      // under the prefix is this app's, so it answers {error}. At the root (alone, or mounted at
      // '/'), the rest of the paths may be the parent's: passed on.
      return mountPrefix(c) === '' ? next() : handleNotFound(c)
    })
}

type SchemaOf<T> = T extends HonoApp<Env, infer S extends Schema, string> ? S : never

/**
 * The token app in an app whose environment is `E`, with its routes' types for `hc<TokenApp>()`
 * clients.
 */
export type TokenApp<E extends Env = BlankEnv> = HonoApp<
  TokenAppEnvOf<E>,
  SchemaOf<ReturnType<typeof backendRoutes>>,
  '/'
>
