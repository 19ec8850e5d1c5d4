import { getConnInfo } from '@hono/node-server/conninfo'
import { normalizeIp, verifyToken } from '@proj/signing'
import { type Context, Hono } from 'hono'
import { originPath } from './origin-path.ts'

/** Options of {@link createCdn}. */
export interface CdnOptions {
  /** The CDN resource secret (`SECRET_KEY`), shared with the token backend. */
  secret: string
  /** During a rotation, the secret before it (`PREVIOUS_SECRET_KEY`): its tokens still play. */
  previousSecret?: string | undefined
  /** `true` for the `CDN_DOMAIN_IP` host: tokens are bound to the viewer's address. */
  ipBound: boolean
  /**
   * Fetches a token-free origin path (`/vod/{client_video}/…` or `/live/…`): a URL path whose
   * segments are percent-encoded ({@link originPath}), to be decoded once, segment by segment.
   * `new Request('http://origin' + path, init)` keeps it as it is. `init.headers` holds the
   * viewer's `Range` and `If-Range`, as nginx's `proxy_pass` forwards them: a range is the
   * origin's to answer (206, 416).
   */
  origin: (path: string, init: { headers: Headers }) => Promise<Response> | Response
  now?: () => number
  /** The viewer's address; default: the TCP peer, as nginx's `$remote_addr`. */
  clientIp?: (c: Context) => string
}

const KIND_TO_ORIGIN = { videos: 'vod', cmaf: 'live' } as const
// What e2e/nginx/token.conf.template adds to every answer (`always`): a player on another origin
// reads errors too, its preflights for a Range request (hls.js byte ranges, a <video>'s Range
// through the service worker) must allow `Range`, and Resource Timing needs Timing-Allow-Origin.
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Length, Date',
  'Timing-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
} as const
// the request headers the origin needs to answer a range (nginx forwards every header)
const FORWARDED = ['range', 'if-range'] as const

/** An expiry's second as a date, for a person reading a 410 (`…` past what a Date holds). */
const when = (seconds: number) => {
  const date = new Date(seconds * 1000)
  return Number.isNaN(date.getTime()) ? '…' : date.toISOString()
}

/**
 * The body of a 403 or a 410: what the token had to match, or when it expired against which
 * clock. Nothing here is secret: the formula is public (spec 4.14), the address is the viewer's
 * own, and neither the secret nor the expected token is named.
 */
function refusal(
  verdict: 403 | 410,
  check: { clientVideo: string; expires: string; ip: string; nowSeconds: number },
  ipBound: boolean,
): string {
  if (verdict === 410)
    return `410 Gone: the token expired at ${check.expires} (${when(Number(check.expires))}); the CDN's clock reads ${check.nowSeconds} (${when(check.nowSeconds)}). Ask the token backend for a new URL.\n`
  const ip = ipBound
    ? `"${check.ip}", the address this IP-bound host sees you from`
    : 'empty (the plain host)'
  return `403 Forbidden: the token is not the base64url MD5 of "{client_id}_{video}_{secret}_{expires}_{ip}" for "${check.clientVideo}", expires ${check.expires} and ip ${ip}, under this CDN's secret (or the expiry is not a positive whole number of seconds).\n`
}
// nginx's location, matched on the decoded and normalised URI as nginx does
const CDN_PATH = /^\/(videos|cmaf)\/([^/]+)\/([^/]+)\/([0-9]+)\/(.+)$/

/**
 * The URI as nginx matches it (`$uri`): percent-escapes decoded, `.` and `..` segments resolved,
 * repeated slashes merged. `undefined` where nginx answers 400: a bad escape, `%00`, or `..` above
 * the root.
 *
 * @example
 * ```ts
 * nginxUri('/a/b/..%2fc') // '/a/c'
 * nginxUri('/a/%00')      // undefined
 * ```
 */
export function nginxUri(rawPath: string): string | undefined {
  // ngx_http_parse_complex_uri refuses a bad escape and a decoded NUL
  if (/%(?![0-9A-Fa-f]{2})|%00/.test(rawPath)) return undefined
  const bytes = rawPath.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  )
  const decoded = new TextDecoder().decode(Uint8Array.from(bytes, (char) => char.charCodeAt(0)))
  const segments: string[] = []
  for (const segment of decoded.split('/').slice(1)) {
    if (segment === '..') {
      if (segments.pop() === undefined) return undefined
    } else if (segment !== '.' && segment !== '') segments.push(segment)
  }
  const trailing = /\/\.{0,2}$/.test(decoded) && segments.length > 0 ? '/' : ''
  return `/${segments.join('/')}${trailing}`
}

/**
 * One CDN host with the semantics of the nginx configuration in `e2e/nginx/`: for
 * `/videos/{client_video}/{token}/{expires}/…` (VOD) and `/cmaf/…` (live) it answers 403 on a
 * token mismatch, 410 once expired (each with a body saying why), and otherwise strips
 * `{token}/{expires}` and serves the origin's answer (a `Range` forwarded: 206 and 416 are the
 * origin's); nginx's CORS headers on everything, preflights allowing `Range`; 404 for other paths. Paths are matched as nginx
 * matches them (decoded, dot segments resolved): `{token}/{expires}/..%2fother%2f…` is another
 * path (404), not an escape from the signed video; and the origin is asked for exactly the path
 * checked ({@link originPath}), so no tab, `\` or `%252e` is re-read as a separator or a `..`.
 *
 * @example
 * ```ts
 * serve({ fetch: createCdn({ secret, ipBound: false, origin: (path, init) => fetch(`http://127.0.0.1:8090${path}`, init) }).fetch, port: 8080 })
 * ```
 */
export function createCdn({
  secret,
  previousSecret,
  ipBound,
  origin,
  now = Date.now,
  clientIp = (c) => getConnInfo(c).remote.address ?? '',
}: CdnOptions) {
  return new Hono()
    .use(async function corsOnEveryAnswer(c, next) {
      await next()
      for (const [name, value] of Object.entries(CORS_HEADERS)) c.header(name, value)
    })
    .options('*', (c) => c.body(null, 204))
    .get('*', async function checkTokenThenOrigin(c) {
      const uri = nginxUri(new URL(c.req.url).pathname)
      if (uri === undefined) return c.text('Bad Request', 400)
      const match = CDN_PATH.exec(uri)
      if (!match) return c.text('Not Found', 404)
      const [, kind = '', video = '', token = '', expires = '', rest = ''] = match
      // A dual-stack socket reports IPv4 viewers as ::ffff:a.b.c.d; nginx's $remote_addr on an
      // IPv4 listener (what the token backend saw) is a.b.c.d.
      const address = clientIp(c).replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
      const check = {
        clientVideo: video,
        token,
        expires,
        secret,
        ip: ipBound ? (normalizeIp(address) ?? address) : '',
        nowSeconds: Math.floor(now() / 1000),
      }
      // like the nginx template: not the current secret → maybe the previous one
      let verdict = verifyToken(check)
      if (verdict === 403 && previousSecret)
        verdict = verifyToken({ ...check, secret: previousSecret })
      if (verdict !== 200) return c.text(refusal(verdict, check, ipBound), verdict)
      // like nginx's proxy_pass with variables: the decoded path, and exactly the one checked
      const kindOnOrigin = KIND_TO_ORIGIN[kind as keyof typeof KIND_TO_ORIGIN]
      const headers = new Headers()
      for (const name of FORWARDED) {
        const value = c.req.header(name)
        if (value !== undefined) headers.set(name, value)
      }
      const answer = await origin(originPath([kindOnOrigin, video, ...rest.split('/')]), {
        headers,
      })
      return new Response(answer.body, answer)
    })
    .all('*', (c) => c.text('Not Found', 404))
}
