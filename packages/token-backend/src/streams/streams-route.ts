import { sValidator } from '@hono/standard-validator'
import type { MiddlewareHandler } from 'hono'
import { Hono } from 'hono/tiny'
import * as v from 'valibot'
import type { TokenBackendConfig } from '../config.ts'
import { fail } from '../errors.ts'
import { answerHeaders } from '../response-headers.ts'
import { operatorOnly } from '../session/revoke-route.ts'
import type { TokenAppEnv } from '../types.ts'
import { MOST_SUBJECT_CHARACTERS } from '../viewer-request.ts'
import type { StreamGate } from './stream-gate.ts'
import type { StreamLane } from './stream-ledger.ts'
import type { StreamSettings } from './stream-settings.ts'

const streamsQuery = v.object(
  {
    sub: v.pipe(
      v.string('sub must be given once'),
      v.minLength(1, 'sub is required'),
      v.maxLength(
        MOST_SUBJECT_CHARACTERS,
        `sub must be at most ${MOST_SUBJECT_CHARACTERS} characters`,
      ),
    ),
    id: v.optional(
      v.pipe(
        v.string('id must be given once'),
        v.regex(/^[A-Za-z0-9_-]{8,64}$/, 'id must be a stream id or a session id'),
      ),
    ),
  },
  'sub is required',
)

/** One stream as the operator sees it. */
export interface OperatorStream {
  /** The stream's id: the `stream` of its records, or the session id. */
  id: string
  lane: StreamLane
  started_at: string
  last_seen_at: string
  /** When it stops counting unless seen again. */
  expires_at: string
}

/** `GET /streams`' answer. */
export interface StreamsView {
  sub: string
  /** The configured limit (a viewer's JWT claim may set theirs otherwise). */
  limit: number
  streams: OperatorStream[]
}

const limitsOf = (config: TokenBackendConfig): StreamSettings =>
  config.streams ?? fail(501, 'stream limits are off: set STREAM_LIMIT to turn them on')

// a lease of an `expire` centuries ahead (no MAX_EXPIRE_SECONDS) may lie past the latest date
// JavaScript prints (toISOString throws a RangeError): printed as that date
const iso = (ms: number) => new Date(Math.min(ms, 8.64e15)).toISOString()

/**
 * The operator's view of a viewer's streams, with the admin token of the revoke endpoints
 * (`SESSION_ADMIN_TOKEN`): `GET /streams?sub=<viewer>` lists the active ones, oldest first;
 * `DELETE /streams?sub=<viewer>[&id=<id>]` ends one, or all of them (`{"ended": n}`): their next
 * refresh or leaf is refused (`stream_ended`, reason `ended`). Effective within a second on
 * other instances (their renewal cache) plus what the viewer's last token or leaf still allows.
 *
 * @example
 * ```ts
 * app.route('/', streamsRoute({ now: Date.now, gate }))
 * ```
 */
export function streamsRoute({ now, gate }: { now: () => number; gate: StreamGate }) {
  const validQuery = sValidator('query', streamsQuery, (result) => {
    if (!result.success) fail(400, result.error[0]?.message ?? 'invalid query')
  })
  const operator = operatorOnly('stream control')
  const streamsOn: MiddlewareHandler<TokenAppEnv> = function streamsOn(c, next) {
    limitsOf(c.get('tokenConfig'))
    return next()
  }
  return new Hono<TokenAppEnv>()
    .get('/streams', operator, streamsOn, validQuery, async function listStreams(c) {
      const { sub, id } = c.req.valid('query')
      const all = await gate.storeOf(c).list(sub, now())
      // with an id: that stream alone (none when it is not active)
      const active = id === undefined ? all : all.filter((lease) => lease.id === id)
      return c.json<StreamsView, 200>(
        {
          sub,
          limit: limitsOf(c.get('tokenConfig')).limit,
          streams: active.map((lease) => ({
            id: lease.id,
            lane: lease.lane,
            started_at: iso(lease.startedAt),
            last_seen_at: iso(lease.lastSeenAt),
            expires_at: iso(lease.expiresAt),
          })),
        },
        200,
        answerHeaders(c),
      )
    })
    .delete('/streams', operator, streamsOn, validQuery, async function endStreams(c) {
      const { sub, id } = c.req.valid('query')
      const store = gate.storeOf(c)
      const ids = id === undefined ? (await store.list(sub, now())).map((lease) => lease.id) : [id]
      const ended = await store.end(sub, id, now())
      for (const each of ids) gate.forget(sub, each)
      gate.noteEnded(c, { sub, ...(id !== undefined && { stream: id }), ended })
      return c.json({ ended }, 200, answerHeaders(c))
    })
}
