import { sValidator } from '@hono/standard-validator'
import {
  createTokenRecord,
  detectClientIp,
  FALLBACK_CLIENT_IP,
  normalizeIp,
  streamType,
  type TokenDigest,
  type TokenRecord,
  VIDEO_SLUG_PATTERN,
} from '@proj/signing'
import type { TypedResponse } from 'hono'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
// PatternRouter: one route family needs no more, and the bundle is 5 KiB smaller
import { Hono } from 'hono/tiny'
import * as v from 'valibot'
import { type AuditSink, issuedToken } from './audit-log.ts'
import { type Authorizer, authorizerFor } from './authorize.ts'
import { loadConfig, type TokenWorkerConfig } from './config.ts'
import { fail, handleError, handleNotFound } from './errors.ts'
import {
  bindingLimit,
  enforceLimit,
  memoryLimit,
  type ViewerLimit,
  viewerKey,
} from './rate-limit.ts'
import { answerHeaders, requestIdOf } from './response-headers.ts'
import type { TokenAppEnv } from './types.ts'

/** Options of {@link createTokenApp}. */
export interface TokenAppOptions {
  /** Replaces the `AUTH_MODE` authorizer with your own check. */
  authorize?: Authorizer
  /** Clock in milliseconds; injected by tests. */
  now?: () => number
  /**
   * The token MD5: spark-md5 by default (the fastest on workerd); the Node entry passes
   * `nodeMd5Digest`. Same tokens either way.
   */
  digest?: TokenDigest
  /**
   * Where the audit line of each issued token goes (default `console.log`: Workers' logs). The
   * Node entry passes `batchedLines(process.stdout)`.
   */
  audit?: AuditSink
}

/** A parameter given twice arrives as an array: refused, since which copy was signed would be a guess. */
const once = (name: string) => `${name} must be given once`
const optionalOnce = (name: string) => v.optional(v.string(once(name)))

const tokenQuery = v.object(
  {
    video: v.pipe(
      v.string((issue) => (issue.input === undefined ? 'video is required' : once('video'))),
      v.minLength(1, 'video is required'),
      v.regex(VIDEO_SLUG_PATTERN, 'video must be 1 to 128 characters from A-Z, a-z, 0-9, _ and -'),
    ),
    type: optionalOnce('type'),
    expire: optionalOnce('expire'),
    client_ip: v.optional(
      v.pipe(
        v.string(once('client_ip')),
        v.check(
          (ip) => normalizeIp(ip) !== undefined,
          'client_ip must be a valid IPv4 or IPv6 address',
        ),
      ),
    ),
  },
  // the only required key: an absent one is reported by the object
  'video is required',
)

const validateQuery = sValidator('query', tokenQuery, (result) => {
  if (!result.success) fail(400, result.error[0]?.message ?? 'invalid query')
})

/** The methods `/token` answers (405's and OPTIONS' `Allow`). */
const ALLOW = 'GET, HEAD, OPTIONS'

/** Whether `ALLOWED_ORIGINS` lets `origin` call `/token` from a browser. */
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
export const createTokenApp = ({
  authorize,
  now = Date.now,
  digest,
  // a function of its own: console.log can be replaced (tests spy on it) after the app is made
  audit = (line) => console.log(line),
}: TokenAppOptions = {}) => {
  // In-memory limits live as long as the app (the Node process, or one Workers isolate).
  const memoryLimits = new WeakMap<TokenWorkerConfig, ViewerLimit>()
  const limitFor = (
    binding: TokenAppEnv['Bindings']['TOKEN_RATE_LIMITER'],
    config: TokenWorkerConfig,
  ) => {
    const { requests, periodSeconds } = config.rateLimit
    if (binding) return bindingLimit(binding, periodSeconds)
    if (requests === undefined) return undefined
    let limit = memoryLimits.get(config)
    if (limit === undefined) {
      limit = memoryLimit({ requests, periodSeconds }, now)
      memoryLimits.set(config, limit)
    }
    return limit
  }
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
  app.use('/token', function corsWhenCrossOrigin(c, next) {
    const origin = c.req.header('origin')
    return origin !== undefined && originAllowed(c.get('config'), origin)
      ? corsForConfig(c, next)
      : next()
  })
  return app
    .get('/token', validateQuery, async (c) => {
      const config = c.get('config')
      const { signing, ipHeaders, auth } = config
      // one reading of the clock: the record, its audit line and the Date header agree
      const nowMs = now()
      const query = c.req.valid('query')
      const decision = await (authorize ?? authorizerFor(auth))(c, query.video)
      if (!decision.allow) fail(decision.status, decision.reason)
      const clientIp = detectClientIp(c.req.raw.headers, {
        explicit: query.client_ip,
        headerNames: ipHeaders,
      })
      const limit = limitFor(c.env?.TOKEN_RATE_LIMITER, config)
      if (limit) {
        // counted by who is asking (client_ip is chosen by the caller, so it never decides)
        const caller = query.client_ip
          ? detectClientIp(c.req.raw.headers, { headerNames: ipHeaders })
          : clientIp
        const viewer = viewerKey(c.get('jwtPayload'), caller)
        // one who cannot be told apart (no subject, no IP header) would share a single count
        // with everyone such: not limited (set IP_HEADERS)
        if (viewer !== `net:${FALLBACK_CLIENT_IP}`) await enforceLimit(limit, viewer)
      }
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
      const headers = answerHeaders(c)
      // The clock the record was signed with, to the second (every runtime, not only the edge).
      headers.date = new Date(nowMs).toUTCString()
      // A plain Response (not c.json, which builds a Headers): typed for hc clients all the same.
      return new Response(JSON.stringify(record), { headers }) as unknown as TypedResponse<
        TokenRecord,
        200,
        'json'
      >
    })
    .options('/token', (c) => {
      // not a CORS preflight of an allowed origin (that one was answered above): what is allowed
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
