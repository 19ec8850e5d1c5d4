import { videoDirectory } from '@proj/signing'
import type { Context } from 'hono'
import { Hono } from 'hono/tiny'
import type { SessionConfig } from '../config.ts'
import { mountPrefix } from '../mount.ts'
import { answerHeaders } from '../response-headers.ts'
import { STREAM_RENEWAL_THROTTLE_MS } from '../streams/stream-gate.ts'
import type { TokenAppEnv } from '../types.ts'
import type { CdnFailureReport } from './cdn-health.ts'
import { sessionMpd } from './mpd/session-mpd.ts'
import { sessionNetwork } from './network.ts'
import type { SessionCdns, SessionFileTarget } from './session-cdns.ts'
import { SESSION_CORS, type SessionLane, sessionsOf } from './session-lane.ts'
import { type SessionRequest, sessionBase, sessionRequest, sessionUrl } from './session-path.ts'
import { sessionPlaylist } from './session-playlist.ts'
import { issuedAt, type SessionClaims } from './session-token.ts'
import type { PlaylistSource } from './upstream-playlists.ts'

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl'
const MPD_TYPE = 'application/dash+xml'

/**
 * The session's claims once every check passed: signature and expiry (403/410), account and
 * video, network binding, revocation (403); each refusal audited once. With stream limits, the
 * session's stream renewed (403 `stream_ended` / `stream_limit` as JSON).
 */
async function admittedSession(
  c: Context<TokenAppEnv>,
  lane: SessionLane,
  session: SessionConfig,
  { video, credential }: SessionRequest,
): Promise<SessionClaims> {
  const config = c.get('tokenConfig')
  const clientIp = lane.admission.viewerAddress(c)
  const verdict = await lane.sessions.verify(
    credential,
    session.secret,
    Math.floor(lane.now() / 1000),
  )
  if ('problem' in verdict)
    return verdict.problem === 'expired'
      ? lane.refuse(c, 410, 'session expired', { video, reason: 'expired', client_ip: clientIp })
      : lane.refuse(c, 403, 'session is not valid', {
          video,
          reason: 'invalid',
          client_ip: clientIp,
        })
  const { claims } = verdict
  const refused = (
    message: string,
    reason: 'foreign_account' | 'foreign_video' | 'network' | 'revoked',
  ) =>
    lane.refuse(c, 403, message, {
      video,
      reason,
      session_id: claims.sid,
      client_ip: clientIp,
      ...(claims.sub !== undefined && { sub: claims.sub }),
    })
  if (claims.cid !== config.signing.clientId)
    refused('session is for another account', 'foreign_account')
  if (claims.video !== video) refused('session is for another video', 'foreign_video')
  const store = lane.storeOf(c)
  if (claims.bind !== 'none') {
    const network = sessionNetwork(clientIp, claims.bind)
    const admitted =
      network !== undefined &&
      (network === claims.net ||
        (await store.admitNetwork(claims, network, session.maxNetworks - 1)))
    const { maxNetworks } = session
    if (!admitted)
      refused(
        `session is already used from ${maxNetworks} network${maxNetworks === 1 ? '' : 's'}`,
        'network',
      )
  }
  const issued = { sid: claims.sid, sub: claims.sub, iat: issuedAt(claims), exp: claims.exp }
  if (await store.isRevoked(issued)) refused('session revoked', 'revoked')
  // a session is a stream of its viewer: each leaf renews it (at most one write a second per
  // instance); an evicted or ended one is refused, an idle one comes back if there is room
  const limits = config.streams
  if (
    limits !== undefined &&
    claims.sub !== undefined &&
    !lane.streams.renewedWithin(claims.sub, claims.sid, STREAM_RENEWAL_THROTTLE_MS)
  ) {
    const nowMs = lane.now()
    await lane.streams.pass(c, limits, {
      sub: claims.sub,
      limit: claims.lim ?? limits.limit,
      id: claims.sid,
      newId: claims.sid,
      lane: 'session',
      untilMs: nowMs + limits.sessionIdleSeconds * 1000,
      keepUntilMs: claims.exp * 1000,
      throttleMs: STREAM_RENEWAL_THROTTLE_MS,
      status: 403,
    })
  }
  return claims
}

/**
 * The CDNs to fetch a playlist from, the serving one first: each failure tells the health view
 * and moves to the next at once, so the viewer's playlist request is answered all the same.
 */
async function failoverSources(
  cdns: SessionCdns,
  target: SessionFileTarget,
  suffix: string,
  timeoutMs: number,
): Promise<PlaylistSource[]> {
  const serving = cdns.serving()
  const order = [serving, ...cdns.cdns.map((cdn) => cdn.id).filter((id) => id !== serving)]
  return Promise.all(
    order.map(async (id, index) => ({
      url: (await cdns.urlFor(id, target)) + suffix,
      // the last CDN may take the usual time: there is nothing left to fall back to
      ...(index < order.length - 1 && { timeoutMs }),
      failed: (fault: CdnFailureReport) => cdns.health.failed(id, fault),
      succeeded: () => cdns.health.succeeded(id),
    })),
  )
}

/**
 * The public URL the client loaded this file from, as `GET /session` hands it out
 * (`SESSION_BASE_URL` or the request's origin, then the mount prefix): where an MPD's
 * root-relative and absolute references must point when no relative one serves.
 */
function publicUrl(
  c: Context<TokenAppEnv>,
  session: SessionConfig,
  { video, credential, file }: SessionRequest,
): string {
  return sessionUrl(
    sessionBase(c.req.url, mountPrefix(c), session.baseUrl),
    video,
    credential,
    file.rest,
  )
}

/** Lets background work finish after the answer (Workers' `waitUntil`; Node just runs it). */
function keepAlive(c: Context<TokenAppEnv>, work: Promise<unknown>): void {
  const settled = work.catch(() => undefined)
  try {
    c.executionCtx.waitUntil(settled)
  } catch {
    // no execution context (Node): the promise runs on by itself
  }
}

/**
 * `/s/{video}/{credential}/{file}`: a playlist or an MPD is fetched from the CDN (cached, failing
 * over to the next CDN in the request), rewritten under the session and answered 200; anything
 * else is a 302 to a CDN URL of the session's video signed now, living the leaf lifetime (never
 * past the session's end). CORS on every answer.
 *
 * @example
 * ```ts
 * app.route('/', fileRoute(sessionLane(options)))
 * ```
 */
export function fileRoute(lane: SessionLane) {
  return new Hono<TokenAppEnv>()
    .options('/s/*', function preflight(c) {
      return new Response(null, {
        status: 204,
        headers: {
          ...answerHeaders(c),
          ...SESSION_CORS,
          allow: 'GET, HEAD, OPTIONS',
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
          'access-control-allow-headers': 'Range',
          'access-control-max-age': '600',
        },
      })
    })
    .get('/s/*', async function sessionFileAnswer(c) {
      for (const [name, value] of Object.entries(SESSION_CORS)) c.header(name, value)
      const config = c.get('tokenConfig')
      const session = sessionsOf(config)
      const request = sessionRequest(c.req.raw.url, mountPrefix(c))
      const claims = await admittedSession(c, lane, session, request)
      const directory = videoDirectory(config.signing.clientId, claims.video, claims.type)
      // never past the session's own end: when it ends, so does what it handed out
      const expires = Math.min(
        Math.floor(lane.now() / 1000) + session.leafLifetimeSeconds,
        claims.exp,
      )
      const cdns = lane.cdnsOf(config)
      const target = { video: claims.video, type: claims.type, expires, rest: request.file.rest }
      const { search } = request
      const leaf = request.file.kind === 'leaf'
      const syncing = lane.syncDrains(c, cdns)
      if (syncing !== undefined) await syncing
      // Several CDNs: those due for a probe are probed with this very leaf. The serving CDN's
      // probe is waited for, by this leaf and by those that come while it runs (one round trip
      // a second; a hang, the probe timeout), so that the leaves that find a failure already go
      // to the next CDN: what meets a refusal, a 5xx or a hang is only what was sent in the
      // second before it was seen (the last probe had passed; docs/multi-cdn.md). A session
      // asking for the same track again at once (a client running through failed segments) has
      // the serving CDN probed again within 0.1 s. The others' run behind. One CDN is never
      // probed: there is nowhere else to go.
      if (leaf) {
        const { serving, others } = cdns.probeDue(target, { session: claims.sid })
        if (others !== undefined) keepAlive(c, others)
        if (serving !== undefined) await serving
      }
      const signed = cdns.urlFor(cdns.serving(), target)
      // signed within the second already (most leaves): no await
      const cdnUrl = typeof signed === 'string' ? signed : await signed
      if (leaf) {
        const query = search === '' ? '' : new URLSearchParams(search).toString()
        return new Response(null, {
          status: 302,
          headers: {
            ...answerHeaders(c),
            ...SESSION_CORS,
            'content-type': 'text/plain',
            location: query === '' ? cdnUrl : `${cdnUrl}?${query}`,
          },
        })
      }
      const mpd = request.file.kind === 'mpd'
      // LL-HLS blocking reloads: only the protocol's own parameters reach the CDN (an MPD: none)
      const hls = mpd
        ? ''
        : new URLSearchParams(
            [...new URLSearchParams(search)].filter(([name]) => name.startsWith('_HLS_')),
          ).toString()
      const suffix = hls === '' ? '' : `?${hls}`
      const upstream = cdnUrl + suffix
      const text = await lane.upstream.get(
        `${directory}${request.file.rest}${suffix}`,
        claims.type,
        () => failoverSources(cdns, target, suffix, lane.cdnTimeoutMs),
      )
      const origin = { upstream, cdnHosts: cdns.hosts, directory, rest: request.file.rest }
      // an MPD the rewriter refuses is a 502 of its own (MpdError): the CDN answered, so its
      // health is untouched
      const body = mpd
        ? sessionMpd(text, { ...origin, session: publicUrl(c, session, request) })
        : sessionPlaylist(text, origin)
      return new Response(body, {
        headers: {
          ...answerHeaders(c),
          ...SESSION_CORS,
          'content-type': mpd ? MPD_TYPE : PLAYLIST_TYPE,
        },
      })
    })
}
