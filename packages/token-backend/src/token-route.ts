import { resolveTokenRequest, streamType, type TokenRecord } from '@proj/signing'
import { Hono } from 'hono/tiny'
import { type AuditSink, issuedToken } from './audit-log.ts'
import { type CdnSigners, signForCdns } from './cdn-record.ts'
import type { TokenBackendConfig } from './config.ts'
import { fail } from './errors.ts'
import { headAnswer, signedAnswer } from './response-headers.ts'
import { sessionNetwork } from './session/network.ts'
import { newStreamId, type StreamGate } from './streams/stream-gate.ts'
import { streamLimitOf } from './streams/stream-settings.ts'
import type { TokenAppEnv } from './types.ts'
import {
  type AdmissionRules,
  admitViewer,
  nameableSubject,
  validateViewerQuery,
} from './viewer-request.ts'

/** What `GET /token` is given by `createTokenApp`. */
export interface TokenRouteOptions {
  now: () => number
  audit: AuditSink
  admission: AdmissionRules
  /** Every CDN's signer of a configuration, made once per configuration (one CDN: a list of one). */
  signersOf: (config: TokenBackendConfig) => CdnSigners
  /** The stream ledger's gate, used when the configuration has stream limits. */
  streams: StreamGate
}

const STREAM_ID = /^[A-Za-z0-9_-]{22,64}$/

/**
 * The `stream` a request names, when stream limits count it: 400 unless it has an id's form.
 *
 * @example
 * ```ts
 * streamIdOf('9f86d081884c7d659a2feaa0c55ad015') // '9f86d081884c7d659a2feaa0c55ad015'
 * ```
 */
export function streamIdOf(stream: string | undefined): string | undefined {
  if (stream !== undefined && !STREAM_ID.test(stream))
    fail(400, 'stream must be 22 to 64 characters from A-Z, a-z, 0-9, _ and -')
  return stream
}

/** The record of `GET /token` with stream limits on: the stream it belongs to after the rest. */
export type StreamTokenRecord = TokenRecord & { stream?: string }

/**
 * The viewer a stream is counted for: the JWT's `sub` (or what your authorizer set). Stream
 * limits on and no subject (or one too long to name: `nameableSubject`): refused, since an
 * address is not a viewer.
 */
export function streamViewer(subject: string | undefined): string {
  return (
    nameableSubject(subject) ??
    fail(403, 'stream limits need a viewer identity: a JWT with a sub claim')
  )
}

/**
 * `GET /token?video=…[&type=vod][&expire=…][&client_ip=…][&format=hls|dash][&stream=…]`: the query validated (400), the
 * viewer admitted (authorization 401/403, rate limit 429), with stream limits the stream admitted
 * or renewed (409 `stream_limit` / `stream_ended`, and `stream` after the record's fields), the record of spec 2.11 signed for
 * every CDN of the configuration (`cdns` after the six fields when there are several; with
 * `format=dash` every URL names `manifest.mpd` instead of `master.m3u8`), one audit
 * line, answered with `Cache-Control: no-store` and `Date` set to the signing clock. `HEAD`
 * makes the same checks and issues nothing (`headAnswer`).
 *
 * @example
 * ```ts
 * app.route('/', tokenRoute({ now: Date.now, audit, admission, signersOf }))
 * ```
 */
export function tokenRoute({ now, audit, admission, signersOf, streams }: TokenRouteOptions) {
  return new Hono<TokenAppEnv>().get('/token', validateViewerQuery, async function issueToken(c) {
    const config = c.get('tokenConfig')
    // one reading of the clock: the record, its audit line and the Date header agree
    const nowMs = now()
    const query = c.req.valid('query')
    const limits = config.streams
    // with limits on, a malformed stream is refused as a malformed video is: before the viewer is
    // admitted (no authorization call, no rate-limit slot spent on a request that cannot succeed)
    const streamId = limits === undefined ? undefined : streamIdOf(query.stream)
    const viewer = await admitViewer(c, query, admission)
    const request = resolveTokenRequest(
      config.signing,
      { video: query.video, type: query.type, expire: query.expire, clientIp: viewer.clientIp },
      Math.floor(nowMs / 1000),
    )
    if (c.req.method === 'HEAD') {
      // the checks of GET, not the ledger: a HEAD takes no slot (and so never hears 409)
      if (limits !== undefined) streamViewer(viewer.subject)
      return headAnswer<StreamTokenRecord>(c, nowMs)
    }
    // stream limits: admitted (or renewed) before anything is signed
    const stream =
      limits === undefined
        ? undefined
        : await streams.pass(c, limits, {
            sub: streamViewer(viewer.subject),
            limit: streamLimitOf(limits, c.get('jwtPayload')),
            id: streamId,
            // the client's own id when it names one this ledger does not know (a first /token
            // retried after its answer was lost, a reload resuming its stream): adopted, so the
            // retry renews what the lost answer admitted instead of counting a second stream
            newId: query.stream ?? newStreamId(),
            lane: 'token',
            // one id on at most as many networks as a session URL (SESSION_BINDING, _MAX_NETWORKS)
            network: sessionNetwork(viewer.address, config.networks.binding),
            maxNetworks: config.networks.maxNetworks,
            untilMs: (request.expires + limits.graceSeconds) * 1000,
            keepUntilMs: (request.expires + limits.graceSeconds) * 1000,
            status: 409,
          })
    const signed = await signForCdns(signersOf(config), request, query.format)
    const record: StreamTokenRecord =
      stream === undefined ? signed : { ...signed, stream: stream.id }
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
    return signedAnswer<StreamTokenRecord>(c, record, nowMs)
  })
}
