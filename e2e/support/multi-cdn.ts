// The multi-CDN spec's servers, each on free ports of its own (the rest of the suite never sees
// them): two nginx CDNs on the suite's template with different secrets (A, the primary, and B),
// the fault injector in front of A (servers/fault-injector.mjs), and the token backend's Node
// entry signing for both (or for A alone: the control). Plus the judges: whose secret signed a
// URL a CDN received, what a client's copy of the stream holds.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { signToken } from '@proj/signing'
import { type CdnRequest, cdnRequests } from './cdn-log.ts'
import { type ChildServer, freePort, root, run, stop, waitFor } from './processes.ts'
import { CLIENT_ID, nodeTokenInstance, PORTS, SESSION } from './stack.ts'

/** Each CDN's own secret (the backend refuses one secret for two CDNs). */
export const SECRETS = {
  a: 'multi-cdn-secret-a-not-for-production',
  b: 'multi-cdn-secret-b-not-for-production',
} as const

/** One nginx CDN of the spec: its two hosts (plain, IP-bound) and its access log. */
export interface CdnServer {
  label: string
  secret: string
  plain: number
  ip: number
  accessLog: string
  server: ChildServer
  stop: () => Promise<void>
}

/**
 * An nginx CDN (the suite's template and origin) with `secret`, on free ports unless `ports`
 * names them (a restart keeps its hosts). Each start has its own prefix, so a restart keeps the
 * log of the one before it readable.
 *
 * @example
 * ```ts
 * const b = await startCdn('b', SECRETS.b)
 * ```
 */
export async function startCdn(
  label: string,
  secret: string,
  ports?: { plain: number; ip: number },
): Promise<CdnServer> {
  const plain = ports?.plain ?? (await freePort())
  const ip = ports?.ip ?? (await freePort())
  const prefix = join(root, '.tmp', 'e2e', `multi-cdn-${label}-${plain}-${Date.now()}`)
  const server = run('e2e/servers/nginx.mjs', {
    SECRET_KEY: secret,
    ORIGIN_PORT: String(PORTS.origin),
    NGINX_PLAIN_PORT: String(plain),
    NGINX_IP_PORT: String(ip),
    NGINX_PREFIX: prefix,
  })
  await waitFor(`http://127.0.0.1:${plain}/healthz`, server)
  return {
    label,
    secret,
    plain,
    ip,
    accessLog: join(prefix, 'access.log'),
    server,
    stop: () => stop(server.child),
  }
}

/** A fault the injector plays: the mode, on and off in ms from `start`. */
export type FaultMode = '403' | '503' | 'hang'

/** One request the injector saw. */
export interface InjectedRequest {
  at: number
  port: number
  method: string
  path: string
  mode: string
  status: number | 'hung' | 'failed'
}

/** The fault injector in front of `cdn`: one port per CDN host, one schedule. */
export interface Injector {
  plain: number
  ip: number
  server: ChildServer
  /** Plays `mode` from `start + onAtMs` until `start + offAtMs`. */
  schedule: (fault: {
    mode: FaultMode
    start: number
    onAtMs: number
    offAtMs: number
  }) => Promise<void>
  /** What it saw of one video. */
  requests: (video: string) => InjectedRequest[]
  stop: () => Promise<void>
}

/**
 * Starts servers/fault-injector.mjs in front of both hosts of `cdn`.
 *
 * @example
 * ```ts
 * const injector = await startInjector(a)
 * await injector.schedule({ mode: 'hang', start: Date.now(), onAtMs: 30_000, offAtMs: 90_000 })
 * ```
 */
export async function startInjector(cdn: CdnServer): Promise<Injector> {
  const plain = await freePort()
  const ip = await freePort()
  const log = join(root, '.tmp', 'e2e', `multi-cdn-injector-${plain}-${Date.now()}.jsonl`)
  const server = run('e2e/servers/fault-injector.mjs', {
    INJECTOR_ROUTES: `${plain}:${cdn.plain},${ip}:${cdn.ip}`,
    INJECTOR_LOG: log,
  })
  await waitFor(`http://127.0.0.1:${plain}/healthz`, server)
  return {
    plain,
    ip,
    server,
    async schedule({ mode, start, onAtMs, offAtMs }) {
      const res = await fetch(`http://127.0.0.1:${plain}/__fault`, {
        method: 'POST',
        body: JSON.stringify({ mode, start, on_at_ms: onAtMs, off_at_ms: offAtMs }),
      })
      if (!res.ok) throw new Error(`injector schedule: ${res.status} ${await res.text()}`)
    },
    requests: (video) =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line.includes(`/${CLIENT_ID}_${video}/`))
            .map((line) => JSON.parse(line) as InjectedRequest)
        : [],
    stop: () => stop(server.child),
  }
}

/** A token backend instance (Node entry) of the spec. */
export interface TokenInstance {
  /** `http://127.0.0.1:<port>` */
  origin: string
  server: ChildServer
  env: Record<string, string>
  stop: () => Promise<void>
}

/**
 * The token backend's Node entry on a free port: the primary CDN ("primary", A) on `a`'s hosts
 * (the injector's) with `secretA`, and, when `b` is given, CDN "b" with its own secret.
 *
 * @example
 * ```ts
 * const both = await startTokenInstance({ a: injector, secretA: SECRETS.a, b })
 * const alone = await startTokenInstance({ a: injector, secretA: SECRETS.a })
 * ```
 */
export async function startTokenInstance({
  a,
  secretA,
  b,
  port,
}: {
  a: { plain: number; ip: number }
  secretA: string
  b?: CdnServer
  port?: number
}): Promise<TokenInstance> {
  const listen = port ?? (await freePort())
  const env: Record<string, string> = {
    ...nodeTokenInstance(listen, {
      SECRET_KEY: secretA,
      CDN_DOMAIN: `127.0.0.1:${a.plain}`,
      CDN_DOMAIN_IP: `127.0.0.1:${a.ip}`,
      RATE_LIMIT_REQUESTS: '1000',
      ...(b && {
        CDNS: 'b',
        CDN_B_DOMAIN: `127.0.0.1:${b.plain}`,
        CDN_B_DOMAIN_IP: `127.0.0.1:${b.ip}`,
        CDN_B_SCHEME: 'http',
        SECRET_KEY_B: b.secret,
      }),
    }).env,
  }
  const server = run('apps/token-worker/src/node.ts', env)
  const origin = `http://127.0.0.1:${listen}`
  await waitFor(`${origin}/token?video=ready`, server)
  return { origin, server, env, stop: () => stop(server.child) }
}

/** `GET /session` of `instance`: a session URL of `video` (its MPD with `format: 'dash'`). */
export async function sessionOf(
  instance: TokenInstance,
  video: string,
  type: 'vod' | 'live' = 'vod',
  format: 'hls' | 'dash' = 'hls',
): Promise<string> {
  const res = await fetch(
    `${instance.origin}/session?video=${video}&type=${type}${format === 'dash' ? '&format=dash' : ''}`,
  )
  if (res.status !== 200) throw new Error(`GET /session: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { session_url: string }).session_url
}

/** The operator API of the session lane's CDN health (`GET /cdns`, `POST /cdns/drain|undrain`). */
export async function cdnAdmin(
  instance: TokenInstance,
  action: 'view' | 'drain' | 'undrain',
  cdn?: string,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${instance.origin}/cdns${action === 'view' ? '' : `/${action}`}`, {
    method: action === 'view' ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${SESSION.adminToken}`,
      'content-type': 'application/json',
    },
    ...(action !== 'view' && { body: JSON.stringify({ cdn }) }),
  })
  return { status: res.status, body: await res.text() }
}

const PAIR = /^\/(?:videos|cmaf)\/[^/]+\/([^/]+)\/(\d+)\//

/**
 * The secret (of `secrets`) that signed the token of a CDN URL path, plain or bound to the
 * loopback viewer, or undefined when none did.
 *
 * @example
 * ```ts
 * signerOf('/videos/12345_demo/Ab…/1700000000/master.m3u8', 'demo', SECRETS) // 'a'
 * ```
 */
export function signerOf<K extends string>(
  path: string,
  video: string,
  secrets: Record<K, string>,
): K | undefined {
  const match = PAIR.exec(path)
  if (!match) return undefined
  const [, token, expires] = match
  return (Object.keys(secrets) as K[]).find((key) =>
    // plain, or bound to the loopback viewer (or to 0.0.0.0: a request that named no address)
    ['', '127.0.0.1', '0.0.0.0'].some(
      (ip) =>
        signToken({
          clientId: CLIENT_ID,
          video,
          secret: secrets[key],
          expires: Number(expires),
          ip,
        }) === token,
    ),
  )
}

/** A CDN's log of one video, each request with the secret that signed its URL. */
export function signedRequests(
  cdn: CdnServer,
  video: string,
): (CdnRequest & { signer: string | undefined })[] {
  return existsSync(cdn.accessLog)
    ? cdnRequests(video, cdn.accessLog).map((request) => ({
        ...request,
        signer: signerOf(request.path, video, SECRETS),
      }))
    : []
}

/** What a client's copy of the stream holds: its span and the holes in it (missing segments). */
export interface Coverage {
  /** Last video timestamp minus the first (s): what ffprobe's duration says. */
  span: number
  /** Seconds of the span with no video (gaps over 0.5 s between packets). */
  missing: number
  /** span - missing: the media really read. */
  read: number
  gaps: { at: number; seconds: number }[]
}

/**
 * The coverage of an MPEG-TS copy, from its video packets' timestamps: a skipped segment keeps
 * its neighbours' timestamps (HLS segments carry their own), so ffprobe's duration alone would
 * not show it.
 *
 * @example
 * ```ts
 * coverage(run.file).read // 79.9
 * ```
 */
export function coverage(file: string): Coverage {
  const probe = spawnSync(
    'ffprobe',
    [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'packet=pts_time',
      '-of',
      'csv=p=0',
      file,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
  const times = probe.stdout
    .split('\n')
    .map((line) => Number.parseFloat(line))
    .filter((time) => Number.isFinite(time))
    .sort((x, y) => x - y)
  if (times.length < 2) return { span: 0, missing: 0, read: 0, gaps: [] }
  const gaps: Coverage['gaps'] = []
  for (let i = 1; i < times.length; i++) {
    const step = (times[i] ?? 0) - (times[i - 1] ?? 0)
    if (step > 0.5) gaps.push({ at: times[i - 1] ?? 0, seconds: step })
  }
  const first = times[0] ?? 0
  const last = times[times.length - 1] ?? 0
  // a frame's own duration at the end: the span of 80 s of media is 80, not 79.96
  const frame = Math.min(
    ...times
      .slice(1, 50)
      .map((time, i) => time - (times[i] ?? 0))
      .filter((d) => d > 0),
  )
  const span = last - first + (Number.isFinite(frame) ? frame : 0)
  const missing = gaps.reduce((sum, gap) => sum + gap.seconds, 0)
  return {
    span,
    missing,
    read: span - missing,
    gaps: gaps.map((gap) => ({ at: gap.at - first, seconds: gap.seconds })),
  }
}
