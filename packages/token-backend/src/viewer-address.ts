import {
  detectClientIp,
  FALLBACK_CLIENT_IP,
  forwardedClientIp,
  type IpRanges,
  parseIpRanges,
  unmappedIp,
} from '@proj/signing'
import type { Context } from 'hono'
import type { TokenBackendConfig } from './config.ts'
import type { TokenAppEnv } from './types.ts'

/**
 * The address of the connection's peer as the server knows it, or `undefined` where the runtime
 * does not say. Your own server's, for runtimes the default does not know
 * (`createTokenApp({ connectionAddress })`).
 */
export type ConnectionAddress = (c: Context) => string | undefined

/** What the runtimes the default knows put in `c.env`: Node's adapter, Bun, Deno. */
interface RuntimeEnv {
  /** `@hono/node-server`: the request's `IncomingMessage`. */
  incoming?: { socket?: { remoteAddress?: string } }
  /** Bun's `server` (`Bun.serve({ fetch: app.fetch })`). */
  requestIP?: (request: Request) => { address?: string } | null
  /** Deno's `ServeHandlerInfo` (`Deno.serve(app.fetch)`). */
  remoteAddr?: { hostname?: string }
}

/** Whether this code runs on Cloudflare Workers (workerd), where the platform sets `CF-Connecting-IP`. */
const onWorkers = () =>
  typeof navigator !== 'undefined' && navigator.userAgent === 'Cloudflare-Workers'

/**
 * The connection's peer on the runtimes this package is served on: the socket's remote address
 * on Node (`@hono/node-server`, also through `app.route`/`app.mount` in your app), Bun and Deno;
 * on Cloudflare Workers `CF-Connecting-IP`, which the platform sets (and overwrites) for every
 * request. Never a header a caller can write elsewhere.
 *
 * @example
 * ```ts
 * app.get('/whoami', (c) => c.text(runtimeConnectionAddress(c) ?? 'unknown'))
 * ```
 */
export const runtimeConnectionAddress: ConnectionAddress = (c) => {
  const env = c.env as RuntimeEnv | undefined
  const socket = env?.incoming?.socket?.remoteAddress
  if (socket !== undefined) return socket
  if (typeof env?.requestIP === 'function') return env.requestIP(c.req.raw)?.address
  if (env?.remoteAddr?.hostname !== undefined) return env.remoteAddr.hostname
  return onWorkers() ? (c.req.header('cf-connecting-ip') ?? undefined) : undefined
}

/**
 * The viewer's address, from what the configuration trusts: the headers of `IP_HEADERS` in order
 * (spec 4.14's `x-real-ip`, `x-forwarded-for`: only behind a proxy that overwrites them); behind
 * `TRUSTED_PROXIES`, the right-most `X-Forwarded-For` entry that is not one of them when the
 * connection comes from one; else the connection's own peer. `0.0.0.0` when nothing says.
 * An IPv4-mapped IPv6 peer counts as its IPv4 address.
 *
 * @example
 * ```ts
 * const addressOf = viewerAddresses(runtimeConnectionAddress)
 * const ip = addressOf(c) // '203.0.113.7'
 * ```
 */
export function viewerAddresses(connection: ConnectionAddress = runtimeConnectionAddress) {
  // parsed once per configuration (validated already: only ranges get here)
  const proxiesOf = new WeakMap<TokenBackendConfig, IpRanges>()
  const trustedOf = (config: TokenBackendConfig, list: readonly string[]) => {
    let ranges = proxiesOf.get(config)
    if (ranges === undefined) {
      const parsed = parseIpRanges(list)
      ranges = 'ranges' in parsed ? parsed.ranges : { has: () => false, open: false }
      proxiesOf.set(config, ranges)
    }
    return ranges
  }
  return function viewerAddress(c: Context<TokenAppEnv>): string {
    const config = c.get('tokenConfig')
    const { ipHeaders, trustedProxies } = config
    const { headers } = c.req.raw
    if (ipHeaders !== undefined) return detectClientIp(headers, { headerNames: ipHeaders })
    const peer = connection(c)
    if (peer === undefined) return FALLBACK_CLIENT_IP
    const viewer =
      trustedProxies === undefined
        ? peer
        : forwardedClientIp(peer, headers.get('x-forwarded-for'), trustedOf(config, trustedProxies))
    return (viewer !== undefined && unmappedIp(viewer)) || FALLBACK_CLIENT_IP
  }
}

/** How a request's viewer address is read (see {@link viewerAddresses}). */
export type ViewerAddress = ReturnType<typeof viewerAddresses>
