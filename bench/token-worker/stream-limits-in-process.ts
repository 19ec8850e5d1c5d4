import { nodeMd5Digest } from '@proj/signing/node'
import { type Authorizer, allow, configFromEnv, createTokenApp } from '@proj/token-backend'
import { sign } from 'hono/jwt'
import { median, quick, report, stamp, table } from '../report.ts'
import { cpuSplit, pinProcess } from './cpu-affinity.ts'
import { JWT_SECRET, STREAM_LIMITS_ENV } from './stream-limits-env.ts'

// Stream limits on a refresh, without HTTP (issue 33): GET /token of 100 viewers, each naming
// the stream its first token started, with STREAM_LIMIT set and unset, two apps in one Node
// process, alternated rounds of 50 requests in flight, the process's CPU time (user + system,
// every thread) per request. Twice: with AUTH_MODE=jwt (what the HTTP bench runs: each viewer's
// JWT comes back with every refresh, as a player's does, so it is verified once and then
// remembered), and with an authorizer of your own that costs nothing (the viewer named by a
// header, as a cookie looked up in memory would), to see what a refresh costs besides the JWT.
// The process is pinned to one CPU, as the HTTP bench's instance is. The memory store; audit
// lines to a no-op.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 12))
// about 0.5 s of CPU a round for each authorization: a garbage collection then weighs alike
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (quick ? 2500 : 25000))
// BENCH_AA=1: the instrument against itself, limits off in both apps ("on" names the second)
const aa = process.env.BENCH_AA === '1'
const VIEWERS = 100
const IN_FLIGHT = 50
const env = STREAM_LIMITS_ENV
const split = cpuSplit()
if (split) pinProcess(process.pid, split.server)

/** The viewer's subject from `x-bench-viewer`: a bench's stand-in for a session lookup. */
const headerViewer: Authorizer = (c) => {
  c.set('jwtPayload', { sub: c.req.header('x-bench-viewer') })
  return allow
}

type Setting = 'off' | 'on'
interface Pair {
  authorization: string
  fetch: Record<Setting, (request: Request) => Response | Promise<Response>>
  requests: Record<Setting, Request[]>
}

async function pairOf(authorization: string, authorize: Authorizer | undefined): Promise<Pair> {
  const appOf = (limit: string | undefined) =>
    createTokenApp({
      config: configFromEnv({ ...env, ...(limit && { STREAM_LIMIT: limit }) }),
      digest: nodeMd5Digest,
      audit: () => undefined,
      ...(authorize && { authorize }),
    })
  const apps = { off: appOf(undefined), on: appOf(aa ? undefined : '2') }
  const requests: Pair['requests'] = { off: [], on: [] }
  const exp = Math.floor(Date.now() / 1000) + 3600
  for (const setting of ['off', 'on'] as const)
    for (let i = 0; i < VIEWERS; i++) {
      const sub = `bench-viewer-${i}`
      const jwt = await sign({ sub, videos: '*', exp }, JWT_SECRET, 'HS256')
      const headers = {
        'x-real-ip': '203.0.113.7',
        authorization: `Bearer ${jwt}`,
        'x-bench-viewer': sub,
      }
      const first = await apps[setting].request('/token?video=demo&type=vod', { headers })
      if (first.status !== 200) throw new Error(`GET /token answered ${first.status}`)
      const { stream } = (await first.json()) as { stream?: string }
      const query = `video=demo&type=vod${stream ? `&stream=${stream}` : ''}`
      requests[setting].push(new Request(`http://bench.test/token?${query}`, { headers }))
    }
  return {
    authorization,
    fetch: { off: (r) => apps.off.fetch(r), on: (r) => apps.on.fetch(r) },
    requests,
  }
}

/** CPU µs per request of one round of the pair's requests, `IN_FLIGHT` at a time. */
async function round(pair: Pair, setting: Setting): Promise<number> {
  const before = process.cpuUsage()
  let next = 0
  const sender = async () => {
    while (next < REQUESTS) {
      const request = pair.requests[setting][next++ % VIEWERS]
      if (request === undefined) continue
      const response = await pair.fetch[setting](request.clone())
      if (response.status !== 200) throw new Error(`GET /token answered ${response.status}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, sender))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / REQUESTS
}

const pairs = [
  await pairOf('AUTH_MODE=jwt (HS256, each JWT verified once)', undefined),
  await pairOf('an authorizer of your own (no crypto)', headerViewer),
]
const rows: string[][] = []
for (const pair of pairs) {
  await round(pair, 'off')
  await round(pair, 'on')
  const runs: Record<Setting, number[]> = { off: [], on: [] }
  for (let i = 0; i < ROUNDS; i++)
    for (const setting of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const))
      runs[setting].push(await round(pair, setting))
  const ratios = runs.on.map((on, i) => (runs.off[i] ?? Number.NaN) / on)
  const [off, on] = [median(runs.off), median(runs.on)]
  rows.push([
    pair.authorization,
    off.toFixed(1),
    on.toFixed(1),
    `${on >= off ? '+' : '−'}${Math.abs(on - off).toFixed(1)}`,
    `**${(median(ratios) * 100).toFixed(0)} %**`,
    `${(Math.min(...ratios) * 100).toFixed(0)}–${(Math.max(...ratios) * 100).toFixed(0)} %`,
  ])
}

report(
  'stream-limits-in-process',
  `${aa ? '**A/A run (`BENCH_AA=1`): limits off in both apps.** ' : ''}${stamp(`${ROUNDS} alternated rounds × ${REQUESTS} refreshes per setting, ${IN_FLIGHT} in flight, ${VIEWERS} viewers; ${split ? `pinned to CPU ${split.server}` : 'not pinned'}; memory store`)}

${table(
  [
    'authorization',
    'CPU µs per refresh, limits off',
    'on',
    'limits add',
    'on vs off (median of rounds)',
    "the rounds' ratios",
  ],
  rows,
)}`,
)
