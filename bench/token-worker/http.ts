import { join } from 'node:path'
import autocannon from 'autocannon'
import { quick, report, stamp, table } from '../report.ts'
import { startNodeServer } from './node-server.ts'
import { tokenWorkerNode } from './wrangler-build.ts'

// GET /token on Node (@hono/node-server) against a hello-world Hono app on the same adapter, each
// in its own process, measured one after the other in the same run: loopback only, bounded time.
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5))
const here = import.meta.dirname
const env = {
  CLIENT_ID: '12345',
  SECRET_KEY: 'bench-secret',
  CDN_DOMAIN: 'cdn.bench.test',
  CDN_DOMAIN_IP: 'cdn-ip.bench.test',
  AUTH_MODE: 'none',
}

const start = (entry: string, port: number) => startNodeServer(entry, port, env)

const measure = async (name: string, entry: string, port: number, path: string) => {
  const server = await start(entry, port)
  try {
    await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: 10, duration: 1 }) // warm-up
    const result = await autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      connections: 10,
      duration: DURATION,
    })
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
    return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
  } finally {
    server.kill()
  }
}

const rows = [
  await measure('baseline: hello-world Hono', join(here, 'hello.ts'), 18901, '/token'),
  await measure(
    'GET /token (sign 2 tokens)',
    tokenWorkerNode,
    18902,
    '/token?video=demo&type=vod&expire=600',
  ),
]
const base = rows[0]?.rps ?? 1
const share = (rows[1]?.rps ?? 0) / base
report(
  'http-node',
  `${stamp(`autocannon, 10 connections, ${DURATION} s per target after 1 s of warm-up, loopback`)}

${table(
  ['target', 'req/s', 'vs baseline', 'p50 ms', 'p99 ms'],
  rows.map((row) => [
    row.name,
    Math.round(row.rps).toLocaleString('en'),
    `${((row.rps / base) * 100).toFixed(0)} %`,
    String(row.p50),
    String(row.p99),
  ]),
)}

Goal (issue 12): ≥ 50 % of the baseline's throughput: **${(share * 100).toFixed(0)} %**, ${share >= 0.5 ? 'met' : 'not met (what bounds it: below)'}.`,
)
