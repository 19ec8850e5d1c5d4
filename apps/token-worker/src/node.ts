import { serve } from '@hono/node-server'
import { createTokenApp } from './app.ts'
import { loadConfig, type TokenWorkerEnv } from './config.ts'

// Self-hosting on Node: the same app, configuration from environment variables.
const env = process.env as TokenWorkerEnv
// Fail at start-up rather than on the first request: a bad variable is named, never its value.
// loadConfig memoises per env object, so requests reuse this parse.
loadConfig(env)
const port = Number(process.env.PORT ?? 8787)
const hostname = process.env.HOST ?? '127.0.0.1'
const app = createTokenApp()

serve({ fetch: (request) => app.fetch(request, env), port, hostname }, (info) => {
  console.log(
    `token-worker (node) listening on http://${hostname}:${info.port}/token?video=demo&type=vod`,
  )
})
