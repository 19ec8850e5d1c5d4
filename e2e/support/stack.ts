// Every server of the e2e run, on loopback ports of their own (npm start's ports stay free).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bin, WRANGLER_ENV } from '../../scripts/stack-tools.mjs'

const root = join(import.meta.dirname, '..', '..')
const scratch = join(root, '.tmp', 'e2e')

/** A fixed test secret shared by the token workers, nginx and the emulator. */
export const SECRET = 'e2e-secret-not-for-production'
export const CLIENT_ID = '12345'
/** Sessions of the nginx token worker: their secret, the operator's token and leaf lifetime. */
export const SESSION = {
  secret: 'e2e-session-secret-not-for-production',
  adminToken: 'e2e-admin-token-not-for-production!!',
  leafSeconds: 10,
} as const

export const PORTS = {
  nginxPlain: 18080,
  nginxIp: 18081,
  emulatorPlain: 18082,
  emulatorIp: 18083,
  origin: 18090,
  /** The secret-rotation spec's own nginx (two hosts per test, one test per player). */
  rotationCdn: [18084, 18085, 18086, 18087],
  /** ...and its own token workers (Node entry), restarted with each new secret. */
  rotationToken: [18791, 18792],
  /** Token worker signing URLs on the nginx hosts. */
  tokenNginx: 18787,
  /** Token worker signing URLs on the emulator's hosts. */
  tokenEmulator: 18789,
  demo: 15173,
} as const

export type Cdn = 'nginx' | 'emulator'

/** Where the e2e nginx writes its access log (the CDN's view of every request). */
export const NGINX_ACCESS_LOG = join(scratch, 'nginx', 'access.log')

/** The token endpoint whose URLs point at `cdn`. */
export const tokenUrl = (cdn: Cdn = 'nginx') =>
  `http://127.0.0.1:${cdn === 'nginx' ? PORTS.tokenNginx : PORTS.tokenEmulator}/token`

/** A command line: Node running a script directly, so stopping it stops its children too. */
const node = (script: string, ...args: string[]) =>
  [process.execPath, JSON.stringify(script), ...args].join(' ')
const binScript = (cwd: string, pkg: string, script: string) => bin(cwd, pkg, script)[1]

const tokenWorker = (port: number, plain: number, ip: number) => {
  mkdirSync(scratch, { recursive: true })
  const vars = join(scratch, `token-worker-${port}.vars`)
  writeFileSync(
    vars,
    [
      `SECRET_KEY=${SECRET}`,
      `CLIENT_ID=${CLIENT_ID}`,
      `CDN_DOMAIN=127.0.0.1:${plain}`,
      `CDN_DOMAIN_IP=127.0.0.1:${ip}`,
      'CDN_SCHEME=http',
      'ALLOWED_ORIGINS=*',
      'AUTH_MODE=none',
      // a test may speak for a viewer elsewhere (the session specs' networks); browsers and
      // players send no X-Forwarded-For, so for them it is wrangler's cf-connecting-ip
      'IP_HEADERS=x-forwarded-for,cf-connecting-ip',
      `SESSION_SECRET=${SESSION.secret}`,
      `SESSION_ADMIN_TOKEN=${SESSION.adminToken}`,
      `SESSION_LEAF_LIFETIME=${SESSION.leafSeconds}`,
      '',
    ].join('\n'),
  )
  return {
    command: node(
      binScript('apps/token-worker', 'wrangler', 'bin/wrangler.js'),
      'dev',
      '--ip 127.0.0.1',
      `--port ${port}`,
      `--inspector-port ${port + 1000}`,
      `--env-file ${JSON.stringify(vars)}`,
    ),
    cwd: join(root, 'apps/token-worker'),
    url: `http://127.0.0.1:${port}/token?video=ready`,
    env: WRANGLER_ENV,
  }
}

/** Playwright `webServer` entries: started before the tests, stopped after them. */
export const webServers = () => {
  const shared = {
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  } as const
  return [
    {
      ...shared,
      // the origin (nginx proxies to it) and the emulator's two hosts, one process
      command: node(join(root, 'apps/cdn-emulator/src/main.ts')),
      url: `http://127.0.0.1:${PORTS.origin}/vod/healthcheck/master.m3u8`,
      env: {
        SECRET_KEY: SECRET,
        ORIGIN_PORT: String(PORTS.origin),
        CDN_DOMAIN: `127.0.0.1:${PORTS.emulatorPlain}`,
        CDN_DOMAIN_IP: `127.0.0.1:${PORTS.emulatorIp}`,
      },
    },
    {
      ...shared,
      command: node(join(root, 'e2e/servers/nginx.mjs')),
      url: `http://127.0.0.1:${PORTS.nginxPlain}/healthz`,
      env: {
        SECRET_KEY: SECRET,
        ORIGIN_PORT: String(PORTS.origin),
        NGINX_PLAIN_PORT: String(PORTS.nginxPlain),
        NGINX_IP_PORT: String(PORTS.nginxIp),
        NGINX_PREFIX: join(scratch, 'nginx'),
      },
    },
    { ...shared, ...tokenWorker(PORTS.tokenNginx, PORTS.nginxPlain, PORTS.nginxIp) },
    { ...shared, ...tokenWorker(PORTS.tokenEmulator, PORTS.emulatorPlain, PORTS.emulatorIp) },
    {
      ...shared,
      // a production build: vite's dev server may re-optimise dependencies and reload mid-test
      command: `${node(binScript('apps/demo', 'vite', 'bin/vite.js'), 'build')} && ${node(binScript('apps/demo', 'vite', 'bin/vite.js'), 'preview')}`,
      cwd: join(root, 'apps/demo'),
      url: `http://127.0.0.1:${PORTS.demo}/`,
      env: { DEMO_PORT: String(PORTS.demo) },
    },
  ]
}
