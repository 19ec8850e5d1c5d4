import { serveTokenApp } from '@proj/token-backend/node'

// Self-hosting on Node: the same app, configuration from environment variables (PORT, HOST and
// the variables of docs/configuration.md). A bad variable stops the start, named, never its value.
serveTokenApp({}, ({ url }) => {
  console.log(`token-worker (node) listening on ${url}token?video=demo&type=vod`)
})
