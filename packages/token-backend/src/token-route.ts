import { resolveTokenRequest, streamType, type TokenRecord } from '@proj/signing'
import { Hono } from 'hono/tiny'
import { type AuditSink, issuedToken } from './audit-log.ts'
import { type CdnSigners, signForCdns } from './cdn-record.ts'
import type { TokenBackendConfig } from './config.ts'
import { signedAnswer } from './response-headers.ts'
import type { TokenAppEnv } from './types.ts'
import { type AdmissionRules, admitViewer, validateViewerQuery } from './viewer-request.ts'

/** What `GET /token` is given by `createTokenApp`. */
export interface TokenRouteOptions {
  now: () => number
  audit: AuditSink
  admission: AdmissionRules
  /** Every CDN's signer of a configuration, made once per configuration (one CDN: a list of one). */
  signersOf: (config: TokenBackendConfig) => CdnSigners
}

/**
 * `GET /token?video=…[&type=vod][&expire=…][&client_ip=…][&format=hls|dash]`: the query validated (400), the
 * viewer admitted (authorization 401/403, rate limit 429), the record of spec 2.11 signed for
 * every CDN of the configuration (`cdns` after the six fields when there are several; with
 * `format=dash` every URL names `manifest.mpd` instead of `master.m3u8`), one audit
 * line, answered with `Cache-Control: no-store` and `Date` set to the signing clock.
 *
 * @example
 * ```ts
 * app.route('/', tokenRoute({ now: Date.now, audit, admission, signersOf }))
 * ```
 */
export function tokenRoute({ now, audit, admission, signersOf }: TokenRouteOptions) {
  return new Hono<TokenAppEnv>().get('/token', validateViewerQuery, async function issueToken(c) {
    const config = c.get('tokenConfig')
    // one reading of the clock: the record, its audit line and the Date header agree
    const nowMs = now()
    const query = c.req.valid('query')
    const viewer = await admitViewer(c, query, admission)
    const request = resolveTokenRequest(
      config.signing,
      { video: query.video, type: query.type, expire: query.expire, clientIp: viewer.clientIp },
      Math.floor(nowMs / 1000),
    )
    const record = await signForCdns(signersOf(config), request, query.format)
    // one structured line per issued token (Workers: observability logs; Node: stdout)
    audit(
      JSON.stringify(
        issuedToken(record, {
          video: query.video,
          type: streamType(query.type),
          sub: viewer.subject,
          requestId: c.get('requestId'),
          nowMs,
        }),
      ),
    )
    return signedAnswer<TokenRecord>(c, record, nowMs)
  })
}
