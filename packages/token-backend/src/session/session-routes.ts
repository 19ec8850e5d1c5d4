import { Hono } from 'hono/tiny'
import type { TokenAppEnv } from '../types.ts'
import { cdnRoute } from './cdn-route.ts'
import { fileRoute } from './file-route.ts'
import { issueRoute } from './issue-route.ts'
import { revokeRoute } from './revoke-route.ts'
import { type SessionRouteOptions, sessionLane } from './session-lane.ts'

export type { SessionRecord } from './issue-route.ts'
export { REVOCATION_CACHE_MS, type SessionRouteOptions } from './session-lane.ts'

/**
 * The session lane: `GET /session` issues a session URL (`issue-route.ts`);
 * `/s/{video}/{credential}/{file}` serves its playlists, fetched from the CDN and rewritten, and
 * redirects its segments, keys and init sections to CDN URLs signed at that moment
 * (`file-route.ts`), on the CDN that serves sessions now when there are several
 * (`session-cdns.ts`, `cdn-health.ts`); `POST /sessions/revoke` ends sessions (`revoke-route.ts`);
 * `/cdns` is the operator's CDN switch (`cdn-route.ts`).
 *
 * @example
 * ```ts
 * app.route('/', sessionRoutes({ now: Date.now, audit, signersOf, authorize, limitFor, … }))
 * ```
 */
export function sessionRoutes(options: SessionRouteOptions) {
  const lane = sessionLane(options)
  return new Hono<TokenAppEnv>()
    .route('/', issueRoute(lane))
    .route('/', revokeRoute(lane))
    .route('/', cdnRoute(lane))
    .route('/', fileRoute(lane))
}
