import { sValidator } from '@hono/standard-validator'
import { FALLBACK_CLIENT_IP, normalizeIp, VIDEO_SLUG_PATTERN } from '@proj/signing'
import type { Context } from 'hono'
import * as v from 'valibot'
import { type Authorizer, authorizerFor } from './authorize.ts'
import type { TokenBackendConfig } from './config.ts'
import { fail } from './errors.ts'
import {
  bindingLimit,
  enforceLimit,
  memoryLimit,
  type RateLimitConfig,
  type ViewerLimit,
  viewerKey,
} from './rate-limit.ts'
import type { TokenAppEnv } from './types.ts'
import type { ViewerAddress } from './viewer-address.ts'

/** A parameter given twice arrives as an array: refused, since which copy was signed would be a guess. */
const once = (name: string) => `${name} must be given once`
const optionalOnce = (name: string) => v.optional(v.string(once(name)))

const viewerQuery = v.object(
  {
    video: v.pipe(
      v.string((issue) => (issue.input === undefined ? 'video is required' : once('video'))),
      v.minLength(1, 'video is required'),
      v.regex(VIDEO_SLUG_PATTERN, 'video must be 1 to 128 characters from A-Z, a-z, 0-9, _ and -'),
    ),
    type: optionalOnce('type'),
    expire: optionalOnce('expire'),
    // which manifest the URLs name; absent: HLS, and the record of spec 2.11 as it always was
    format: v.optional(
      v.pipe(v.string(once('format')), v.picklist(['hls', 'dash'], 'format must be hls or dash')),
    ),
    // the stream this request continues (the previous record's `stream`): its form is checked
    // where stream limits use it (streamIdOf); with them off it is ignored like any other
    stream: optionalOnce('stream'),
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

/** The query of `GET /token` and `GET /session`, validated. */
export type ViewerQuery = v.InferOutput<typeof viewerQuery>

/**
 * The query validator of `GET /token` and `GET /session`: one 400 `{error}` per problem.
 *
 * @example
 * ```ts
 * app.get('/token', validateViewerQuery, (c) => c.json(c.req.valid('query')))
 * ```
 */
export const validateViewerQuery = sValidator('query', viewerQuery, (result) => {
  if (!result.success) fail(400, result.error[0]?.message ?? 'invalid query')
})

/**
 * The per-viewer limit of a configuration: the `TOKEN_RATE_LIMITER` binding when there is one,
 * else the limit `shared` makes for it (one shared by every instance, e.g. `redisLimit`), else an
 * in-memory counter kept as long as this function (the Node process, one isolate). Either is made
 * once per configuration.
 *
 * @example
 * ```ts
 * const limitFor = viewerLimits(Date.now)
 * const limit = limitFor(c.env.TOKEN_RATE_LIMITER, c.get('tokenConfig'))
 * ```
 */
export function viewerLimits(now: () => number, shared?: (config: RateLimitConfig) => ViewerLimit) {
  const limits = new WeakMap<TokenBackendConfig, ViewerLimit>()
  return (
    binding: TokenAppEnv['Bindings']['TOKEN_RATE_LIMITER'],
    config: TokenBackendConfig,
  ): ViewerLimit | undefined => {
    const { requests, periodSeconds } = config.rateLimit
    if (binding) return bindingLimit(binding, periodSeconds)
    if (requests === undefined) return undefined
    let limit = limits.get(config)
    if (limit === undefined) {
      limit = shared
        ? shared({ requests, periodSeconds })
        : memoryLimit({ requests, periodSeconds }, now)
      limits.set(config, limit)
    }
    return limit
  }
}

/** What {@link admitViewer} needs. */
export interface AdmissionRules {
  authorize: Authorizer | undefined
  limitFor: ReturnType<typeof viewerLimits>
  /** The viewer's address: the connection's, or what the trusted proxies or headers say. */
  viewerAddress: ViewerAddress
}

/** Who asks, once admitted: read once per request, used by the record, the audit and the limit. */
export interface Viewer {
  /** The caller's own address (the connection's, or what the trusted proxies or headers say). */
  address: string
  /** The address the IP-bound token is signed for: `client_ip` when given, else {@link address}. */
  clientIp: string
  /** The viewer JWT's `sub` when the request was authenticated with one (non-empty), else `undefined`. */
  subject: string | undefined
}

/**
 * The longest viewer identity (a JWT's `sub`) a stream or a session is issued for: what the
 * operator's endpoints accept, and short enough for a session URL that carries it.
 */
export const MOST_SUBJECT_CHARACTERS = 512

/**
 * `subject` when the operator can name it ({@link MOST_SUBJECT_CHARACTERS} at most), else a 403
 * that says why: stream limits count by it, a session URL carries it.
 *
 * @example
 * ```ts
 * const sub = nameableSubject(viewer.subject) // undefined stays undefined
 * ```
 */
export function nameableSubject(subject: string | undefined): string | undefined {
  if (subject !== undefined && subject.length > MOST_SUBJECT_CHARACTERS)
    fail(403, `the viewer's identity (sub) is longer than ${MOST_SUBJECT_CHARACTERS} characters`)
  return subject
}

/**
 * The checks every signing request passes, in order: authorization (401/403), then the
 * per-viewer rate limit (429 with `Retry-After`), counted by the subject when there is one, else
 * by the caller's network. Returns the {@link Viewer}.
 *
 * @example
 * ```ts
 * const { clientIp, subject } = await admitViewer(c, c.req.valid('query'), { authorize, limitFor, viewerAddress })
 * ```
 */
export async function admitViewer(
  c: Context<TokenAppEnv>,
  query: ViewerQuery,
  { authorize, limitFor, viewerAddress }: AdmissionRules,
): Promise<Viewer> {
  const config = c.get('tokenConfig')
  const decision = await (authorize ?? authorizerFor(config.auth))(c, query.video)
  if (!decision.allow) {
    // every 401 names how to authenticate (RFC 9110), an authorizer's own refusals too
    if (decision.status === 401 && !c.res.headers.has('WWW-Authenticate'))
      c.header('WWW-Authenticate', 'Bearer realm="token"')
    fail(decision.status, decision.reason)
  }
  const address = viewerAddress(c)
  const sub = (c.get('jwtPayload') as { sub?: unknown } | undefined)?.sub
  const subject = typeof sub === 'string' && sub !== '' ? sub : undefined
  const limit = limitFor(c.env?.TOKEN_RATE_LIMITER, config)
  if (limit) {
    // counted by who is asking (client_ip is chosen by the caller, so it never decides)
    const viewer = viewerKey(subject, address)
    // one who cannot be told apart (no subject, no address) would share a single count with
    // everyone such: not limited
    if (viewer !== `net:${FALLBACK_CLIENT_IP}`) await enforceLimit(limit, viewer)
  }
  // validated by the query schema: a valid address, printed as the CDN will see it
  const clientIp =
    query.client_ip === undefined ? address : (normalizeIp(query.client_ip) ?? address)
  return { address, clientIp, subject }
}
