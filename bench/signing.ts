import { createHash } from 'node:crypto'
import { createTokenRecord, signToken, sparkMd5Digest } from '@proj/signing'
import { nodeMd5Digest } from '@proj/signing/node'
import { Bench } from 'tinybench'
import { quick, report, stamp, table } from './report.ts'

// Baseline in the same run: node:crypto's native MD5 of the same text. spark-md5 is pure JS (it
// must run in browsers and workerd alike), so the question is how far from native it is.
const text = '12345_demo_s3cr3t_1800000600_203.0.113.7'
const config = {
  clientId: '12345',
  secretKey: 's3cr3t',
  cdnDomain: 'cdn.example.com',
  cdnDomainIp: 'cdn-ip.example.com',
}

const input = {
  clientId: '12345',
  video: 'demo',
  secret: 's3cr3t',
  expires: 1_800_000_600,
  ip: '203.0.113.7',
}
const time = Number(process.env.BENCH_MS ?? (quick ? 100 : 1000))
const bench = new Bench({ time })
bench
  .add('baseline: node:crypto md5 → base64url', () => {
    createHash('md5').update(text).digest('base64url')
  })
  .add('signToken, nodeMd5Digest (node:crypto hash())', () => {
    signToken(input, nodeMd5Digest)
  })
  .add('signToken, sparkMd5Digest (spark-md5, portable)', () => {
    signToken(input, sparkMd5Digest)
  })
  .add('createTokenRecord, nodeMd5Digest (2 tokens, IP check, 2 URLs)', () => {
    createTokenRecord(
      config,
      { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' },
      { nowSeconds: 1_800_000_000, digest: nodeMd5Digest },
    )
  })
  .add('createTokenRecord, spark-md5', () => {
    createTokenRecord(
      config,
      { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' },
      { nowSeconds: 1_800_000_000 },
    )
  })
await bench.run()

const stats = (task: (typeof bench.tasks)[number]) => {
  const result = task.result
  if (!result || !('throughput' in result)) throw new Error(`${task.name} did not complete`)
  return { ops: result.throughput.mean, meanMs: result.latency.mean }
}
const base = stats(bench.tasks[0] as (typeof bench.tasks)[number]).meanMs
const rows = bench.tasks.map((task) => {
  const { ops, meanMs } = stats(task)
  return [
    task.name,
    Math.round(ops).toLocaleString('en'),
    (meanMs * 1000).toFixed(2),
    `${(meanMs / base).toFixed(2)}×`,
  ]
})
const ratio = (name: string) => {
  const task = bench.tasks.find((t) => t.name.startsWith(name))
  return task ? stats(task).meanMs / base : Number.NaN
}
report(
  'signing',
  `${stamp(`tinybench, ${time} ms per task`)}

${table(['task', 'ops/s', 'mean µs', 'vs baseline (time)'], rows)}

Goal (issue 12): signing ≤ 1.5× the native MD5 where one exists. On Node the token worker signs
with \`nodeMd5Digest\`, a token costs **${ratio('signToken, nodeMd5Digest').toFixed(2)}×** the baseline (${ratio('signToken, nodeMd5Digest') <= 1.5 ? 'met' : 'NOT met'}); the
portable spark-md5 costs ${ratio('signToken, sparkMd5Digest').toFixed(2)}×. On workerd spark-md5 is the faster one (the \`workerd\` section).`,
)
