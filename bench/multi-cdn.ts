import type { ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { findTokenPair, verifyToken } from '@proj/signing'
import { fetchToken, TokenRefresher } from '@proj/token-refresh'
import autocannon from 'autocannon'
import { median, quick, report, stamp, table } from './report.ts'
import { startNodeServer } from './token-worker/node-server.ts'
import { freePort } from './token-worker/redis-server.ts'
import { tokenWorkerNode } from './token-worker/wrangler-build.ts'

// Multi-CDN on the token worker's Node entry, against two small CDNs in this process (each
// checks tokens with its own secret only, and fails on demand: 403 for valid tokens, 503, or a
// hang). Two figures:
// 1. the leaf redirect with two CDNs configured against one, in short alternated rounds (the
//    machine's drift falls on both alike);
// 2. failover time, per lane and fault kind: from the first request that failed on CDN A to the
//    first one answered by CDN B. Session lane: a client asking a leaf of a fresh instance every
//    segment (2 s), re-asking once, at once, when one fails (as hls.js, Safari and VLC do; ffmpeg
//    skips instead: it loses the leaves counted as failed). JavaScript lane: the player core
//    (`TokenRefresher`) in this process, doing what the adapters do: each request one of its
//    attempts (`refresher.attempt`), each sending bounded by the attempt's first-byte bound and
//    re-sent at once on the next CDN when the attempt says so.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 6))
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 3))
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? (quick ? 10 : 100))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const SEGMENT_MS = 2000
const SECRETS = { a: 'bench-secret-a', b: 'bench-secret-b' }
const ADMIN = 'bench-admin-token-of-32-characters!!'
const viewer = { 'x-real-ip': '203.0.113.7' }
type Fault = 'none' | '403' | '503' | 'hang'
const FAULTS = ['403', '503', 'hang'] as const

/** A CDN of this process: checks tokens with its own secret, fails as told, counts what it saw. */
interface BenchCdn {
  port: number
  fault: Fault
  /** Requests whose token was not signed with this CDN's secret. */
  foreign: number
  server: Server
}

const startCdn = async (secret: string): Promise<BenchCdn> => {
  const cdn: BenchCdn = { port: 0, fault: 'none', foreign: 0, server: createServer() }
  cdn.server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://cdn')
    const pair = findTokenPair(url.pathname)
    const verdict = pair
      ? verifyToken({
          clientVideo: url.pathname.split('/')[2] ?? '',
          token: pair.token,
          expires: String(pair.expires),
          secret,
          ip: '',
          nowSeconds: Math.floor(Date.now() / 1000),
        })
      : 403
    if (verdict === 403) cdn.foreign++
    // a hung request is left open: the client gives up on its own
    if (cdn.fault === 'hang') return
    const status = cdn.fault === 'none' ? verdict : Number(cdn.fault)
    res.writeHead(status, { 'content-type': 'video/mp2t', 'content-length': '2' }).end('ok')
  })
  await new Promise<void>((resolve) => cdn.server.listen(0, '127.0.0.1', resolve))
  cdn.port = (cdn.server.address() as AddressInfo).port
  return cdn
}

const cdns = { a: await startCdn(SECRETS.a), b: await startCdn(SECRETS.b) }
const base = {
  CLIENT_ID: '12345',
  SECRET_KEY: SECRETS.a,
  CDN_DOMAIN: `127.0.0.1:${cdns.a.port}`,
  CDN_DOMAIN_IP: `localhost:${cdns.a.port}`,
  CDN_SCHEME: 'http',
  AUTH_MODE: 'none',
  IP_HEADERS: 'x-real-ip',
  SESSION_SECRET: 'bench-session-secret-of-32-characters',
  SESSION_ADMIN_TOKEN: ADMIN,
}
const twoCdns = {
  ...base,
  CDNS: 'b',
  CDN_B_DOMAIN: `127.0.0.1:${cdns.b.port}`,
  CDN_B_DOMAIN_IP: `localhost:${cdns.b.port}`,
  CDN_B_SCHEME: 'http',
  SECRET_KEY_B: SECRETS.b,
}
const servers: ChildProcess[] = []
const start = async (env: Record<string, string>) => {
  const port = await freePort()
  servers.push(await startNodeServer(tokenWorkerNode, port, env))
  return `http://127.0.0.1:${port}`
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One session of `origin`, as the path of one of its leaves. */
const leafOf = async (origin: string, index = 17) => {
  const res = await fetch(`${origin}/session?video=demo&type=vod`, { headers: viewer })
  if (res.status !== 200)
    throw new Error(`GET /session answered ${res.status}: ${await res.text()}`)
  const { session_url: url } = (await res.json()) as { session_url: string }
  return new URL(url).pathname.replace(/master\.m3u8$/, `v1/seg_${index}.ts`)
}

// 1. the leaf redirect, one CDN against two
const leafRuns = new Map<string, number[]>()
const targets: { name: string; origin: string; leaves: string[] }[] = []
const load = async ({ name, origin, leaves }: (typeof targets)[number], duration: number) => {
  const result = await autocannon({
    url: origin,
    headers: viewer,
    connections: CONNECTIONS,
    duration,
    requests: leaves.map((path) => ({ method: 'GET', path })),
  })
  if (result.errors > 0 || result['3xx'] < result.requests.total * 0.999)
    throw new Error(
      `${name}: ${result.errors} errors, ${result['3xx']} of ${result.requests.total} 3xx`,
    )
  return result.requests.average
}

/** One failover: its time (ms) and how many requests failed before it. */
interface Failover {
  ms: number
  failed: number
}
const failovers = new Map<string, Failover[]>()

/**
 * Asks `ask` once a segment; switches A's fault on just before the second segment's request;
 * ends at B's first answer after that. Measured from the first request that failed, or from the
 * fault's start when none did (the backend's probe saw it first).
 */
const timeFailover = async (
  fault: Fault,
  ask: () => Promise<{ host: 'a' | 'b'; ok: boolean; sentAt: number }[]>,
): Promise<Failover> => {
  const started = Date.now()
  let faultAt: number | undefined
  let firstFailure: number | undefined
  let failed = 0
  try {
    for (let segment = 0; Date.now() - started < 30_000; segment++) {
      await pause(started + segment * SEGMENT_MS - Date.now())
      if (segment === 1) {
        faultAt = Date.now()
        cdns.a.fault = fault
      }
      for (const attempt of await ask()) {
        if (!attempt.ok) {
          failed++
          firstFailure ??= attempt.sentAt
        } else if (attempt.host === 'b' && faultAt !== undefined)
          return { ms: Date.now() - (firstFailure ?? faultAt), failed }
      }
    }
    throw new Error(`${fault}: no request reached CDN B within 30 s`)
  } finally {
    cdns.a.fault = 'none'
  }
}

const hostOf = (url: string): 'a' | 'b' => (new URL(url).port === String(cdns.b.port) ? 'b' : 'a')

/** GET of a CDN URL as a player does it: bounded, its status (0: no answer in time). */
const attempt = async (url: string, timeoutMs: number) => {
  const sentAt = Date.now()
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    await res.arrayBuffer()
    return { host: hostOf(url), status: res.status, sentAt }
  } catch {
    return { host: hostOf(url), status: 0, sentAt }
  }
}

/** The session lane: a leaf through the instance, re-asked once at once when it fails. */
const sessionClient = (origin: string, leaf: string) => async () => {
  const once = async () => {
    const res = await fetch(`${origin}${leaf}`, { redirect: 'manual' })
    const location = res.headers.get('location') ?? ''
    const { host, status, sentAt } = await attempt(location, 4000)
    return { host, ok: status === 200, sentAt }
  }
  const first = await once()
  return first.ok ? [first] : [first, await once()]
}

/**
 * The JavaScript lane: one of the player core's attempts (`refresher.attempt`), as an adapter
 * drives it: each sending bounded by the attempt's first-byte bound, re-sent at once on the next
 * CDN when the attempt says so.
 */
const jsClient = (refresher: TokenRefresher) => async () => {
  const request = refresher.attempt(refresher.record.url.replace(/master\.m3u8$/, 'v1/seg_17.ts'))
  const attempts = []
  let url = request.send()
  for (let tries = 0; tries < 3; tries++) {
    const { host, status, sentAt } = await attempt(url, request.timeoutMs ?? 10_000)
    attempts.push({ host, ok: status === 200, sentAt })
    // this client cannot tell no answer from no first byte in time: both are the bound's
    if (request.failed(status === 0 ? 'timeout' : status) !== 'resend') break
    url = request.send()
  }
  return attempts
}

const started = { load: loadavg()[0] ?? 0 }
try {
  targets.push({ name: 'one CDN', origin: await start(base), leaves: [] })
  targets.push({ name: 'two CDNs (CDNS=b)', origin: await start(twoCdns), leaves: [] })
  for (const target of targets)
    for (let i = 0; i < SESSIONS; i++) target.leaves.push(await leafOf(target.origin))
  for (const target of targets) await load(target, 1)
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse()
    for (const target of order)
      leafRuns.set(target.name, [
        ...(leafRuns.get(target.name) ?? []),
        await load(target, DURATION),
      ])
  }
  const repeats = quick ? 1 : 3
  for (const fault of FAULTS)
    for (let run = 0; run < repeats; run++) {
      // a fresh instance each time: its health view starts on A
      const origin = await start(twoCdns)
      const session = await timeFailover(fault, sessionClient(origin, await leafOf(origin)))
      failovers.set(`session ${fault}`, [...(failovers.get(`session ${fault}`) ?? []), session])
      const refresher = await TokenRefresher.create({
        getToken: () => fetchToken(`${origin}/token?video=demo&type=vod`, { headers: viewer }),
        refreshLeadSeconds: 30,
        peers: null,
        visibility: null,
      })
      try {
        const js = await timeFailover(fault, jsClient(refresher))
        failovers.set(`js ${fault}`, [...(failovers.get(`js ${fault}`) ?? []), js])
      } finally {
        refresher.destroy()
      }
    }
} finally {
  for (const server of servers) server.kill()
  for (const cdn of Object.values(cdns)) cdn.server.close()
  for (const cdn of Object.values(cdns)) cdn.server.closeAllConnections()
}

const [one, two] = targets.map(({ name }) => leafRuns.get(name) ?? [])
const ratios = (two ?? []).map((rps, round) => rps / ((one ?? [])[round] ?? Number.NaN))
const share = median(ratios)
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)} %`
const failoverRows = [...failovers].map(([name, runs]) => [
  name.startsWith('js') ? 'JavaScript (player core)' : 'session (backend decides)',
  name.split(' ')[1] ?? '',
  `**${median(runs.map((run) => run.ms)).toLocaleString('en')}**`,
  runs.map((run) => run.ms.toLocaleString('en')).join(', '),
  runs.map((run) => String(run.failed)).join(', '),
])
const foreign = cdns.a.foreign + cdns.b.foreign
const cpu = cpus()
report(
  'multi-cdn',
  `${stamp(
    `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'} (load average ${started.load.toFixed(1)} at the start); the token worker's Node entry, one process per configuration; two CDNs in the bench process checking tokens with their own secret; autocannon in the bench process, ${CONNECTIONS} connections cycling through the leaves of ${SESSIONS} sessions; ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} × ${DURATION} s per configuration, alternated`,
  )}

The leaf redirect (\`GET /s/…/seg\` → 302) with two CDNs configured (the health view read, probes
at most once a second per CDN) against one CDN; req/s the median over the rounds, "vs one CDN" the
median of the rounds' own ratios:

${table(
  ['configuration', 'req/s', 'vs one CDN', 'each round vs one CDN'],
  targets.map(({ name }, index) => [
    name,
    Math.round(median(leafRuns.get(name) ?? [])).toLocaleString('en'),
    index === 0 ? '100 %' : percent(share),
    index === 0 ? '' : ratios.map(percent).join(', '),
  ]),
)}

Goal (issue 27): two CDNs ≥ 90 % of one: **${percent(share)}** (${share >= 0.9 ? 'met' : 'not met'}).

Failover time: CDN A starts failing one segment into the run; from the first request that failed
on A to the first answer from B, ms (a hang fails when the client's bound runs out: the backend's
probe timeout is 1.5 s, the player core's \`cdnTimeoutMs\` 3 s), with a request every ${SEGMENT_MS / 1000} s:

${table(['lane', 'fault', 'median ms', 'each run', 'requests failed'], failoverRows)}

Tokens a CDN received signed with another CDN's secret, over the whole run: **${foreign}**.`,
)
if (foreign > 0) {
  console.error(`[bench] multi-cdn: ${foreign} requests carried another CDN's token`)
  process.exit(1)
}
