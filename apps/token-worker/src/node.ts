import { ConfigError } from '@proj/token-backend'
import { serveTokenApp } from '@proj/token-backend/node'

// Self-hosting on Node: the same app, configuration from environment variables (PORT, HOST and
// the variables of docs/configuration.md). A bad variable stops the start before anything
// listens: its name and what it must be (never its value), exit 2, as `proj-token-backend` does.
try {
  serveTokenApp({}, ({ url }) => {
    console.log(`token-worker (node) listening on ${url}token?video=demo&type=vod`)
  })
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`token-worker (node): bad configuration: ${error.variable} ${error.expected}`)
  process.exitCode = 2
}
