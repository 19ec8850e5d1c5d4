import type { SessionClaims } from './session-token.ts'

/** The audit line of an issued session. Never the credential or the URL: they grant playback. */
export interface IssuedSession {
  event: 'session_issued'
  time: string
  video: string
  type: 'vod' | 'live'
  /** What `POST /sessions/revoke` takes. */
  session_id: string
  expires: number
  binding: SessionClaims['bind']
  /** The network the session is bound to, when it is. */
  network?: string
  client_ip: string
  sub?: string
  request_id: string
}

/**
 * The audit line of a refused session: its use (once per session and reason in an isolate) or
 * its issuance (once per caller and reason).
 */
export interface RefusedSession {
  event: 'session_refused'
  time: string
  video: string
  reason:
    | 'invalid'
    | 'expired'
    | 'foreign_account'
    | 'foreign_video'
    | 'network'
    | 'revoked'
    /** Issuance refused by the authorization (401/403) or the rate limit (429). */
    | 'not_authorized'
    | 'rate_limited'
  /** Absent when the credential could not be read. */
  session_id?: string
  client_ip: string
  sub?: string
  request_id: string
}

/**
 * The audit line for an issued session.
 *
 * @example
 * ```ts
 * audit(JSON.stringify(issuedSession(claims, { clientIp, requestId, nowMs })))
 * ```
 */
export function issuedSession(
  claims: SessionClaims,
  { clientIp, requestId, nowMs }: { clientIp: string; requestId: string; nowMs: number },
): IssuedSession {
  return {
    event: 'session_issued',
    time: new Date(nowMs).toISOString(),
    video: claims.video,
    type: claims.type,
    session_id: claims.sid,
    expires: claims.exp,
    binding: claims.bind,
    ...(claims.net !== undefined && { network: claims.net }),
    client_ip: clientIp,
    ...(claims.sub !== undefined && { sub: claims.sub }),
    request_id: requestId,
  }
}

/**
 * The audit line for a refused use of a session.
 *
 * @example
 * ```ts
 * audit(JSON.stringify(refusedSession({ video, reason: 'revoked', session_id, client_ip }, { requestId, nowMs })))
 * ```
 */
export function refusedSession(
  line: Omit<RefusedSession, 'event' | 'time' | 'request_id'>,
  { requestId, nowMs }: { requestId: string; nowMs: number },
): RefusedSession {
  return {
    event: 'session_refused',
    time: new Date(nowMs).toISOString(),
    ...line,
    request_id: requestId,
  }
}
