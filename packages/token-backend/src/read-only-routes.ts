import type { Context } from 'hono'
import { Hono } from 'hono/tiny'
import { fail } from './errors.ts'
import { answerHeaders } from './response-headers.ts'
import type { TokenAppEnv } from './types.ts'

/** The methods the viewer's endpoints answer: the `Allow` of their OPTIONS and 405 answers. */
export const VIEWER_METHODS = 'GET, HEAD, OPTIONS'

/**
 * What `OPTIONS` answers when it is not a CORS preflight of an allowed origin (the CORS
 * middleware answered that one): the methods allowed, nothing else.
 */
function allowedMethods(allow: string) {
  return function allowedMethods(c: Context<TokenAppEnv>): Response {
    const headers = answerHeaders(c)
    headers.allow = allow
    return new Response(null, { status: 204, headers })
  }
}

/** Any other method: 405 `{error}` with `Allow`, naming the methods that do something. */
function methodNotAllowed(allow: string) {
  const use = allow
    .split(', ')
    .filter((method) => method !== 'HEAD' && method !== 'OPTIONS')
    .join(' or ')
  return function methodNotAllowed(c: Context<TokenAppEnv>): never {
    c.header('Allow', allow)
    return fail(405, `method ${c.req.method} is not allowed: use ${use}`)
  }
}

/** The methods of the operator's endpoints, by path: what their OPTIONS and 405 answers name. */
const OPERATOR_METHODS = {
  '/streams': 'GET, HEAD, DELETE, OPTIONS',
  '/sessions/revoke': 'POST, OPTIONS',
  '/cdns': 'GET, HEAD, OPTIONS',
  '/cdns/drain': 'POST, OPTIONS',
  '/cdns/undrain': 'POST, OPTIONS',
} as const

/**
 * The one guard of the viewer's endpoints (`GET /token`, `GET /session`, `GET /s/…`): `OPTIONS`
 * says what is allowed, every other method but `GET`/`HEAD` is a 405; and the operator's
 * (`/streams`, `/sessions/revoke`, `/cdns`): `OPTIONS` and 405 with their own `Allow`. Routed
 * after every route (and the session files' own CORS preflight), which answer first.
 *
 * @example
 * ```ts
 * app.route('/', tokenRoute(options)).route('/', sessionRoutes(options)).route('/', readOnlyRoutes())
 * ```
 */
export function readOnlyRoutes() {
  const refused = methodNotAllowed(VIEWER_METHODS)
  const guard = new Hono<TokenAppEnv>()
    .on('OPTIONS', ['/token', '/session'], allowedMethods(VIEWER_METHODS))
    .all('/token', refused)
    .all('/session', refused)
    .all('/s/*', refused)
  for (const [path, allow] of Object.entries(OPERATOR_METHODS))
    guard.on('OPTIONS', path, allowedMethods(allow)).all(path, methodNotAllowed(allow))
  return guard
}
