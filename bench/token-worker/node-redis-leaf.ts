import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { connectRedis } from '@proj/token-backend/redis'
import autocannon from 'autocannon'
import { median, quick, report, stamp, table } from '../report.ts'
import { startNodeServer } from './node-server.ts'
import { type BenchRedis, freePort, redisServerBinary, startBenchRedis } from './redis-server.ts'
import { commandCalls, difference } from './redis-stats.ts'
import { tokenWorkerNode } from './wrangler-build.ts'

// The edge-session leaf redirect (GET /s/…/seg → 302 to the CDN) on the token worker's Node
// entry, its session store in memory (no REDIS_URL) against Redis (REDIS_URL: the store behind
// the 1-s instance cache), each in its own process, both measured in this run in short rounds,
// alternated, so that the load of a shared machine falls on both alike. The Redis server is this
// run's own; its INFO commandstats, read around every measured Redis run, say how many leaf
// requests reached it, and the CPU time of each process (from /proc) what a leaf costs.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 8))
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 3))
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? (quick ? 10 : 100))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const env = {
  CLIENT_ID: '12345',
  SECRET_KEY: 'bench-secret',
  CDN_DOMAIN: 'cdn.bench.test',
  CDN_DOMAIN_IP: 'cdn-ip.bench.test',
  AUTH_MODE: 'none',
  IP_HEADERS: 'x-real-ip',
  SESSION_SECRET: 'bench-session-secret-of-32-characters',
}
const viewer = { 'x-real-ip': '203.0.113.7' }

interface Target {
  name: string
  base: string
  leaves: string[]
  /** The token worker's process. */
  pid: number
  /** Only for the Redis target: its server's process, and its calls per command so far. */
  redis?: { pid: number; commands: () => Promise<Map<string, number>> }
}
interface Run {
  rps: number
  p99: number
  seconds: number
  /** Leaf requests answered in the run. */
  requests: number
  /** CPU time (user + system) the token worker and the Redis server took during the run. */
  serverCpuMs: number
  redisCpuMs: number
  /** Commands Redis ran during the run, per command. */
  commands: Map<string, number>
}

/** `SESSIONS` sessions issued by `base`, as the path of one leaf of each. */
const issueLeaves = async (base: string) => {
  const leaves: string[] = []
  for (let i = 0; i < SESSIONS; i++) {
    const res = await fetch(`${base}/session?video=demo&type=vod`, { headers: viewer })
    if (res.status !== 200)
      throw new Error(`GET /session answered ${res.status}: ${await res.text()}`)
    const { session_url: url } = (await res.json()) as { session_url: string }
    leaves.push(new URL(url).pathname.replace(/master\.m3u8$/, 'v1/seg_017.ts'))
  }
  return leaves
}

/** CPU time of a process so far, in ms (Linux /proc, 100 ticks a second); NaN elsewhere. */
const cpuMs = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the fields after the command name (which may hold spaces): state is the first, utime the 12th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** autocannon over every session's leaf (each connection cycles through them), 302s only. */
const load = async ({ name, base, leaves }: Target, duration: number) => {
  const result = await autocannon({
    url: base,
    headers: viewer,
    connections: CONNECTIONS,
    duration,
    requests: leaves.map((path) => ({ method: 'GET', path })),
  })
  if (result.errors > 0 || result['3xx'] < result.requests.total * 0.999)
    throw new Error(
      `${name}: ${result.errors} errors, ${result['3xx']} of ${result.requests.total} 3xx (${result.non2xx} non-2xx)`,
    )
  return result
}

const measure = async (target: Target): Promise<Run> => {
  const before = await target.redis?.commands()
  const cpuBefore = [cpuMs(target.pid), target.redis ? cpuMs(target.redis.pid) : 0]
  const result = await load(target, DURATION)
  const cpuAfter = [cpuMs(target.pid), target.redis ? cpuMs(target.redis.pid) : 0]
  const after = await target.redis?.commands()
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    seconds: result.duration,
    requests: result.requests.total,
    serverCpuMs: (cpuAfter[0] ?? 0) - (cpuBefore[0] ?? 0),
    redisCpuMs: (cpuAfter[1] ?? 0) - (cpuBefore[1] ?? 0),
    commands: before && after ? difference(after, before) : new Map(),
  }
}

const started = { load: loadavg()[0] ?? 0 }
const redis: BenchRedis | undefined = await startBenchRedis()
if (redis === undefined)
  console.log(
    `[bench] no redis-server at ${redisServerBinary} (REDIS_SERVER names another): the Redis row is skipped`,
  )
const client = redis === undefined ? undefined : await connectRedis(redis.url)
const servers: { kill(): boolean }[] = []
const runs = new Map<string, Run[]>()
let targets: Target[] = []
try {
  const start = async (name: string, more: Record<string, string> = {}) => {
    const port = await freePort()
    const server = await startNodeServer(tokenWorkerNode, port, { ...env, ...more })
    servers.push(server)
    const base = `http://127.0.0.1:${port}`
    return { name, base, pid: server.pid ?? 0, leaves: await issueLeaves(base) }
  }
  targets = [await start('memory (no REDIS_URL)')]
  if (redis && client)
    targets.push({
      ...(await start('Redis (REDIS_URL, 1-s instance cache)', { REDIS_URL: redis.url })),
      redis: { pid: redis.pid, commands: () => commandCalls(client) },
    })
  for (const target of targets) await load(target, 1) // warm-up (and each session's admission)
  for (let round = 0; round < ROUNDS; round++) {
    // alternated: whichever goes first in a round goes second in the next
    const order = round % 2 === 0 ? targets : [...targets].reverse()
    for (const target of order) {
      const run = await measure(target)
      runs.set(target.name, [...(runs.get(target.name) ?? []), run])
    }
  }
} finally {
  for (const server of servers) server.kill()
  client?.destroy()
  await redis?.stop()
}

const memoryRuns = runs.get(targets[0]?.name ?? '') ?? []
const summary = targets.map(({ name }) => {
  const all = runs.get(name) ?? []
  const commands = new Map<string, number>()
  for (const run of all)
    for (const [command, calls] of run.commands)
      commands.set(command, (commands.get(command) ?? 0) + calls)
  const sum = (of: (run: Run) => number) => all.reduce((total, run) => total + of(run), 0)
  const requests = sum((run) => run.requests)
  return {
    name,
    rps: median(all.map((run) => run.rps)),
    // each round's run over the memory run next to it: the machine's drift cancels out
    ratios: all.map((run, round) => run.rps / (memoryRuns[round]?.rps ?? Number.NaN)),
    p99: median(all.map((run) => run.p99)),
    seconds: sum((run) => run.seconds),
    requests,
    serverCpuPerThousand: (sum((run) => run.serverCpuMs) / requests) * 1000,
    redisCpuPerThousand: (sum((run) => run.redisCpuMs) / requests) * 1000,
    commands,
  }
})
const [memory, shared] = summary
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)} %`
const share = shared ? median(shared.ratios) : undefined
const rows = summary.map((row) => [
  row.name,
  Math.round(row.rps).toLocaleString('en'),
  percent(median(row.ratios)),
  String(row.p99),
  row === memory
    ? row.serverCpuPerThousand.toFixed(0)
    : `${row.serverCpuPerThousand.toFixed(0)} + ${row.redisCpuPerThousand.toFixed(1)} (redis-server)`,
  row.ratios.map(percent).join(', '),
])
if (!shared) rows.push(['Redis', `skipped: no ${redisServerBinary}`, '', '', '', ''])

const redisTraffic = (() => {
  if (!shared) return 'Redis traffic: not measured (no redis-server).'
  const total = [...shared.commands.values()].reduce((sum, calls) => sum + calls, 0)
  const perCommand = [...shared.commands]
    .sort(([, a], [, b]) => b - a)
    .map(([command, calls]) => `${command} ${calls.toLocaleString('en')}`)
    .join(', ')
  return `How many leaf requests reached Redis: its INFO commandstats read before and after each
measured Redis run (the bench's own INFO left out), summed over the runs:

${table(
  [
    'Redis commands',
    'in',
    'per session per second',
    'leaves per session per second',
    'leaves per Redis command',
  ],
  [
    [
      `${total.toLocaleString('en')} (${perCommand || 'none'})`,
      `${shared.seconds.toFixed(1)} s, ${SESSIONS} sessions`,
      `**${(total / shared.seconds / SESSIONS).toFixed(2)}**`,
      (shared.requests / shared.seconds / SESSIONS).toFixed(0),
      total > 0 ? Math.round(shared.requests / total).toLocaleString('en') : 'none reached it',
    ],
  ],
)}`
})()

const cpu = cpus()
report(
  'redis-leaf',
  `${stamp(
    `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'} (load average ${started.load.toFixed(1)} at the start); the token worker's Node entry in its own process per store; autocannon in the bench process, ${CONNECTIONS} connections cycling through the leaves of ${SESSIONS} sessions (one network); ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} × ${DURATION} s per store, alternated, after 1 s of warm-up each; ${redis ? `redis-server ${redis.version} of this run on loopback, --save '' --appendonly no` : 'no redis-server'}`,
  )}

The leaf redirect on Node with its session store in memory (the baseline) and in Redis; req/s and
p99 are medians over the rounds, "vs memory" the median of the rounds' own ratios (each Redis run
over the memory run next to it), CPU the processes' user + system time over all the rounds:

${table(
  [
    'session store',
    'req/s',
    'vs memory',
    'p99 ms',
    'CPU ms per 1,000 leaves',
    'each round vs memory',
  ],
  rows,
)}

${redisTraffic}

Goal (issue 26): Redis ≥ 80 % of memory's throughput: ${
    share === undefined
      ? 'not measured (no redis-server)'
      : `**${percent(share)}** (${share >= 0.8 ? 'met' : 'not met'})`
  }.`,
)
