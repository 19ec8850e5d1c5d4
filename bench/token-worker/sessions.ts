import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VOD_MEDIA_DIR } from '@proj/cdn-emulator/media'
import { nodeMd5Digest } from '@proj/signing/node'
import { createTokenApp, memoryPlaylists, sessionPlaylist } from '@proj/token-backend'
import autocannon from 'autocannon'
import { Hono } from 'hono'
import { convertV4MiniflareOptions, Miniflare } from 'miniflare'
import { median, quick, report, stamp, table } from '../report.ts'
import { startNodeServer } from './node-server.ts'
import { compatibilityDate, tokenWorkerNode, wranglerBuild } from './wrangler-build.ts'

// Edge sessions: what a leaf redirect (verify the session, sign a CDN URL, answer 302) costs next
// to a hello-world Hono app on the same runtime, in the same run: in a Node process, over HTTP
// on Node, and over HTTP on workerd (the deployable bundle with its Durable Object, on workerd's
// own socket). Plus the playlist rewrite, alone and as the whole route with the upstream cached,
// and the DASH lane (issue 32): its leaf redirect against the HLS one in the same run, and the
// whole MPD route.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 5))
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (quick ? 1000 : 20_000))
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5))
const here = import.meta.dirname
const env = {
  CLIENT_ID: '12345',
  SECRET_KEY: 'bench-secret',
  CDN_DOMAIN: 'cdn.bench.test',
  CDN_DOMAIN_IP: 'cdn-ip.bench.test',
  AUTH_MODE: 'none',
  IP_HEADERS: 'cf-connecting-ip',
  SESSION_SECRET: 'bench-session-secret-of-32-characters',
}
const viewer = { 'cf-connecting-ip': '203.0.113.7' }

const perCallUs = async (call: () => unknown | Promise<unknown>, n = REQUESTS) => {
  const start = performance.now()
  for (let i = 0; i < n; i++) await call()
  return ((performance.now() - start) / n) * 1000
}
const rounds = async (calls: (() => unknown)[], n?: number) => {
  for (const call of calls) await perCallUs(call, Math.min(200, n ?? REQUESTS)) // warm-up
  const samples = calls.map(() => [] as number[])
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, call] of calls.entries()) samples[i]?.push(await perCallUs(call, n))
  return samples.map(median)
}
const sessionPath = async (
  issue: (path: string) => Response | Promise<Response>,
  format: 'hls' | 'dash' = 'hls',
) => {
  const res = await issue(`/session?video=demo&type=vod&format=${format}`)
  if (res.status !== 200)
    throw new Error(`GET /session answered ${res.status}: ${await res.text()}`)
  const { session_url: url } = (await res.json()) as { session_url: string }
  return new URL(url).pathname.replace(/(master\.m3u8|manifest\.mpd)$/, '')
}
// a leaf of each format: the same video directory, the segment each player asks for
const HLS_LEAF = 'v1/seg_017.ts'
const DASH_LEAF = 'dash/chunk-1-017.m4s'

// ── in one Node process ──────────────────────────────────────────────────────────────────────
const masterText = readFileSync(join(VOD_MEDIA_DIR, 'master.m3u8'), 'utf8')
const mediaText = readFileSync(join(VOD_MEDIA_DIR, 'v1', 'index.m3u8'), 'utf8')
const mpdText = readFileSync(join(VOD_MEDIA_DIR, 'manifest.mpd'), 'utf8')
let upstreamFetches = 0
const app = createTokenApp({
  digest: nodeMd5Digest,
  audit: () => undefined,
  playlists: memoryPlaylists(),
  fetcher: async (input) => {
    upstreamFetches++
    return new Response(String(input).includes('.mpd') ? mpdText : mediaText)
  },
})
const hello = new Hono().get('/token', (c) => c.json({ hello: 'world' }))
const session = await sessionPath((path) => app.request(path, { headers: viewer }, env))
const dashSession = await sessionPath((path) => app.request(path, { headers: viewer }, env), 'dash')
const leaf = `${session}${HLS_LEAF}`
const playlist = `${session}v1/index.m3u8`
const check = (status: number) => async (res: Response | Promise<Response>) => {
  const answer = await res
  if (answer.status !== status) throw new Error(`answered ${answer.status}`)
  await answer.arrayBuffer()
}
const [helloUs = 0, leafUs = 0, playlistUs = 0, dashLeafUs = 0, mpdUs = 0] = await rounds([
  () => check(200)(hello.request('/token', { headers: viewer }, env)),
  () => check(302)(app.request(leaf, { headers: viewer }, env)),
  () => check(200)(app.request(playlist, { headers: viewer }, env)),
  () => check(302)(app.request(`${dashSession}${DASH_LEAF}`, { headers: viewer }, env)),
  () => check(200)(app.request(`${dashSession}manifest.mpd`, { headers: viewer }, env)),
])
const origin = (rest: string) => ({
  upstream: `https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/${rest}`,
  cdnHosts: ['cdn.example.com'],
  directory: '/videos/12345_demo/',
  rest,
})
const [rewriteMasterUs = 0, rewriteMediaUs = 0] = await rounds([
  () => sessionPlaylist(masterText, origin('master.m3u8')),
  () => sessionPlaylist(mediaText, origin('v1/index.m3u8')),
])

// ── HTTP: autocannon against a server, 10 connections ───────────────────────────────────────
const load = async (url: string, headers: Record<string, string>, status: 2 | 3) => {
  await autocannon({ url, headers, connections: 10, duration: 1 }) // warm-up
  const result = await autocannon({ url, headers, connections: 10, duration: DURATION })
  const answered = status === 2 ? result['2xx'] : result['3xx']
  if (result.errors > 0 || answered < result.requests.total * 0.999)
    throw new Error(
      `${url}: ${result.errors} errors, ${answered} of ${result.requests.total} ${status}xx`,
    )
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

const startNode = (entry: string, port: number) =>
  startNodeServer(entry, port, { ...env, IP_HEADERS: 'x-real-ip' })
const nodeViewer = { 'x-real-ip': '203.0.113.7' }
const helloServer = await startNode(join(here, 'hello.ts'), 18911)
const nodeHello = await load('http://127.0.0.1:18911/token', nodeViewer, 2).finally(() =>
  helloServer.kill(),
)
const nodeServer = await startNode(tokenWorkerNode, 18912)
const nodeIssue = (p: string) => fetch(`http://127.0.0.1:18912${p}`, { headers: nodeViewer })
const [nodeLeaf, nodeDashLeaf] = await (async () => {
  const path = await sessionPath(nodeIssue)
  const dashPath = await sessionPath(nodeIssue, 'dash')
  const hls = await load(`http://127.0.0.1:18912${path}${HLS_LEAF}`, nodeViewer, 3)
  const dash = await load(`http://127.0.0.1:18912${dashPath}${DASH_LEAF}`, nodeViewer, 3)
  return [hls, dash] as const
})().finally(() => nodeServer.kill())

const out = mkdtempSync(join(tmpdir(), 'session-bench-'))
const worker = (name: string, entry: string, extra: object = {}) => ({
  name,
  modules: true,
  script: wranglerBuild(join(out, name), entry).script,
  compatibilityDate,
  unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  bindings: env,
  ...extra,
})
const mf = new Miniflare(
  convertV4MiniflareOptions({
    workers: [
      worker('hello', 'workerd-hello.ts'),
      worker('session', 'workerd-session.ts', {
        durableObjects: { SESSION_REGISTRY: 'SessionRegistry' },
      }),
    ],
  }),
)
let workerdHello: Awaited<ReturnType<typeof load>>
let workerdLeaf: Awaited<ReturnType<typeof load>>
let workerdDashLeaf: Awaited<ReturnType<typeof load>>
try {
  await mf.ready
  const helloUrl = await mf.unsafeGetDirectURL('hello')
  const sessionUrl = await mf.unsafeGetDirectURL('session')
  workerdHello = await load(new URL('/token', helloUrl).href, viewer, 2)
  const issue = (p: string) => fetch(new URL(p, sessionUrl), { headers: viewer })
  const path = await sessionPath(issue)
  const dashPath = await sessionPath(issue, 'dash')
  workerdLeaf = await load(new URL(`${path}${HLS_LEAF}`, sessionUrl).href, viewer, 3)
  workerdDashLeaf = await load(new URL(`${dashPath}${DASH_LEAF}`, sessionUrl).href, viewer, 3)
} finally {
  await mf.dispose()
  rmSync(out, { recursive: true, force: true })
}

const share = (a: { rps: number }, b: { rps: number }) => `${((a.rps / b.rps) * 100).toFixed(0)} %`
const workerdShare = workerdLeaf.rps / workerdHello.rps
const dashShare = workerdDashLeaf.rps / workerdLeaf.rps
report(
  'sessions',
  `${stamp(`in-process ${ROUNDS} rounds × ${REQUESTS} calls (medians); HTTP autocannon, 10 connections, ${DURATION} s after 1 s of warm-up; workerd via Miniflare (compatibility date ${compatibilityDate}), the deployable bundle with its SessionRegistry Durable Object`)}

The leaf redirect (verify the session credential, check binding and revocation, sign a 30-s CDN
URL, answer 302) against a hello-world Hono app answering a small JSON body on the same runtime:

${table(
  ['runtime', 'hello-world', 'leaf redirect', 'vs hello-world'],
  [
    [
      'Node, in the process (µs per request)',
      helloUs.toFixed(1),
      leafUs.toFixed(1),
      `${(leafUs / helloUs).toFixed(1)}× the time`,
    ],
    [
      'Node, HTTP (req/s)',
      Math.round(nodeHello.rps).toLocaleString('en'),
      Math.round(nodeLeaf.rps).toLocaleString('en'),
      share(nodeLeaf, nodeHello),
    ],
    [
      'workerd, HTTP (req/s)',
      Math.round(workerdHello.rps).toLocaleString('en'),
      Math.round(workerdLeaf.rps).toLocaleString('en'),
      share(workerdLeaf, workerdHello),
    ],
  ],
)}

Playlist rewrite (every URI resolved, checked and made relative to the session), alone and as the
whole \`/s/…/v1/index.m3u8\` route on Node with the upstream playlist cached (${upstreamFetches} upstream fetch${upstreamFetches === 1 ? '' : 'es'} for all the calls, the MPD's included):

${table(
  ['playlist', 'µs per playlist'],
  [
    ['master (2 variants), rewrite only', rewriteMasterUs.toFixed(1)],
    ['media (40 segments + key), rewrite only', rewriteMediaUs.toFixed(1)],
    ['media, whole route (verify, cache hit, rewrite, answer)', playlistUs.toFixed(1)],
  ],
)}

Goal (issue 19): the leaf redirect ≥ 70 % of hello-world's throughput on workerd: **${(workerdShare * 100).toFixed(0)} %** (${workerdShare >= 0.7 ? 'met' : 'not met'}).

The DASH lane (issue 32): a DASH segment's redirect (\`${DASH_LEAF}\` of a \`format=dash\`
session) against the HLS one (\`${HLS_LEAF}\`) in the same run, and the whole MPD route on Node
(verify, cache hit, \`sessionMpd\` of the committed 80-s VOD MPD, answer):

${table(
  ['runtime', 'HLS leaf', 'DASH leaf', 'DASH vs HLS'],
  [
    [
      'Node, in the process (µs per request)',
      leafUs.toFixed(1),
      dashLeafUs.toFixed(1),
      `${(dashLeafUs / leafUs).toFixed(2)}× the time`,
    ],
    [
      'Node, HTTP (req/s)',
      Math.round(nodeLeaf.rps).toLocaleString('en'),
      Math.round(nodeDashLeaf.rps).toLocaleString('en'),
      share(nodeDashLeaf, nodeLeaf),
    ],
    [
      'workerd, HTTP (req/s)',
      Math.round(workerdLeaf.rps).toLocaleString('en'),
      Math.round(workerdDashLeaf.rps).toLocaleString('en'),
      share(workerdDashLeaf, workerdLeaf),
    ],
  ],
)}

MPD, whole route (µs per MPD): ${mpdUs.toFixed(1)}, against ${playlistUs.toFixed(1)} for the HLS media playlist's.

Goal (issue 32): the DASH leaf redirect ≥ 90 % of the HLS one's throughput on workerd: **${(dashShare * 100).toFixed(0)} %** (${dashShare >= 0.9 ? 'met' : 'not met'}).`,
)
