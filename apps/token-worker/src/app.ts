import { zValidator } from '@hono/zod-validator'
import {
  createTokenRecord,
  detectClientIp,
  FALLBACK_CLIENT_IP,
  normalizeIp,
  streamType,
  VIDEO_SLUG_PATTERN,
} from '@proj/signing'
import { Hono } from 'hono'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
import * as z from 'zod/mini'
import { issuedToken } from './audit-log.ts'
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
import type { TokenAppEnv } from './types.ts'

/** Options of {@link createTokenApp}. */
export interface TokenAppOptions {
  /** Replaces the `AUTH_MODE` authorizer with your own check. */
  authorize?: Authorizer
  /** Clock in milliseconds; injected by tests. */
  now?: () => number
}

/** A parameter given twice is refused: which copy was signed would be a guess. */
const singleValued = (name: string, value: z.ZodMiniType<string> = z.string()) =>
  z.optional(
    z.union([
      value,
      z.pipe(
        z.array(z.string()),
        z.transform(() => fail(400, `${name} must be given once`)),
      ),
    ]),
  )

const tokenQuery = z.object({
  video: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'video is required' : 'video must be given once',
    })
    .check(
      z.minLength(1, 'video is required'),
      z.regex(VIDEO_SLUG_PATTERN, 'video must be 1 to 128 characters from A-Z, a-z, 0-9, _ and -'),
    ),
  type: singleValued('type'),
  expire: singleValued('expire'),
  client_ip: singleValued(
    'client_ip',
    z
      .string()
      .check(
        z.refine(
          (ip) => normalizeIp(ip) !== undefined,
          'client_ip must be a valid IPv4 or IPv6 address',
        ),
      ),
  ),
})

const validateQuery = zValidator('query', tokenQuery, (result) => {
  if (!result.success) fail(400, result.error.issues[0]?.message ?? 'invalid query')
})

const corsForConfig = cors({
  origin: (origin, c) => {
    const allowed = (c as { get(key: 'config'): TokenAppEnv['Variables']['config'] }).get(
      'config',
    ).allowedOrigins
    if (allowed === '*') return '*'
    return allowed?.includes(origin) ? origin : null
  },
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
export const createTokenApp = ({ authorize, now = Date.now }: TokenAppOptions = {}) => {
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
  app.use(requestId())
  app.use(async function configAndNosniff(c, next) {
    c.set('config', loadConfig(c.env))
    c.header('X-Content-Type-Options', 'nosniff')
    await next()
  })
  // A request without Origin is not a CORS request: nothing to add, and the middleware's work
  // was a third of the endpoint's cost (BENCHMARKS.md). The answer is no-store, so no Vary.
  app.use('/token', function corsWhenCrossOrigin(c, next) {
    return c.req.header('origin') === undefined ? next() : corsForConfig(c, next)
  })
  return app
    .get('/token', validateQuery, async (c) => {
      const { signing, ipHeaders, auth } = c.get('config')
      const query = c.req.valid('query')
      const decision = await (authorize ?? authorizerFor(auth))(c, query.video)
      if (!decision.allow) fail(decision.status, decision.reason)
      const clientIp = detectClientIp(c.req.raw.headers, {
        explicit: query.client_ip,
        headerNames: ipHeaders,
      })
      const limit = limitFor(c.env?.TOKEN_RATE_LIMITER, c.get('config'))
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
        { nowSeconds: Math.floor(now() / 1000) },
      )
      // one structured line per issued token (Workers: observability logs; Node: stdout)
      const payload = c.get('jwtPayload') as { sub?: unknown } | undefined
      console.log(
        JSON.stringify(
          issuedToken(record, {
            video: query.video,
            type: streamType(query.type),
            sub: payload?.sub,
            requestId: c.get('requestId'),
            nowMs: now(),
          }),
        ),
      )
      c.header('Cache-Control', 'no-store')
      // The clock the record was signed with, to the second (every runtime, not only the edge).
      c.header('Date', new Date(now()).toUTCString())
      return c.json(record)
    })
    .all('/token', (c) => {
      c.header('Allow', 'GET, HEAD, OPTIONS')
      return fail(405, `method ${c.req.method} is not allowed: use GET`)
    })
}

/** The token app type, for `hc<TokenApp>()` clients. */
export type TokenApp = ReturnType<typeof createTokenApp>
