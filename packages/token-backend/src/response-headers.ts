import type { Context, TypedResponse } from 'hono'
import type { TokenAppEnv } from './types.ts'

const REQUEST_ID = /^[\w\-=]{1,255}$/

/**
 * The request's ID: the caller's `X-Request-Id` when it is a safe token (a proxy's ID joins its
 * logs with ours), otherwise a random UUID. For `hono/request-id`'s `generator`.
 *
 * @example
 * ```ts
 * app.use(requestId({ headerName: '', generator: requestIdOf }))
 * ```
 */
export function requestIdOf(c: Context): string {
  const given = c.req.header('x-request-id')
  return given !== undefined && REQUEST_ID.test(given) ? given : crypto.randomUUID()
}

/**
 * The headers of every JSON answer but its request id: also those of an answer made before
 * the app runs (a request the Node server cannot parse).
 */
export const JSON_ANSWER_HEADERS = {
  'content-type': 'application/json',
  // tokens and errors alike are per request: never cached by a browser or a proxy
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const

/**
 * The headers every answer carries, as a plain object: `new Response(body, { headers })` with
 * a plain object is what a server adapter writes without building a `Headers` first, which
 * `c.header()` would (a third of the endpoint's cost on Node, BENCHMARKS.md).
 *
 * @example
 * ```ts
 * return new Response(JSON.stringify(record), { headers: answerHeaders(c) })
 * ```
 */
export function answerHeaders(c: Context<TokenAppEnv>): Record<string, string> {
  return { ...JSON_ANSWER_HEADERS, 'x-request-id': c.get('requestId') }
}

/**
 * What `HEAD` on `/token` or `/session` answers once the request passed the checks `GET` makes
 * (query, authorization, rate limit, a viewer identity): `GET`'s headers, and nothing issued: no
 * credential the caller would never see, no stream slot taken (so never a 409), no audit line.
 *
 * @example
 * ```ts
 * if (c.req.method === 'HEAD') return headAnswer<TokenRecord>(c, nowMs)
 * ```
 */
export function headAnswer<T>(c: Context<TokenAppEnv>, nowMs: number) {
  const headers = answerHeaders(c)
  headers.date = new Date(nowMs).toUTCString()
  return new Response(null, { headers }) as unknown as TypedResponse<T, 200, 'json'>
}

/**
 * A signed record's answer: JSON with {@link answerHeaders} and `Date` set to the clock it was
 * signed with (to the second, on every runtime). A plain `Response` (not `c.json`, which builds a
 * `Headers`), typed for `hc` clients all the same.
 *
 * @example
 * ```ts
 * return signedAnswer<TokenRecord>(c, record, nowMs)
 * ```
 */
export function signedAnswer<T>(c: Context<TokenAppEnv>, body: T, nowMs: number) {
  const headers = answerHeaders(c)
  headers.date = new Date(nowMs).toUTCString()
  return new Response(JSON.stringify(body), { headers }) as unknown as TypedResponse<T, 200, 'json'>
}
