import { cpus, loadavg } from 'node:os'
import { connectRedis } from '@proj/token-backend/redis'
import autocannon from 'autocannon'
import { sign } from 'hono/jwt'
import { median, quick, report, stamp, table } from '../report.ts'
import { cpuMicros, cpuSplit, pinProcess } from './cpu-affinity.ts'
import { startNodeServer } from './node-server.ts'
import { type BenchRedis, freePort, redisServerBinary, startBenchRedis } from './redis-server.ts'
import { commandCalls, difference } from './redis-stats.ts'
import { JWT_SECRET, STREAM_LIMITS_ENV } from './stream-limits-env.ts'

// Stream limits (issue 33) on the token worker's Node entry: GET /token (a refresh that names
// its stream) and the session leaf redirect, with STREAM_LIMIT set against unset, each store
// (memory; Redis with REDIS_URL) in its own processes, all measured in this run in short rounds,
// alternated, so that the load of a shared machine falls on every target alike. Each viewer has
// its own JWT (`sub`), one token stream and one session. The Redis server is this run's own:
// INFO commandstats, read around every Redis run, says what each request cost it.
// Each server under test runs on a CPU of its own, the bench process and redis-server on the others
// (cpu-affinity.ts): on two cores, a third busy process would otherwise take the server's CPU in
// proportion to how busy Redis is, which measures the scheduler. The server's own CPU time per
// request is read around every run too, and 100 connections keep it busy while requests wait on Redis.
// 12 rounds, not 6: on this machine one round's ratio ranges over ±25 % even with limits off on
// both ports (BENCH_AA=1), so the median needs many of them; rounds of 1 s spread wider still
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 12))
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 3))
// BENCH_AA=1: the instrument's own spread, limits off on both ports (an A/A run)
const aa = process.env.BENCH_AA === '1'
const VIEWERS = Number(process.env.BENCH_VIEWERS ?? (quick ? 10 : 100))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100)
const pairEntry = new URL('./stream-limits-pair.ts', import.meta.url).pathname
const env = STREAM_LIMITS_ENV
const address = { 'x-real-ip': '203.0.113.7' }

type Endpoint = 'token' | 'leaf'
const ENDPOINTS: readonly Endpoint[] = ['token', 'leaf']
interface Target {
  store: 'memory' | 'Redis'
  limits: boolean
  base: string
  /** The server's process, for its CPU time. */
  pid: number
  /** Each viewer's refresh (`/token?…&stream=`) and session leaf. */
  requests: Record<Endpoint, autocannon.Request[]>
}
interface Run {
  rps: number
  p99: number
  seconds: number
  requests: number
  redisCommands: number
  /** The server's CPU time per request (µs) and the share of the run it was busy. */
  cpuPerRequest: number
  busy: number
}
const nameOf = ({ store, limits }: Target) => `${store}, limits ${limits ? 'on' : 'off'}`

/** Every viewer's refresh request and session leaf, their stream admitted first. */
async function viewerRequests(base: string) {
  const requests: Record<Endpoint, autocannon.Request[]> = { token: [], leaf: [] }
  const exp = Math.floor(Date.now() / 1000) + 3600
  for (let i = 0; i < VIEWERS; i++) {
    const jwt = await sign({ sub: `bench-viewer-${i}`, videos: '*', exp }, JWT_SECRET, 'HS256')
    const headers = { ...address, authorization: `Bearer ${jwt}` }
    const first = await fetch(`${base}/token?video=demo&type=vod`, { headers })
    if (first.status !== 200) throw new Error(`GET /token answered ${first.status}`)
    const { stream } = (await first.json()) as { stream?: string }
    const path = `/token?video=demo&type=vod${stream ? `&stream=${stream}` : ''}`
    requests.token.push({ method: 'GET', path, headers })
    const issued = await fetch(`${base}/session?video=demo&type=vod`, { headers })
    if (issued.status !== 200) throw new Error(`GET /session answered ${issued.status}`)
    const { session_url: url } = (await issued.json()) as { session_url: string }
    const leaf = new URL(url).pathname.replace(/master\.m3u8$/, 'v1/seg_017.ts')
    requests.leaf.push({ method: 'GET', path: leaf, headers: address })
  }
  return requests
}

/** autocannon over every viewer's request of `endpoint`; anything but 200 (302 for a leaf) fails. */
async function load(target: Target, endpoint: Endpoint, duration: number) {
  const result = await autocannon({
    url: target.base,
    connections: CONNECTIONS,
    duration,
    requests: target.requests[endpoint],
  })
  const good = endpoint === 'token' ? result['2xx'] : result['3xx']
  if (result.errors > 0 || good < result.requests.total * 0.999)
    throw new Error(
      `${nameOf(target)} ${endpoint}: ${result.errors} errors, ${good} of ${result.requests.total} answered as expected`,
    )
  return result
}

const started = { load: loadavg()[0] ?? 0 }
const redis: BenchRedis | undefined = await startBenchRedis()
if (redis === undefined)
  console.log(`[bench] no redis-server at ${redisServerBinary}: the Redis rows are skipped`)
const client = redis === undefined ? undefined : await connectRedis(redis.url)
const split = cpuSplit()
if (split) {
  pinProcess(process.pid, split.rest)
  if (redis) pinProcess(redis.pid, split.rest)
}
const servers: { kill(): boolean }[] = []
const runs = new Map<string, Run[]>()
const key = (target: Target, endpoint: Endpoint) => `${nameOf(target)} ${endpoint}`
const targets: Target[] = []
try {
  // both settings of a store in one process (stream-limits-pair.ts), loaded one at a time
  const start = async (store: Target['store']): Promise<Target[]> => {
    const [port, portOn] = [await freePort(), await freePort()]
    const more = {
      ...(store === 'Redis' && redis && { REDIS_URL: redis.url }),
      PORT_ON: String(portOn),
      PAIR_STREAM_LIMIT: aa ? '' : '2',
    }
    const server = await startNodeServer(pairEntry, port, { ...env, ...more }, split?.server)
    servers.push(server)
    return Promise.all(
      [port, portOn].map(async (listening, i) => {
        const base = `http://127.0.0.1:${listening}`
        const limits = i === 1
        return { store, limits, base, pid: server.pid ?? 0, requests: await viewerRequests(base) }
      }),
    )
  }
  for (const store of redis ? (['memory', 'Redis'] as const) : (['memory'] as const))
    targets.push(...(await start(store)))
  for (const target of targets) for (const endpoint of ENDPOINTS) await load(target, endpoint, 1)
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse()
    for (const endpoint of ENDPOINTS)
      for (const target of order) {
        const before = target.store === 'Redis' && client ? await commandCalls(client) : undefined
        const cpuBefore = cpuMicros(target.pid) ?? Number.NaN
        const result = await load(target, endpoint, DURATION)
        const cpuUsed = (cpuMicros(target.pid) ?? Number.NaN) - cpuBefore
        const after = before && client ? await commandCalls(client) : undefined
        const commands = before && after ? difference(after, before) : new Map<string, number>()
        const run: Run = {
          rps: result.requests.average,
          p99: result.latency.p99,
          seconds: result.duration,
          requests: result.requests.total,
          redisCommands: [...commands.values()].reduce((sum, calls) => sum + calls, 0),
          cpuPerRequest: cpuUsed / result.requests.total,
          busy: cpuUsed / (result.duration * 1e6),
        }
        runs.set(key(target, endpoint), [...(runs.get(key(target, endpoint)) ?? []), run])
      }
  }
} finally {
  for (const server of servers) server.kill()
  client?.destroy()
  await redis?.stop()
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(0)} %`
const rows: string[][] = []
const ratios: number[] = []
const capacities: number[] = []
for (const endpoint of ENDPOINTS)
  for (const off of targets.filter((target) => !target.limits)) {
    const on = targets.find((target) => target.limits && target.store === off.store)
    if (on === undefined) continue
    const offRuns = runs.get(key(off, endpoint)) ?? []
    const onRuns = runs.get(key(on, endpoint)) ?? []
    // each round's run over the run of the other next to it: the machine's drift cancels out
    const roundRatios = onRuns.map((run, round) => run.rps / (offRuns[round]?.rps ?? Number.NaN))
    const ratio = median(roundRatios)
    ratios.push(ratio)
    // what one request costs the instance, off over on: its capacity, whoever bounds the rate
    const capacity = median(
      onRuns.map((run, round) => (offRuns[round]?.cpuPerRequest ?? Number.NaN) / run.cpuPerRequest),
    )
    capacities.push(capacity)
    const perStream = (all: Run[]) => {
      const seconds = all.reduce((sum, run) => sum + run.seconds, 0)
      const commands = all.reduce((sum, run) => sum + run.redisCommands, 0)
      return off.store === 'Redis' ? (commands / seconds / VIEWERS).toFixed(2) : ''
    }
    const cpuOf = (all: Run[]) =>
      `${median(all.map((run) => run.cpuPerRequest)).toFixed(1)} (${percent(median(all.map((run) => run.busy)))})`
    rows.push([
      endpoint === 'token' ? 'GET /token (refresh)' : 'session leaf (302)',
      off.store,
      Math.round(median(offRuns.map((run) => run.rps))).toLocaleString('en'),
      Math.round(median(onRuns.map((run) => run.rps))).toLocaleString('en'),
      `**${percent(ratio)}**`,
      `${percent(Math.min(...roundRatios))}–${percent(Math.max(...roundRatios))}`,
      `${median(offRuns.map((run) => run.p99))} / ${median(onRuns.map((run) => run.p99))}`,
      `${cpuOf(offRuns)} / ${cpuOf(onRuns)}`,
      percent(capacity),
      perStream(offRuns) && `${perStream(offRuns)} → ${perStream(onRuns)}`,
    ])
  }
if (!redis)
  rows.push(['both', 'Redis', `skipped: no ${redisServerBinary}`, '', '', '', '', '', '', ''])
const worst = ratios.length > 0 ? Math.min(...ratios) : Number.NaN
const worstCapacity = capacities.length > 0 ? Math.min(...capacities) : Number.NaN

const cpu = cpus()
report(
  'stream-limits',
  `${stamp(
    `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'} (load average ${started.load.toFixed(1)} at the start); the token backend's serveTokenApp (what the token worker's Node entry runs), one process per store serving both settings on two ports, loaded one at a time (AUTH_MODE=jwt in all: a viewer is a JWT's sub); autocannon in the bench process, ${CONNECTIONS} connections cycling through ${VIEWERS} viewers' requests (each with one token stream and one session); ${split ? `each server pinned to CPU ${split.server}, the bench process and redis-server to CPU ${split.rest}` : 'no CPU pinning (one CPU or no taskset)'}; ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} × ${DURATION} s per target and endpoint, alternated, after 1 s of warm-up each; ${redis ? `redis-server ${redis.version} of this run on loopback` : 'no redis-server'}`,
  )}

${aa ? '**A/A run (`BENCH_AA=1`): limits off on both ports, "on" names the second port.** ' : ''}Stream limits (\`STREAM_LIMIT=2\`) against none, in the same run: a refresh that names its stream
(one ledger write per request: a player sends one per token lifetime minus its lead) and a session
leaf (the lease written at most once a second per session and instance). req/s and p99 are medians
over the rounds, "on vs off" the median of the rounds' own ratios (their range beside it); the instance's CPU time per
request and the share of each run it was busy (near 100 %: the instance, not the load generator or
the round trip, bounds the rate), medians; Redis commands per viewer and
second under this load, without limits → with them, as INFO commandstats counts them (an
\`EVALSHA\` and the \`GET\` and \`SET\` its script runs are three; the leaf's other command is the
revocation check of the 1-s session cache):

${table(
  [
    'request',
    'store',
    'req/s off',
    'req/s on',
    'on vs off',
    "the rounds' ratios",
    'p99 ms off / on',
    'instance CPU µs per request off / on (busy)',
    'on vs off by CPU',
    'Redis commands per stream per second',
  ],
  rows,
)}

Goal (issue 33): limits on ≥ 90 % of off, every row: ${
    Number.isNaN(worst)
      ? 'not measured'
      : `**${(worst * 100).toFixed(1)} %** at worst (${worst >= 0.9 ? 'met' : 'not met'})`
  }; by the instance's CPU per request: ${
    Number.isNaN(worstCapacity) ? 'not measured' : `${percent(worstCapacity)} at worst`
  }.`,
)
