import { createTokenRecord, streamType, type TokenDigest, type TokenRecord } from '@proj/signing'
import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
// PatternRouter: a few route families need no more, and the bundle is 5 KiB smaller
import { Hono } from 'hono/tiny'
import { type AuditSink, issuedToken } from './audit-log.ts'
import type { Authorizer } from './authorize.ts'
import { loadConfig, type TokenWorkerConfig } from './config.ts'
import { fail, handleError, handleNotFound } from './errors.ts'
import { answerHeaders, requestIdOf, signedAnswer } from './response-headers.ts'
import type { PlaylistCache } from './session/playlist-cache.ts'
import { sessionRoutes } from './session/session-routes.ts'
import type { SessionStore } from './session/session-store.ts'
import type { TokenAppEnv } from './types.ts'
import { admitViewer, validateViewerQuery, viewerLimits } from './viewer-request.ts'

/** Options of {@link createTokenApp}. */
export interface TokenAppOptions {
  /** Replaces the `AUTH_MODE` authorizer with your own check (tokens and sessions alike). */
  authorize?: Authorizer
  /** Clock in milliseconds; injected by tests. */
  now?: () => number
  /**
   * The token MD5: spark-md5 by default (the fastest on workerd); the Node entry passes
   * `nodeMd5Digest`. Same tokens either way.
   */
  digest?: TokenDigest
  /**
   * Where the audit line of each issued token or session goes (default `console.log`: Workers'
   * logs). The Node entry passes `batchedLines(process.stdout)`.
   */
  audit?: AuditSink
  /**
   * Session state (revocations, networks): default the `SESSION_REGISTRY` Durable Object when
   * bound, else process memory (the Node entry; on Workers it would be per isolate).
   */
  sessions?: SessionStore
  /** Upstream playlists of sessions: default the Workers Cache API, else bounded memory. */
  playlists?: PlaylistCache
  /** How the worker fetches playlists from the CDN (default `fetch`). */
  fetcher?: typeof fetch
}

/** The methods `/token` and `/session` answer (405's and OPTIONS' `Allow`). */
const ALLOW = 'GET, HEAD, OPTIONS'

/** Whether `ALLOWED_ORIGINS` lets `origin` call `/token` or `/session` from a browser. */
const originAllowed = ({ allowedOrigins }: TokenWorkerConfig, origin: string): boolean =>
  allowedOrigins === '*' || (allowedOrigins?.includes(origin) ?? false)

const corsForConfig = cors({
  // only reached for an allowed origin (corsWhenCrossOrigin)
  origin: (origin, c) =>
    (c as { get(key: 'config'): TokenWorkerConfig }).get('config').allowedOrigins === '*'
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
 * The token backend of spec 4.14: `GET /token?video=…[&type=vod][&expire=…][&client_ip=…]`
 * answers the six-field record of spec 2.11 with `Cache-Control: no-store`. Order per request:
 * configuration (500 naming a bad variable) → CORS → query validation (400) → authorization
 * (401/403) → per-viewer rate limit (429 with `Retry-After`, when configured) → signing.
 *
 * @example
 * ```ts
 * // src/index.ts of your worker
 * import { allow, createTokenApp, deny } from '@proj/token-worker'
 * export default createTokenApp({
 *   authorize: (c, video) => (video.startsWith('free-') ? allow : deny(403, 'members only')),
 * })
 * ```
 */
export function createTokenApp({
  authorize,
  now = Date.now,
  digest,
  // a function of its own: console.log can be replaced (tests spy on it) after the app is made
  audit = (line) => console.log(line),
  sessions,
  playlists,
  fetcher,
}: TokenAppOptions = {}) {
  // In-memory limits live as long as the app (the Node process, or one Workers isolate).
  const limitFor = viewerLimits(now)
  const app = new Hono<TokenAppEnv>()
  app.onError(handleError)
  app.notFound(handleNotFound)
  // hono/request-id's own header handling is off: the ID goes out with answerHeaders()
  app.use(requestId({ headerName: '', generator: requestIdOf }))
  app.use(function config(c, next) {
    c.set('config', loadConfig(c.env))
    return next()
  })
  // A request without Origin is not a CORS request: nothing to add, and the middleware's work
  // was a third of the endpoint's cost (BENCHMARKS.md). The answer is no-store, so no Vary.
  // An origin that is not allowed (or ALLOWED_ORIGINS unset) gets no CORS header at all, not
  // even on a preflight: the README promises "no CORS headers".
  const corsWhenCrossOrigin: MiddlewareHandler<TokenAppEnv> = (c, next) => {
    const origin = c.req.header('origin')
    return origin !== undefined && originAllowed(c.get('config'), origin)
      ? corsForConfig(c, next)
      : next()
  }
  app.use('/token', corsWhenCrossOrigin)
  app.use('/session', corsWhenCrossOrigin)
  return app
    .get('/token', validateViewerQuery, async (c) => {
      const { signing } = c.get('config')
      // one reading of the clock: the record, its audit line and the Date header agree
      const nowMs = now()
      const query = c.req.valid('query')
      const clientIp = await admitViewer(c, query, { authorize, limitFor })
      const record = createTokenRecord(
        signing,
        { video: query.video, type: query.type, expire: query.expire, clientIp },
        { nowSeconds: Math.floor(nowMs / 1000), digest },
      )
      // one structured line per issued token (Workers: observability logs; Node: stdout)
      const payload = c.get('jwtPayload') as { sub?: unknown } | undefined
      audit(
        JSON.stringify(
          issuedToken(record, {
            video: query.video,
            type: streamType(query.type),
            sub: payload?.sub,
            requestId: c.get('requestId'),
            nowMs,
          }),
        ),
      )
      return signedAnswer<TokenRecord>(c, record, nowMs)
    })
    .route(
      '/',
      sessionRoutes({
        now,
        digest,
        audit,
        store: sessions,
        playlists,
        fetcher,
        authorize,
        limitFor,
      }),
    )
    .options('/token', (c) => {
      // not a CORS preflight of an allowed origin (that one was answered above): what is allowed
      const headers = answerHeaders(c)
      headers.allow = ALLOW
      return new Response(null, { status: 204, headers })
    })
    .options('/session', (c) => {
      const headers = answerHeaders(c)
      headers.allow = ALLOW
      return new Response(null, { status: 204, headers })
    })
    .all('/token', (c) => {
      c.header('Allow', ALLOW)
      return fail(405, `method ${c.req.method} is not allowed: use GET`)
    })
}

/** The token app type, for `hc<TokenApp>()` clients. */
export type TokenApp = ReturnType<typeof createTokenApp>
