import { sValidator } from '@hono/standard-validator'
import {
  detectClientIp,
  parseExpire,
  resolveExpiry,
  signToken,
  streamType,
  type TokenDigest,
  toBase64Url,
} from '@proj/signing'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { Hono } from 'hono/tiny'
import { timingSafeEqual } from 'hono/utils/buffer'
import * as v from 'valibot'
import type { AuditSink } from '../audit-log.ts'
import type { SessionConfig, TokenWorkerConfig } from '../config.ts'
import { fail } from '../errors.ts'
import { answerHeaders, signedAnswer } from '../response-headers.ts'
import type { TokenAppEnv } from '../types.ts'
import { type AdmissionRules, admitViewer, validateViewerQuery } from '../viewer-request.ts'
import { durableSessionStore } from './durable-session-store.ts'
import { sessionNetwork } from './network.ts'
import { cacheApiPlaylists, memoryPlaylists, type PlaylistCache } from './playlist-cache.ts'
import { issuedSession, type RefusedSession, refusedSession } from './session-audit.ts'
import { sessionFile, videoDirectory } from './session-path.ts'
import { sessionPlaylist } from './session-playlist.ts'
import { cachedSessionStore, memorySessionStore, type SessionStore } from './session-store.ts'
import { type SessionClaims, signSession, verifiedSessions } from './session-token.ts'
import { upstreamPlaylists } from './upstream-playlists.ts'

/** How long this isolate trusts the store's "not revoked" (on top of the leaf lifetime). */
export const REVOCATION_CACHE_MS = 1000

/** What the session routes are given by `createTokenApp`. */
export interface SessionRouteOptions extends AdmissionRules {
  now: () => number
  digest: TokenDigest | undefined
  audit: AuditSink
  /** The shared session state; default: the `SESSION_REGISTRY` binding, else memory. */
  store: SessionStore | undefined
  /** Upstream playlists; default: the Workers Cache API, else memory. */
  playlists: PlaylistCache | undefined
  /** How the worker reaches the CDN (tests inject one). */
  fetcher: typeof fetch | undefined
}

/** `GET /session`'s answer. */
export interface SessionRecord {
  /** The master playlist of the session: give it to any HLS client. */
  session_url: string
  /** When the session ends, Unix seconds. */
  expires: number
}

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl'
// the credential: three base64url parts (an empty signature is refused by the verification)
const SESSION_PATH =
  /^\/s\/([A-Za-z0-9_-]{1,128})\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)\/(.+)$/
const MAX_PATH = 4096
/** Session answers are for any page or app (the URL is the credential): CORS for every origin. */
const SESSION_CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Date, Retry-After',
  // a page may time its own media requests (Resource Timing), redirect hop included
  'timing-allow-origin': '*',
}

const revokeBody = v.union(
  [
    v.strictObject({ session_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/)) }),
    v.strictObject({ sub: v.pipe(v.string(), v.minLength(1), v.maxLength(512)) }),
  ],
  'body must be {"session_id": "…"} or {"sub": "…"}',
)

const sessionsOf = (config: TokenWorkerConfig): SessionConfig =>
  config.session ?? fail(501, 'sessions are off: set SESSION_SECRET to turn them on')

const newSessionId = () =>
  toBase64Url(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))

/**
 * The session lane: `GET /session` issues a session URL; `/s/{video}/{credential}/{file}`
 * serves its playlists (fetched from the CDN, rewritten) and redirects its segments, keys and
 * init sections to CDN URLs signed at that moment; `POST /sessions/revoke` ends sessions.
 *
 * @example
 * ```ts
 * app.route('/', sessionRoutes({ now: Date.now, audit, authorize, limitFor, … }))
 * ```
 */
export const sessionRoutes = ({
  now,
  digest,
  audit,
  store,
  playlists,
  fetcher,
  ...admission
}: SessionRouteOptions) => {
  const sessions = verifiedSessions()
  const stores = new WeakMap<object, SessionStore>()
  const localStore = memorySessionStore({}, now)
  const storeOf = (c: Context<TokenAppEnv>): SessionStore => {
    if (store) return store
    const binding = c.env?.SESSION_REGISTRY
    if (binding === undefined) return localStore
    let found = stores.get(binding)
    if (found === undefined) {
      found = cachedSessionStore(durableSessionStore(binding), REVOCATION_CACHE_MS, now)
      stores.set(binding, found)
    }
    return found
  }
  const upstream = upstreamPlaylists(
    playlists ??
      (typeof caches !== 'undefined' && 'default' in caches
        ? cacheApiPlaylists((caches as unknown as { default: Cache }).default)
        : memoryPlaylists({}, now)),
    fetcher ?? ((input, init) => fetch(input, init)),
  )
  // one refusal line per session (or caller) and reason, not per segment or retry
  const refusals = new Set<string>()
  const refuseQuietly = (
    c: Context<TokenAppEnv>,
    line: Omit<RefusedSession, 'event' | 'time' | 'request_id'>,
  ) => {
    const key = `${line.session_id ?? line.client_ip} ${line.reason}`
    if (refusals.has(key)) return
    if (refusals.size >= 10_000) refusals.clear()
    refusals.add(key)
    audit(JSON.stringify(refusedSession(line, { requestId: c.get('requestId'), nowMs: now() })))
  }
  const refuse = (
    c: Context<TokenAppEnv>,
    status: 403 | 410,
    message: string,
    line: Omit<RefusedSession, 'event' | 'time' | 'request_id'>,
  ): never => {
    refuseQuietly(c, line)
    return fail(status, message)
  }

  return new Hono<TokenAppEnv>()
    .get('/session', validateViewerQuery, async (c) => {
      const config = c.get('config')
      const session = sessionsOf(config)
      const nowMs = now()
      const nowSeconds = Math.floor(nowMs / 1000)
      const query = c.req.valid('query')
      const clientIp = await admitViewer(c, query, admission).catch((error: unknown) => {
        // a refused issuance is audited too (once per network and reason), then answered
        if (error instanceof HTTPException && [401, 403, 429].includes(error.status)) {
          const caller = detectClientIp(c.req.raw.headers, { headerNames: config.ipHeaders })
          refuseQuietly(c, {
            video: query.video,
            reason: error.status === 429 ? 'rate_limited' : 'not_authorized',
            client_ip: caller,
          })
        }
        throw error
      })
      const type = streamType(query.type)
      // as /token reads expire, except that "none" (absent, unparsable, ≤ 0) is the session default
      const asked = parseExpire(query.expire)
      const exp =
        asked === undefined || asked <= 0
          ? nowSeconds + session.lifetimeSeconds
          : resolveExpiry(asked, { nowSeconds, maxLifetimeSeconds: session.lifetimeSeconds })
      if (exp <= nowSeconds) fail(400, 'expire is in the past')
      const sub = (c.get('jwtPayload') as { sub?: unknown } | undefined)?.sub
      const net = sessionNetwork(clientIp, session.binding)
      const claims: SessionClaims = {
        cid: config.signing.clientId,
        video: query.video,
        type,
        sid: newSessionId(),
        iat: nowSeconds,
        exp,
        bind: session.binding,
        ...(net !== undefined && { net }),
        ...(typeof sub === 'string' && sub !== '' && { sub }),
      }
      const credential = await signSession(claims, session.secret)
      const base = session.baseUrl ?? new URL(c.req.url).origin
      const record: SessionRecord = {
        session_url: `${base}/s/${query.video}/${credential}/master.m3u8`,
        expires: exp,
      }
      audit(
        JSON.stringify(issuedSession(claims, { clientIp, requestId: c.get('requestId'), nowMs })),
      )
      return signedAnswer<SessionRecord>(c, record, nowMs)
    })
    .post(
      '/sessions/revoke',
      async function operatorOnly(c, next) {
        const session = sessionsOf(c.get('config'))
        if (session.adminToken === undefined)
          fail(501, 'revocation is off: set SESSION_ADMIN_TOKEN to turn it on')
        const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]
        if (given === undefined || !(await timingSafeEqual(given, session.adminToken ?? ''))) {
          c.header('WWW-Authenticate', 'Bearer realm="sessions"')
          fail(401, 'revocation needs Authorization: Bearer <SESSION_ADMIN_TOKEN>')
        }
        return next()
      },
      sValidator('json', revokeBody, (result) => {
        if (!result.success) fail(400, result.error[0]?.message ?? 'invalid body')
      }),
      async (c) => {
        const session = sessionsOf(c.get('config'))
        const body = c.req.valid('json')
        const nowSeconds = Math.floor(now() / 1000)
        // nothing issued from now on can outlive this
        const until = nowSeconds + session.lifetimeSeconds
        const sessionStore = storeOf(c)
        if ('session_id' in body) await sessionStore.revokeSession(body.session_id, until)
        else await sessionStore.revokeViewer(body.sub, nowSeconds, until)
        audit(
          JSON.stringify({
            event: 'session_revoked',
            time: new Date(now()).toISOString(),
            ...body,
            request_id: c.get('requestId'),
          }),
        )
        return c.json(
          {
            revoked: body,
            // a CDN URL handed out just before stays valid this long
            effective_within_seconds:
              session.leafLifetimeSeconds + Math.ceil(REVOCATION_CACHE_MS / 1000),
          },
          200,
          answerHeaders(c),
        )
      },
    )
    .options('/s/*', (c) => {
      const headers = answerHeaders(c)
      return new Response(null, {
        status: 204,
        headers: {
          ...headers,
          ...SESSION_CORS,
          allow: 'GET, HEAD, OPTIONS',
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
          'access-control-allow-headers': 'Range',
          'access-control-max-age': '600',
        },
      })
    })
    .get('/s/*', async function sessionFileRoute(c) {
      for (const [name, value] of Object.entries(SESSION_CORS)) c.header(name, value)
      const config = c.get('config')
      const session = sessionsOf(config)
      // the request URL is absolute and has no fragment: cut it rather than parse it (a third
      // of a leaf redirect's cost on workerd)
      const { url } = c.req.raw
      const pathStart = url.indexOf('/', url.indexOf('://') + 3)
      const queryStart = url.indexOf('?', pathStart)
      const pathname = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart)
      const search = queryStart === -1 ? '' : url.slice(queryStart)
      if (pathname.length > MAX_PATH) fail(414, 'session path too long')
      if (pathname.includes('%')) fail(400, 'a session path has no percent-escapes')
      const match = SESSION_PATH.exec(pathname)
      const file = match?.[3] === undefined ? undefined : sessionFile(match[3])
      if (match === null || file === undefined)
        fail(400, 'not a session file: expected /s/{video}/{session}/{file} inside the video')
      const [, video = '', credential = ''] = match ?? []
      const nowMs = now()
      const nowSeconds = Math.floor(nowMs / 1000)
      const clientIp = detectClientIp(c.req.raw.headers, { headerNames: config.ipHeaders })
      const verdict = await sessions.verify(credential, session.secret, nowSeconds)
      if ('problem' in verdict) {
        if (verdict.problem === 'expired')
          refuse(c, 410, 'session expired', { video, reason: 'expired', client_ip: clientIp })
        refuse(c, 403, 'session is not valid', { video, reason: 'invalid', client_ip: clientIp })
      }
      const claims = (verdict as { claims: SessionClaims }).claims
      const refused = (status: 403 | 410, message: string, reason: RefusedSession['reason']) =>
        refuse(c, status, message, {
          video,
          reason,
          session_id: claims.sid,
          client_ip: clientIp,
          ...(claims.sub !== undefined && { sub: claims.sub }),
        })
      if (claims.cid !== config.signing.clientId)
        refused(403, 'session is for another account', 'foreign_account')
      if (claims.video !== video) refused(403, 'session is for another video', 'foreign_video')
      const sessionStore = storeOf(c)
      if (claims.bind !== 'none') {
        const network = sessionNetwork(clientIp, claims.bind)
        const admitted =
          network !== undefined &&
          (network === claims.net ||
            (await sessionStore.admitNetwork(claims, network, session.maxNetworks - 1)))
        if (!admitted)
          refused(
            403,
            `session is already used from ${session.maxNetworks} network${session.maxNetworks === 1 ? '' : 's'}`,
            'network',
          )
      }
      if (await sessionStore.isRevoked(claims)) refused(403, 'session revoked', 'revoked')

      const {
        clientId,
        secretKey: secret,
        cdnDomain,
        cdnDomainIp,
        scheme = 'https',
      } = config.signing
      const directory = videoDirectory(clientId, claims.video, claims.type)
      // never past the session's own end: when it ends, so does what it handed out
      const expires = Math.min(nowSeconds + session.leafLifetimeSeconds, claims.exp)
      const token = signToken({ clientId, video: claims.video, secret, expires }, digest)
      const cdnUrl = (rest: string) =>
        `${scheme}://${cdnDomain}${directory}${token}/${expires}/${rest}`
      const rest = file?.rest ?? ''
      const query = search === '' ? '' : new URLSearchParams(search).toString()
      if (file?.kind === 'leaf') {
        return new Response(null, {
          status: 302,
          headers: {
            ...answerHeaders(c),
            ...SESSION_CORS,
            'content-type': 'text/plain',
            location: query === '' ? cdnUrl(rest) : `${cdnUrl(rest)}?${query}`,
          },
        })
      }
      // LL-HLS blocking reloads: only the protocol's own parameters reach the CDN
      const hls = new URLSearchParams(
        [...new URLSearchParams(search)].filter(([name]) => name.startsWith('_HLS_')),
      ).toString()
      const suffix = hls === '' ? '' : `?${hls}`
      const upstreamUrl = cdnUrl(rest) + suffix
      const text = await upstream.get(
        `${directory}${rest}${suffix}`,
        claims.type,
        () => upstreamUrl,
      )
      const body = sessionPlaylist(text, {
        upstream: upstreamUrl,
        cdnHosts: [cdnDomain, cdnDomainIp],
        directory,
        rest,
      })
      return new Response(body, {
        headers: { ...answerHeaders(c), ...SESSION_CORS, 'content-type': PLAYLIST_TYPE },
      })
    })
    .on(['POST', 'PUT', 'PATCH', 'DELETE'], ['/s/*', '/session'], (c) => {
      c.header('Allow', 'GET, HEAD, OPTIONS')
      return fail(405, `method ${c.req.method} is not allowed: use GET`)
    })
}
