#!/usr/bin/env node
// `pnpm bench`: every benchmark in turn, each writing its section of BENCHMARKS.md (see
// scripts/bench/report.mjs). BENCH_QUICK=1 (what `npm test` runs): a few samples each, written to
// .tmp/bench/BENCHMARKS.md. `pnpm bench <name>…` runs only those.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'

const root = join(import.meta.dirname, '..')
const benches = [
  ['signing', 'packages/signing/bench/signing.ts'],
  ['in-process', 'apps/token-worker/bench/in-process.ts'],
  ['http', 'apps/token-worker/bench/http.ts'],
  ['workerd', 'apps/token-worker/bench/workerd.ts'],
  ['sessions', 'apps/token-worker/bench/sessions.ts'],
  ['bundle', 'apps/token-worker/bench/bundle.ts'],
  ['herd', 'packages/token-refresh/bench/herd.ts'],
  ['playback', 'e2e/bench/playback.ts'],
  ['refresh-efficiency', 'e2e/bench/refresh-efficiency.ts'],
]
const only = process.argv.slice(2)
const unknown = only.filter((name) => !benches.some(([known]) => known === name))
if (unknown.length > 0) {
  console.error(`[bench] no benchmark ${unknown.join(', ')}: ${benches.map(([n]) => n).join(', ')}`)
  process.exit(2)
}
const started = Date.now()
for (const [name, script] of benches) {
  if (only.length > 0 && !only.includes(name)) continue
  console.log(`\n[bench] ${name}: node ${script}`)
  const status = spawnSync(process.execPath, [join(root, script)], {
    stdio: 'inherit',
    cwd: join(root, dirname(dirname(script))),
  }).status
  if (status !== 0) {
    console.error(`[bench] ${name} failed (exit ${status})`)
    process.exit(1)
  }
}
console.log(`\n[bench] done in ${Math.round((Date.now() - started) / 1000)} s`)
