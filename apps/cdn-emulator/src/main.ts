// The local CDN for `npm start` and the e2e smoke test: an origin with the test media and two
// token-checking hosts (plain and IP-bound), configured like the token worker:
//   SECRET_KEY      shared with the token worker (default: the local one of .dev.vars.example)
//   CDN_DOMAIN      host:port of the plain-token host      (default 127.0.0.1:8080)
//   CDN_DOMAIN_IP   host:port of the IP-bound host         (default 127.0.0.1:8081)
//   ORIGIN_PORT     the origin, token-free (nginx proxies to it)            (default 8090)
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { createCdn } from './cdn/cdn-app.ts'
import { createOrigin } from './origin/origin-app.ts'

const env = process.env
const secret = env.SECRET_KEY || 'local-dev-secret-change-me'
const portOf = (hostPort: string | undefined, fallback: number) =>
  Number(hostPort?.split(':').pop() || fallback)
const hostname = '127.0.0.1'
const ports = {
  origin: Number(env.ORIGIN_PORT || 8090),
  plain: portOf(env.CDN_DOMAIN, 8080),
  ip: portOf(env.CDN_DOMAIN_IP, 8081),
}

const origin = createOrigin({ mediaDir: fileURLToPath(new URL('../media/vod', import.meta.url)) })
const fromOrigin = (path: string) => origin.fetch(new Request(`http://origin${path}`))
serve({ fetch: origin.fetch, hostname, port: ports.origin })
serve({
  fetch: createCdn({ secret, ipBound: false, origin: fromOrigin }).fetch,
  hostname,
  port: ports.plain,
})
serve({
  fetch: createCdn({ secret, ipBound: true, origin: fromOrigin }).fetch,
  hostname,
  port: ports.ip,
})
console.log(
  `cdn-emulator: plain http://${hostname}:${ports.plain}, IP-bound http://${hostname}:${ports.ip}, origin http://${hostname}:${ports.origin}`,
)
