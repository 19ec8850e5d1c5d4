import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import autocannon from 'autocannon'
import { median, quick, report, stamp, table } from '../report.ts'
import { tokenWorkerConfig } from './wrangler-build.ts'

// The edge as issue 31 measured it: GET /token under `wrangler dev` with the deployable's own
// wrangler.jsonc (its vars, Durable Object, minify; the rate limit off: no ratelimits binding, no
// RATE_LIMIT_* vars; the example.com placeholders replaced, AUTH_MODE=none), against a
// hello-world Hono worker built and served with the same settings, autocannon alternating
// between the targets round after round in one run (medians). `wrangler dev` puts its own proxy
// in front of workerd and carries every console line to its own process: all targets pay the
// proxy, so two more rows tell the request path from the audit line it writes (a hello-world
// writing the same line; GET /token with the line silenced). workerd's own ceiling, without the
// proxy: the `workerd` bench.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 5))
const DURATION = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5))
const out = mkdtempSync(join(tmpdir(), 'edge-bench-'))
const wrangler = join(import.meta.dirname, '..', 'node_modules', 'wrangler', 'bin', 'wrangler.js')

/** The deployable's wrangler.jsonc as JSON, its entry replaced by `main`, the rate limit off. */
function benchConfig(name: string, main: string): string {
  const deployable = JSON.parse(
    readFileSync(tokenWorkerConfig, 'utf8').replace(/^\s*\/\/.*$/gm, ''),
  ) as { vars: Record<string, string>; ratelimits?: unknown; $schema?: string }
  const { RATE_LIMIT_REQUESTS: _r, RATE_LIMIT_PERIOD: _p, ...vars } = deployable.vars
  const { ratelimits: _limits, $schema: _schema, ...rest } = deployable
  const config = {
    ...rest,
    name,
    main,
    vars: {
      ...vars,
      CDN_DOMAIN: 'cdn.bench.test',
      CDN_DOMAIN_IP: 'cdn-ip.bench.test',
      AUTH_MODE: 'none',
    },
  }
  const file = join(out, `${name}.json`)
  writeFileSync(file, JSON.stringify(config, null, 2))
  return file
}

/** `wrangler dev` of `config` on `port`, ready (or throws with its output after 60 s). */
async function wranglerDev(config: string, port: number, inspector: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      wrangler,
      'dev',
      '--config',
      config,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--persist-to',
      join(out, `state-${port}`),
      '--var',
      'SECRET_KEY:bench-secret',
      '--log-level',
      'warn',
    ],
    {
      cwd: dirname(tokenWorkerConfig),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        WRANGLER_HIDE_BANNER: 'true',
      },
    },
  )
  let errors = ''
  child.stderr?.on('data', (chunk) => (errors += chunk))
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const up = await fetch(`http://127.0.0.1:${port}/token?video=demo`).then(
      (res) => res.status === 200,
      () => false,
    )
    if (up) return child
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  stop(child)
  throw new Error(`wrangler dev on ${port} not ready within 60 s: ${errors}`)
}

/** Stops a `wrangler dev` and the workerd it spawned (its process group). */
function stop(child: ChildProcess): void {
  if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM')
}

const path = '/token?video=demo&type=vod&expire=600'
const rps = async (port: number, duration: number) => {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: 10,
    duration,
  })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`:${port}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return result.requests.average
}

const here = import.meta.dirname
const deployable = join(dirname(tokenWorkerConfig), 'src', 'worker.ts')
const targets = [
  { id: 'hello', name: 'baseline: hello-world Hono', entry: join(here, 'workerd-hello.ts') },
  {
    id: 'hello-audit',
    name: 'hello-world writing one audit-sized line',
    entry: join(here, 'edge-hello-audit.ts'),
  },
  { id: 'token', name: 'GET /token (the deployable)', entry: deployable },
  {
    id: 'token-quiet',
    name: 'GET /token, its audit line silenced',
    entry: join(here, 'edge-token-quiet.ts'),
  },
] as const
type TargetId = (typeof targets)[number]['id']

const servers: ChildProcess[] = []
try {
  const ports = new Map<TargetId, number>()
  for (const [i, target] of targets.entries()) {
    const port = 18931 + i
    servers.push(await wranglerDev(benchConfig(target.id, target.entry), port, 19231 + i))
    ports.set(target.id, port)
  }
  for (const port of ports.values()) await rps(port, 1) // warm-up
  const samples = new Map<TargetId, number[]>(targets.map(({ id }) => [id, []]))
  for (let round = 0; round < ROUNDS; round++)
    for (const { id } of targets) samples.get(id)?.push(await rps(ports.get(id) ?? 0, DURATION))
  const of = (id: TargetId) => median(samples.get(id) ?? [])
  const share = (id: TargetId, base: TargetId = 'hello') => of(id) / of(base)
  const percent = (value: number) => `${(value * 100).toFixed(0)} %`
  report(
    'edge',
    `${stamp(`wrangler dev (the deployable's wrangler.jsonc, rate limit off), autocannon 10 connections, ${ROUNDS} alternated rounds × ${DURATION} s (medians)`)}

${table(
  ['target', 'req/s (median)', 'rounds', 'vs hello-world'],
  targets.map(({ id, name }) => [
    name,
    Math.round(of(id)).toLocaleString('en'),
    (samples.get(id) ?? []).map((n) => Math.round(n)).join(', '),
    percent(share(id)),
  ]),
)}

Goal (issue 31): GET /token at the edge ≥ 70 % of hello-world's throughput: **${percent(share('token'))}** (${share('token') >= 0.7 ? 'met' : 'not met'}). Against a hello-world that writes the same line: **${percent(share('token', 'hello-audit'))}**; the request path alone (audit line silenced): **${percent(share('token-quiet'))}**.`,
  )
} finally {
  for (const server of servers) stop(server)
  rmSync(out, { recursive: true, force: true })
}
