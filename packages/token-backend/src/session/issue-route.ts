import { MANIFEST_FILES, parseExpire, resolveExpiry, streamType, toBase64Url } from '@proj/signing'
import { HTTPException } from 'hono/http-exception'
import { Hono } from 'hono/tiny'
import { fail } from '../errors.ts'
import { mountPrefix } from '../mount.ts'
import { headAnswer, signedAnswer } from '../response-headers.ts'
import { streamLimitOf } from '../streams/stream-settings.ts'
import { streamViewer } from '../token-route.ts'
import type { TokenAppEnv } from '../types.ts'
import { admitViewer, nameableSubject, validateViewerQuery } from '../viewer-request.ts'
import { sessionNetwork } from './network.ts'
import { issuedSession } from './session-audit.ts'
import { type SessionLane, sessionsOf } from './session-lane.ts'
import { sessionBase, sessionUrl } from './session-path.ts'
import { type SessionClaims, signSession } from './session-token.ts'

/** `GET /session`'s answer. */
export interface SessionRecord {
  /** The master playlist of the session (the MPD with `format=dash`): give it to any HLS (DASH) client. */
  session_url: string
  /** When the session ends, Unix seconds. */
  expires: number
}

const newSessionId = () =>
  toBase64Url(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))

/**
 * `GET /session?video=&type=[&expire=][&client_ip=][&format=hls|dash]`: checked exactly as `GET /token` (query,
 * authorization, rate limit), with stream limits admitted as a stream of its viewer (409 when
 * over the limit), answered `{session_url, expires}` with an audit line. A refused
 * issuance is audited too, once per caller and reason.
 *
 * @example
 * ```ts
 * app.route('/', issueRoute(sessionLane(options)))
 * ```
 */
export function issueRoute({ now, audit, admission, noteRefusal, streams }: SessionLane) {
  return new Hono<TokenAppEnv>().get('/session', validateViewerQuery, async function issue(c) {
    const config = c.get('tokenConfig')
    const session = sessionsOf(config)
    const nowMs = now()
    const nowSeconds = Math.floor(nowMs / 1000)
    const query = c.req.valid('query')
    const viewer = await admitViewer(c, query, admission).catch((error: unknown) => {
      if (error instanceof HTTPException && [401, 403, 429].includes(error.status))
        noteRefusal(c, {
          video: query.video,
          reason: error.status === 429 ? 'rate_limited' : 'not_authorized',
          client_ip: admission.viewerAddress(c),
        })
      throw error
    })
    // as /token reads expire, except that "none" (absent, unparsable, ≤ 0) is the session default
    const asked = parseExpire(query.expire)
    const exp =
      asked === undefined || asked <= 0
        ? nowSeconds + session.lifetimeSeconds
        : resolveExpiry(asked, { nowSeconds, maxLifetimeSeconds: session.lifetimeSeconds })
    if (exp <= nowSeconds) fail(400, 'expire is in the past')
    const { clientIp } = viewer
    // the URL carries it: one too long to name is refused here, with or without stream limits
    const subject = nameableSubject(viewer.subject)
    const limits = config.streams
    if (c.req.method === 'HEAD') {
      // the checks of GET, not the ledger: a HEAD takes no slot (and so never hears 409)
      if (limits !== undefined) streamViewer(subject)
      return headAnswer<SessionRecord>(c, nowMs)
    }
    const net = sessionNetwork(clientIp, session.binding)
    const limit = limits === undefined ? undefined : streamLimitOf(limits, c.get('jwtPayload'))
    const claims: SessionClaims = {
      cid: config.signing.clientId,
      video: query.video,
      type: streamType(query.type),
      sid: newSessionId(),
      iat: nowSeconds,
      exp,
      bind: session.binding,
      ...(net !== undefined && { net }),
      ...(subject !== undefined && { sub: subject }),
      ...(limit !== undefined && { lim: limit }),
      // to the millisecond: a revocation of the viewer in this very second must not take it
      iatms: Math.floor(nowMs),
    }
    // a session is a stream: admitted (or refused, or the oldest evicted) before it is signed
    if (limits !== undefined && limit !== undefined)
      await streams.pass(c, limits, {
        sub: streamViewer(subject),
        limit,
        id: undefined,
        newId: claims.sid,
        lane: 'session',
        untilMs: nowMs + limits.sessionIdleSeconds * 1000,
        keepUntilMs: exp * 1000,
        status: 409,
      })
    const credential = await signSession(claims, session.secret)
    // under the prefix the app is routed at (parent.route('/video', app)): the files are there
    const base = sessionBase(c.req.url, mountPrefix(c), session.baseUrl)
    audit(JSON.stringify(issuedSession(claims, { clientIp, requestId: c.get('requestId'), nowMs })))
    return signedAnswer<SessionRecord>(
      c,
      {
        session_url: sessionUrl(
          base,
          query.video,
          credential,
          MANIFEST_FILES[query.format ?? 'hls'],
        ),
        expires: exp,
      },
      nowMs,
    )
  })
}
