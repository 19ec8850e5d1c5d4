import { serve } from '@hono/node-server'
import { nodeMd5Digest } from '@proj/signing/node'
import { createTokenApp } from './app.ts'
import { batchedLines } from './audit-log.ts'
import { loadConfig, type TokenWorkerEnv } from './config.ts'

// Self-hosting on Node: the same app, configuration from environment variables.
const env = process.env as TokenWorkerEnv
// Fail at start-up rather than on the first request: a bad variable is named, never its value.
// loadConfig memoises per env object, so requests reuse this parse.
loadConfig(env)
const port = Number(process.env.PORT ?? 8787)
const hostname = process.env.HOST ?? '127.0.0.1'
// Audit lines leave in one write per event-loop turn; nothing buffered is lost on the way out.
const audit = batchedLines(process.stdout)
process.on('exit', audit.flush)
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    audit.flush()
    process.kill(process.pid, signal)
  })
// Node's own MD5 signs faster than the portable spark-md5 (same tokens)
const app = createTokenApp({ digest: nodeMd5Digest, audit })

serve({ fetch: (request) => app.fetch(request, env), port, hostname }, (info) => {
  console.log(
    `token-worker (node) listening on http://${hostname}:${info.port}/token?video=demo&type=vod`,
  )
})
