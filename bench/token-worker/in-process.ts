import { nodeMd5Digest } from '@proj/signing/node'
import { createTokenApp } from '@proj/token-backend'
import { Hono } from 'hono'
import { median, quick, report, stamp, table } from '../report.ts'

// GET /token against a hello-world Hono app in the same Node process, no network: what the
// framework costs per request versus what this app adds. Interleaved rounds, medians reported.
// The audit lines go to a no-op sink here (where they go is the runtime's business, not the app's).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 5))
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (quick ? 2000 : 20_000))
const env = {
  CLIENT_ID: '12345',
  SECRET_KEY: 'bench-secret',
  CDN_DOMAIN: 'cdn.bench.test',
  CDN_DOMAIN_IP: 'cdn-ip.bench.test',
  AUTH_MODE: 'none',
  // in process there is no socket: the viewer is the header a proxy in front would set
  IP_HEADERS: 'x-real-ip',
}
const path = '/token?video=demo&type=vod&expire=600'
const hello = new Hono().get('/token', (c) => c.json({ hello: 'world' }))
const app = createTokenApp({ digest: nodeMd5Digest, audit: () => undefined })
// both answer the same request: a viewer's, with the IP header a proxy adds
const init = { headers: { 'x-real-ip': '203.0.113.7' } }
const targets = [
  { name: 'baseline: hello-world Hono', call: () => hello.request(path, init, env) },
  {
    name: 'GET /token (validate, sign 2 tokens, audit line)',
    call: () => app.request(path, init, env),
  },
]

const perRequestUs = async (call: () => Response | Promise<Response>) => {
  const start = performance.now()
  for (let i = 0; i < REQUESTS; i++) {
    const response = await call()
    if (response.status !== 200) throw new Error(`answered ${response.status}`)
  }
  return ((performance.now() - start) / REQUESTS) * 1000
}
const samples = targets.map(() => [] as number[])
for (const target of targets) await perRequestUs(target.call) // warm-up
for (let round = 0; round < ROUNDS; round++)
  for (const [i, target] of targets.entries()) samples[i]?.push(await perRequestUs(target.call))
const base = median(samples[0] ?? [])
const token = median(samples[1] ?? [])
report(
  'in-process',
  `${stamp(`${ROUNDS} interleaved rounds × ${REQUESTS} requests, medians`)}

${table(
  ['target', 'µs per request', 'vs baseline'],
  targets.map((target, i) => {
    const us = median(samples[i] ?? [])
    return [target.name, us.toFixed(1), `${(us / base).toFixed(1)}×`]
  }),
)}

Goal (issue 12): ≤ 2× the baseline: **${(token / base).toFixed(1)}×**, ${token / base <= 2 ? 'met' : 'not met (what bounds it: below)'}.`,
)
