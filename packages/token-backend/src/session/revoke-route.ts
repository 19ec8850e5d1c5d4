import { sValidator } from '@hono/standard-validator'
import { bodyLimit } from 'hono/body-limit'
import { Hono } from 'hono/tiny'
import type { MiddlewareHandler } from 'hono/types'
import { timingSafeEqual } from 'hono/utils/buffer'
import * as v from 'valibot'
import { SESSION_DEFAULTS } from '../config/session-variables.ts'
import { fail } from '../errors.ts'
import { answerHeaders } from '../response-headers.ts'
import type { TokenAppEnv } from '../types.ts'
import { MOST_SUBJECT_CHARACTERS } from '../viewer-request.ts'
import { REVOCATION_CACHE_MS, type SessionLane, sessionsOf } from './session-lane.ts'

const revokeBody = v.union(
  [
    v.strictObject({ session_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/)) }),
    v.strictObject({
      sub: v.pipe(v.string(), v.minLength(1), v.maxLength(MOST_SUBJECT_CHARACTERS)),
    }),
  ],
  'body must be {"session_id": "…"} or {"sub": "…"}',
)

/**
 * The operator's API (revocation, CDN drains): 501 until `SESSION_ADMIN_TOKEN` is set; 401
 * unless the caller presents it (compared in constant time). `what` names the API in errors.
 *
 * @example
 * ```ts
 * new Hono().post('/sessions/revoke', operatorOnly('revocation'), revoke)
 * ```
 */
export function operatorOnly(what: string): MiddlewareHandler<TokenAppEnv> {
  return async function operatorOnly(c, next) {
    const { adminToken } = c.get('tokenConfig')
    if (adminToken === undefined)
      return fail(501, `${what} is off: set SESSION_ADMIN_TOKEN to turn it on`)
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]
    if (given === undefined || !(await timingSafeEqual(given, adminToken))) {
      c.header('WWW-Authenticate', 'Bearer realm="sessions"')
      fail(401, `${what} needs Authorization: Bearer <SESSION_ADMIN_TOKEN>`)
    }
    return next()
  }
}

/** The most an operator's body may be: a session id, a viewer or a CDN id fit in it many times. */
export const OPERATOR_BODY_BYTES = 16 * 1024

const withinLimit = bodyLimit({
  maxSize: OPERATOR_BODY_BYTES,
  onError: (c) =>
    c.json(
      {
        error: `body over ${OPERATOR_BODY_BYTES} bytes: an operator's body is one small JSON object`,
      },
      413,
      answerHeaders(c),
    ),
})

/**
 * An operator's body, after {@link operatorOnly}: JSON (`415` otherwise, named: a form or text
 * body is not read as something else), at most {@link OPERATOR_BODY_BYTES} (`413`, read no
 * further: a caller with the token cannot fill the memory).
 *
 * @example
 * ```ts
 * new Hono().post('/sessions/revoke', operatorOnly('revocation'), operatorBody, validator, revoke)
 * ```
 */
export const operatorBody: MiddlewareHandler<TokenAppEnv> = async function operatorBody(c, next) {
  const type = c.req.header('content-type') ?? ''
  // as hono's JSON validator reads them: application/json and application/…+json
  if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type))
    fail(
      415,
      `body must be JSON, sent with Content-Type: application/json (not "${type.slice(0, 64) || 'none'}")`,
    )
  return withinLimit(c, next)
}

/**
 * `POST /sessions/revoke` `{"session_id": "…"}` or `{"sub": "…"}` (every session of a viewer
 * issued until now), for the operator: effective within the leaf lifetime + the isolate cache.
 *
 * @example
 * ```ts
 * app.route('/', revokeRoute(sessionLane(options)))
 * ```
 */
export function revokeRoute({ now, audit, storeOf }: SessionLane) {
  return new Hono<TokenAppEnv>().post(
    '/sessions/revoke',
    operatorOnly('revocation'),
    operatorBody,
    sValidator('json', revokeBody, (result) => {
      if (!result.success) fail(400, result.error[0]?.message ?? 'invalid body')
    }),
    async function revoke(c) {
      const session = sessionsOf(c.get('tokenConfig'))
      const body = c.req.valid('json')
      const nowMs = now()
      const nowSeconds = Math.floor(nowMs / 1000)
      // nothing issued until now can outlive this: the longest lifetime any configuration allows,
      // not today's (a session issued before SESSION_LIFETIME was lowered lives its old lifetime)
      const until = nowSeconds + SESSION_DEFAULTS.maxLifetimeSeconds
      const store = storeOf(c)
      if ('session_id' in body) await store.revokeSession(body.session_id, until)
      // to the millisecond, as sessions' `iat`: one issued just after this, in the same second, plays
      else await store.revokeViewer(body.sub, nowMs / 1000, until)
      audit(
        JSON.stringify({
          event: 'session_revoked',
          time: new Date(nowMs).toISOString(),
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
}
