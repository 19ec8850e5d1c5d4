// The local CDN for `npm start` and the e2e smoke test: an origin with the test media and two
// token-checking hosts (plain and IP-bound), configured like the token worker:
//   SECRET_KEY      shared with the token worker (default: the local one of .dev.vars.example)
//   PREVIOUS_SECRET_KEY  during a secret rotation, the previous secret (its tokens still play)
//   CDN_DOMAIN      host:port of the plain-token host      (default 127.0.0.1:8080)
//   CDN_DOMAIN_IP   host:port of the IP-bound host         (default 127.0.0.1:8081)
//   ORIGIN_PORT     the origin, token-free (nginx proxies to it)            (default 8090)
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { ConfigError, type SigningEnv, signingVariable } from '@proj/signing/config'
import { createCdn } from './cdn/cdn-app.ts'
import { createOrigin } from './origin/origin-app.ts'

// The signing variables are validated as the token worker validates them (never echoed).
const env: SigningEnv = {
  SECRET_KEY: 'local-dev-secret-change-me',
  CDN_DOMAIN: '127.0.0.1:8080',
  CDN_DOMAIN_IP: '127.0.0.1:8081',
  ...Object.fromEntries(Object.entries(process.env).filter(([, value]) => value)),
}
let secret: string
let domains: [string, string]
const previousSecret = process.env.PREVIOUS_SECRET_KEY || undefined
try {
  secret = String(signingVariable(env, 'SECRET_KEY', { required: true }))
  domains = [
    String(signingVariable(env, 'CDN_DOMAIN', { required: true })),
    String(signingVariable(env, 'CDN_DOMAIN_IP', { required: true })),
  ]
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`cdn-emulator: bad configuration: ${error.detail}`)
  process.exit(1)
}
const portOf = (hostPort: string, fallback: number) =>
  Number(/:(\d+)$/.exec(hostPort)?.[1] ?? fallback)
const hostname = '127.0.0.1'
const ports = {
  origin: Number(process.env.ORIGIN_PORT || 8090),
  plain: portOf(domains[0], 8080),
  ip: portOf(domains[1], 8081),
}

const origin = createOrigin({ mediaDir: fileURLToPath(new URL('../media/vod', import.meta.url)) })
const fromOrigin = (path: string) => origin.fetch(new Request(`http://origin${path}`))
serve({ fetch: origin.fetch, hostname, port: ports.origin })
serve({
  fetch: createCdn({ secret, previousSecret, ipBound: false, origin: fromOrigin }).fetch,
  hostname,
  port: ports.plain,
})
serve({
  fetch: createCdn({ secret, previousSecret, ipBound: true, origin: fromOrigin }).fetch,
  hostname,
  port: ports.ip,
})
console.log(
  `cdn-emulator: plain http://${hostname}:${ports.plain}, IP-bound http://${hostname}:${ports.ip}, origin http://${hostname}:${ports.origin}`,
)
