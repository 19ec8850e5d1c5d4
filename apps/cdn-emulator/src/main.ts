#!/usr/bin/env node
// proj-cdn-emulator: the local CDN for `npm start`, the e2e stack and QA (`npm run cdn-emulator`):
// an origin serving a media folder and two token-checking hosts (plain and IP-bound) in front of
// it, configured like the token backend. Arguments and variables: cli.ts (`--help`).
import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { serve } from '@hono/node-server'
import { ConfigError, type SigningEnv, signingVariable } from '@proj/signing/config'
import { createCdn } from './cdn/cdn-app.ts'
import { parseCommandLine, USAGE } from './cli.ts'
import { VOD_MEDIA_DIR } from './media.ts'
import { createOrigin } from './origin/origin-app.ts'

const NAME = 'proj-cdn-emulator'

/** Bad arguments or settings: named, with the usage line, exit 2 before anything listens. */
function refuse(message: string): never {
  console.error(`${NAME}: ${message}\n${USAGE.split('\n')[0]}\n(${NAME} --help for more)`)
  process.exit(2)
}

const request = parseCommandLine(process.argv.slice(2), process.env)
if ('help' in request) {
  console.log(USAGE)
  process.exit(0)
}
if ('error' in request) refuse(request.error)
const { settings } = request

const mediaDir = settings.mediaDir === undefined ? VOD_MEDIA_DIR : resolve(settings.mediaDir)
if (!existsSync(mediaDir) || !statSync(mediaDir).isDirectory())
  refuse(`--media ${mediaDir}: no such folder`)
if (!existsSync(resolve(mediaDir, 'master.m3u8')))
  refuse(
    `--media ${mediaDir}: no master.m3u8 in it (a media folder holds master.m3u8 and its rendition folders, each with index.m3u8)`,
  )

// The signing variables are validated as the token backend validates them (never echoed).
const env: SigningEnv = {
  SECRET_KEY: 'local-dev-secret-change-me',
  ...Object.fromEntries(Object.entries(process.env).filter(([, value]) => value)),
}
let secret = ''
try {
  secret = String(signingVariable(env, 'SECRET_KEY', { required: true }))
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  refuse(`bad configuration: ${error.detail}`)
}
const previousSecret = process.env.PREVIOUS_SECRET_KEY || undefined

/** What listens where: the name in messages and the option that moves it. */
interface Role {
  name: string
  option: string
}

/** Listens on `port`; resolves with the port bound (a free one for 0), or exits 1 when taken. */
function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  role: Role,
): Promise<number> {
  return new Promise((done) => {
    const server = serve({ fetch, hostname: settings.hostname, port }, (info) => done(info.port))
    server.on('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is in use (another emulator, or npm start?)'
          : `cannot be opened (${error.code ?? error.message})`
      console.error(
        `${NAME}: port ${port} on ${settings.hostname} (the ${role.name}) ${why}; choose another with ${role.option}`,
      )
      process.exit(1)
    })
  })
}

const origin = createOrigin({ mediaDir })
const fromOrigin = (path: string, init: { headers: Headers }) =>
  origin.fetch(new Request(`http://origin${path}`, init))
const host = (ipBound: boolean) =>
  createCdn({ secret, previousSecret, ipBound, origin: fromOrigin })
const originPort = await listen(origin.fetch, settings.ports.origin, {
  name: 'origin',
  option: '--origin-port',
})
const plainPort = await listen(host(false).fetch, settings.ports.plain, {
  name: 'plain host',
  option: '--port',
})
const ipPort = await listen(host(true).fetch, settings.ports.ip, {
  name: 'IP-bound host',
  option: '--ip-port',
})
const at = (port: number) =>
  `http://${settings.hostname.includes(':') ? `[${settings.hostname}]` : settings.hostname}:${port}`
console.log(
  `cdn-emulator: plain ${at(plainPort)}, IP-bound ${at(ipPort)}, origin ${at(originPort)}; media ${mediaDir}`,
)
