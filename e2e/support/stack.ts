// Every server of the e2e run: the services of @proj/stack (the same definitions `npm start`
// runs) on loopback ports of their own (npm start's ports stay free), plus nginx as the CDN.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cdnEmulator, demo, ROOT, type Service, shellLine, tokenWorker } from '@proj/stack'

const scratch = join(ROOT, '.tmp', 'e2e')

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
  /**
   * Private nginx instances whose secret a test changes (two hosts per slot): slots 0-1 for the
   * secret-rotation spec, 2-7 for the rejecting-CDN spec, 8-9 for its DASH players.
   */
  rotationCdn: [
    18084, 18085, 18086, 18087, 18094, 18095, 18096, 18097, 18098, 18099, 18100, 18101, 18102,
    18103, 18104, 18105, 18106, 18107, 18108, 18109,
  ],
  /** ...and their own token workers (Node entry), restarted with each new secret: one per slot. */
  rotationToken: [18791, 18792, 18793, 18794, 18795, 18796, 18797, 18798, 18799, 18800],
  /** Token worker signing URLs on the nginx hosts. */
  tokenNginx: 18787,
  /** Token worker signing URLs on the emulator's hosts. */
  tokenEmulator: 18789,
  demo: 15173,
  /** The scale-out spec: the stack's redis-server, three Node instances on it, their balancer. */
  redis: 18379,
  fleet: [18801, 18802, 18803],
  balancer: 18810,
  /** ...and the same on the stack's Redis Cluster: its three nodes, its health answer (200 once ok). */
  redisCluster: [18391, 18392, 18393],
  redisClusterReady: 18390,
  clusterFleet: [18821, 18822, 18823],
  clusterBalancer: 18820,
  /** The stream-limits spec: a Node instance with viewer JWTs and STREAM_LIMIT. */
  streams: 18811,
  /** ...and one with STREAM_LIMIT_POLICY=evict-oldest (the stream-eviction spec). */
  streamsEvict: 18812,
} as const

/**
 * The stream-limited instances: their viewers' JWT secret, their limit, the grace of a `/token`
 * stream (short: a page that stops refreshing frees its slot soon after its token's expiry), and
 * the evicting instance's session leaf lifetime (short: an evicted session stops soon).
 */
export const STREAMS = {
  jwtSecret: 'e2e-stream-limits-jwt-secret-not-for-production',
  limit: 2,
  graceSeconds: 4,
  evictLeafSeconds: 5,
} as const

/** A fleet of the scale-out spec: three Node instances on one shared state, behind a balancer. */
export interface Fleet {
  name: string
  instances: readonly [number, number, number]
  balancer: number
}

/** The scale-out spec's fleets: on one redis-server, and on a three-shard Redis Cluster. */
export const FLEETS: readonly Fleet[] = [
  { name: 'one Redis', instances: PORTS.fleet, balancer: PORTS.balancer },
  { name: 'Redis Cluster', instances: PORTS.clusterFleet, balancer: PORTS.clusterBalancer },
]

/** The viewer rate limit of the fleet: token requests per viewer and minute, over all instances. */
export const FLEET_RATE_LIMIT = 9

/**
 * The address the balancer connects to the fleet from (`proxy_bind`): the fleet's only trusted
 * proxy (`TRUSTED_PROXIES`). Clients connect from other loopback addresses (all of 127.0.0.0/8
 * is this machine's), so the fleet can tell the balancer from a client that forges its headers.
 */
export const BALANCER_BIND = '127.0.0.2'

export type Cdn = 'nginx' | 'emulator'

/** Where the e2e nginx writes its access log (the CDN's view of every request). */
export const NGINX_ACCESS_LOG = join(scratch, 'nginx', 'access.log')

/** The token endpoint whose URLs point at `cdn`. */
export function tokenUrl(cdn: Cdn = 'nginx') {
  return `http://127.0.0.1:${cdn === 'nginx' ? PORTS.tokenNginx : PORTS.tokenEmulator}/token`
}

/** The variables of a token backend signing URLs for the CDN hosts on `plain` and `ip`. */
const signingVars = (plain: number, ip: number): Record<string, string> => ({
  SECRET_KEY: SECRET,
  CLIENT_ID,
  CDN_DOMAIN: `127.0.0.1:${plain}`,
  CDN_DOMAIN_IP: `127.0.0.1:${ip}`,
  CDN_SCHEME: 'http',
  ALLOWED_ORIGINS: '*',
  AUTH_MODE: 'none',
  // a test may speak for a viewer elsewhere (the session specs' networks); browsers and
  // players send no X-Forwarded-For, so for them it is wrangler's cf-connecting-ip
  IP_HEADERS: 'x-forwarded-for,cf-connecting-ip',
  SESSION_SECRET: SESSION.secret,
  SESSION_ADMIN_TOKEN: SESSION.adminToken,
  SESSION_LEAF_LIFETIME: String(SESSION.leafSeconds),
})

/** A token worker (wrangler dev) on `port` signing URLs for the CDN hosts on `plain` and `ip`. */
const signingFor = (port: number, plain: number, ip: number): Service => {
  mkdirSync(scratch, { recursive: true })
  const vars = join(scratch, `token-worker-${port}.vars`)
  const lines = Object.entries(signingVars(plain, ip)).map(([key, value]) => `${key}=${value}`)
  writeFileSync(vars, [...lines, ''].join('\n'))
  return { ...tokenWorker({ port, envFile: vars }), name: `token-worker-${port}` }
}

/**
 * The token backend's Node entry on `port`, signing for the stack's nginx, with `env` added
 * (REDIS_URL, the rate limit): an instance of a fleet, as an operator runs it.
 *
 * @example
 * ```ts
 * nodeTokenInstance(18801, { REDIS_URL: 'redis://127.0.0.1:18379' })
 * ```
 */
export function nodeTokenInstance(port: number, env: Record<string, string> = {}): Service {
  return {
    name: `token-node-${port}`,
    cwd: 'apps/token-worker',
    command: [process.execPath, 'src/node.ts'],
    env: {
      ...signingVars(PORTS.nginxPlain, PORTS.nginxIp),
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    readyUrl: `http://127.0.0.1:${port}/token?video=ready`,
  }
}

/** The stack's redis-server (servers/redis.mjs): ready when its port accepts connections. */
const redisServer = {
  name: 'redis',
  cwd: 'e2e',
  command: [process.execPath, 'servers/redis.mjs'],
  env: { REDIS_PORT: String(PORTS.redis), REDIS_DIR: join(scratch, 'redis') },
  readyPort: PORTS.redis,
}

/**
 * The stack's Redis Cluster (servers/redis-cluster.mjs): three shards, no replicas; ready when
 * its health port answers 200 (every node says cluster_state:ok).
 */
const redisCluster: Service = {
  name: 'redis-cluster',
  cwd: 'e2e',
  command: [process.execPath, 'servers/redis-cluster.mjs'],
  env: {
    REDIS_CLUSTER_PORTS: PORTS.redisCluster.join(','),
    REDIS_CLUSTER_READY_PORT: String(PORTS.redisClusterReady),
    REDIS_DIR: join(scratch, 'redis-cluster'),
  },
  readyUrl: `http://127.0.0.1:${PORTS.redisClusterReady}/`,
}

/** The instances of a fleet, each on the shared state `redis(i)` names, as an operator runs them. */
const fleetOf = (ports: readonly number[], redis: (i: number) => Record<string, string>) =>
  ports.map((port, i) =>
    nodeTokenInstance(port, {
      ...redis(i),
      // as an operator runs it behind a proxy: the viewer is what nginx saw, never a header
      // a client wrote (the spec's IP_HEADERS of the other backends trust anyone)
      IP_HEADERS: '',
      TRUSTED_PROXIES: BALANCER_BIND,
      RATE_LIMIT_REQUESTS: String(FLEET_RATE_LIMIT),
      RATE_LIMIT_PERIOD: '60',
    }),
  )

/** The variables of a stream-limited instance: viewer JWTs, the limit, a short grace. */
const streamLimited = {
  AUTH_MODE: 'jwt',
  JWT_SECRET: STREAMS.jwtSecret,
  STREAM_LIMIT: String(STREAMS.limit),
  STREAM_GRACE: String(STREAMS.graceSeconds),
}

/** A process of the e2e run: a service of the stack, or one that speaks no HTTP (redis). */
type E2eService = Service | (Omit<Service, 'readyUrl'> & { readyPort: number })

/**
 * The e2e stack: redis-server and a three-shard Redis Cluster, the CDN emulator (with the origin
 * nginx proxies to), nginx (with two balancers), a token worker per CDN, the demo as a production
 * build, and two fleets of three Node instances of the token backend: on the one Redis, on the
 * cluster.
 *
 * @example
 * ```ts
 * e2eStack().map((service) => service.name)
 * ```
 */
export function e2eStack(): E2eService[] {
  return [
    redisServer,
    redisCluster,
    cdnEmulator({
      readyUrl: `http://127.0.0.1:${PORTS.origin}/vod/healthcheck/master.m3u8`,
      env: {
        SECRET_KEY: SECRET,
        ORIGIN_PORT: String(PORTS.origin),
        CDN_DOMAIN: `127.0.0.1:${PORTS.emulatorPlain}`,
        CDN_DOMAIN_IP: `127.0.0.1:${PORTS.emulatorIp}`,
      },
    }),
    {
      name: 'nginx',
      cwd: 'e2e',
      command: [process.execPath, 'servers/nginx.mjs'],
      readyUrl: `http://127.0.0.1:${PORTS.nginxPlain}/healthz`,
      env: {
        SECRET_KEY: SECRET,
        ORIGIN_PORT: String(PORTS.origin),
        NGINX_PLAIN_PORT: String(PORTS.nginxPlain),
        NGINX_IP_PORT: String(PORTS.nginxIp),
        NGINX_PREFIX: join(scratch, 'nginx'),
        NGINX_BALANCER_PORT: FLEETS.map((fleet) => fleet.balancer).join(';'),
        NGINX_BALANCER_UPSTREAMS: FLEETS.map((fleet) => fleet.instances.join(',')).join(';'),
        NGINX_BALANCER_BIND: BALANCER_BIND,
      },
    },
    signingFor(PORTS.tokenNginx, PORTS.nginxPlain, PORTS.nginxIp),
    signingFor(PORTS.tokenEmulator, PORTS.emulatorPlain, PORTS.emulatorIp),
    demo({ port: PORTS.demo, build: true }),
    // three instances on one Redis, three on the cluster, each behind a balancer: the scale-out spec
    ...fleetOf(PORTS.fleet, () => ({ REDIS_URL: `redis://127.0.0.1:${PORTS.redis}` })),
    // each instance told another node of the three: it discovers the others
    ...fleetOf(PORTS.clusterFleet, (i) => ({
      REDIS_URL: `redis://127.0.0.1:${PORTS.redisCluster[i]}`,
      REDIS_CLUSTER: 'true',
    })),
    // stream limits: a viewer is a JWT's sub, two streams each (the stream-limits spec)
    nodeTokenInstance(PORTS.streams, streamLimited),
    // ...and where the newest stream ends the oldest (the stream-eviction spec)
    nodeTokenInstance(PORTS.streamsEvict, {
      ...streamLimited,
      STREAM_LIMIT_POLICY: 'evict-oldest',
      SESSION_LEAF_LIFETIME: String(STREAMS.evictLeafSeconds),
    }),
  ]
}

/**
 * Playwright `webServer` entries for `services`: started before the tests, stopped after them.
 *
 * @example
 * ```ts
 * defineConfig({ webServer: webServers() })
 * ```
 */
export function webServers(services: E2eService[] = e2eStack()) {
  return services.map((service) => ({
    command: shellLine(service.command),
    cwd: join(ROOT, service.cwd),
    ...('readyPort' in service ? { port: service.readyPort } : { url: service.readyUrl }),
    env: service.env,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
  }))
}
