import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { convertV4MiniflareOptions, Miniflare } from 'miniflare'
import { median, quick, report, stamp, table } from '../report.ts'
import { compatibilityDate, wranglerBuild } from './wrangler-build.ts'

// The same pairing as on Node, on workerd itself: a hello-world Hono worker and the deployable
// token worker, each bundled by wrangler as `wrangler deploy` would, run by Miniflare's workerd
// and reached on workerd's own socket (not through `wrangler dev`'s proxy, which caps both at a
// few hundred requests per second). Two figures: requests answered inside the isolate (timed
// from outside) and HTTP throughput with autocannon.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 5))
const LOOP = Number(process.env.BENCH_REQUESTS ?? (quick ? 2000 : 20_000))
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5))
const out = mkdtempSync(join(tmpdir(), 'workerd-bench-'))

const worker = (name: string) => ({
  name,
  modules: true,
  script: wranglerBuild(join(out, name), `workerd-${name}.ts`).script,
  compatibilityDate,
  // a socket of workerd's own for this worker, no router in front
  unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  bindings: {
    CLIENT_ID: '12345',
    SECRET_KEY: 'bench-secret',
    CDN_DOMAIN: 'cdn.bench.test',
    CDN_DOMAIN_IP: 'cdn-ip.bench.test',
    AUTH_MODE: 'none',
    IP_HEADERS: 'cf-connecting-ip',
  },
})
const mf = new Miniflare(convertV4MiniflareOptions({ workers: [worker('hello'), worker('token')] }))
try {
  await mf.ready
  const targets = [
    { name: 'baseline: hello-world Hono', worker: 'hello' },
    { name: 'GET /token (deployable bundle)', worker: 'token' },
  ]
  const urls = await Promise.all(targets.map((t) => mf.unsafeGetDirectURL(t.worker)))

  const loop = async (url: URL) => {
    const start = performance.now()
    const res = await fetch(new URL(`/__loop?n=${LOOP}`, url))
    if (res.status !== 200) throw new Error(`loop answered ${res.status}: ${await res.text()}`)
    return ((performance.now() - start) / LOOP) * 1000
  }
  for (const url of urls) await loop(url) // warm-up
  const inIsolate = targets.map(() => [] as number[])
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, url] of urls.entries()) inIsolate[i]?.push(await loop(url))

  const http: number[] = []
  for (const url of urls) {
    const path = new URL('/token?video=demo&type=vod&expire=600', url).href
    const headers = { 'cf-connecting-ip': '203.0.113.7' }
    await autocannon({ url: path, headers, connections: 10, duration: 1 })
    const result = await autocannon({ url: path, headers, connections: 10, duration: DURATION })
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`)
    http.push(result.requests.average)
  }

  const baseUs = median(inIsolate[0] ?? [])
  const tokenUs = median(inIsolate[1] ?? [])
  const baseRps = http[0] ?? 1
  const share = (http[1] ?? 0) / baseRps
  report(
    'workerd',
    `${stamp(`workerd via Miniflare, compatibility date ${compatibilityDate}; in the isolate ${ROUNDS} rounds × ${LOOP} requests (medians); HTTP autocannon, 10 connections, ${DURATION} s`)}

${table(
  ['target', 'µs per request in the isolate', 'vs baseline', 'HTTP req/s', 'vs baseline'],
  targets.map((target, i) => {
    const us = median(inIsolate[i] ?? [])
    const rps = http[i] ?? 0
    return [
      target.name,
      us.toFixed(1),
      `${(us / baseUs).toFixed(1)}×`,
      Math.round(rps).toLocaleString('en'),
      `${((rps / baseRps) * 100).toFixed(0)} %`,
    ]
  }),
)}

Goals (issue 12), the Node pairing on workerd: in the isolate ≤ 2× the baseline: **${(tokenUs / baseUs).toFixed(1)}×**
(${tokenUs / baseUs <= 2 ? 'met' : 'not met'}); HTTP ≥ 50 % of the baseline: **${(share * 100).toFixed(0)} %** (${share >= 0.5 ? 'met' : 'not met'}).`,
  )
} finally {
  await mf.dispose()
  rmSync(out, { recursive: true, force: true })
}
