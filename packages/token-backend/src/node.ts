/**
 * The token backend on Node (`@proj/token-backend/node`): the same app with Node's faster MD5 and
 * batched stdout audit lines, served by `@hono/node-server`. A separate entry, so a Worker's
 * bundle never sees `node:` modules.
 */
import { createServer } from 'node:http'
import { getRequestListener, type ServerType } from '@hono/node-server'
import { parseIpRanges } from '@proj/signing'
import { nodeMd5Digest } from '@proj/signing/node'
import type { Env } from 'hono'
import type { BlankEnv } from 'hono/types'
import {
  type CustomAuthorizerAppOptions,
  createTokenApp,
  type TokenApp,
  type TokenAppOptions,
} from './app.ts'
import { type AuditSink, batchedLines } from './audit-log.ts'
import {
  ConfigError,
  type CustomAuthorizerConfigInput,
  configFromEnv,
  type RedisConfig,
  type TokenBackendConfig,
  type TokenBackendEnv,
  tokenConfig,
} from './config.ts'
import { SHUTDOWN_GRACE_MS, stopOnSignals } from './node-shutdown.ts'
import {
  answerClientErrors,
  hostRefusal,
  unparsableRequest,
  withLocalHost,
} from './node-unparsable.ts'
import { holdsState, instancesFrom, scaledOut } from './scale-out.ts'
import { cachedSessionStore } from './session/cached-session-store.ts'

export { batchedLines } from './audit-log.ts'
export { SHUTDOWN_GRACE_MS } from './node-shutdown.ts'
export {
  answerClientErrors,
  hostRefusal,
  unparsableRequest,
  withLocalHost,
} from './node-unparsable.ts'

let stdout: (AuditSink & { flush(): void }) | undefined

/**
 * Audit lines to `process.stdout`, one write per event-loop turn; what is still buffered is
 * written when the process exits or is stopped by SIGINT/SIGTERM. One sink per process, however
 * many apps use it (one set of exit handlers).
 *
 * @example
 * ```ts
 * const app = createTokenApp({ config, audit: stdoutAudit() })
 * ```
 */
export function stdoutAudit(): AuditSink & { flush(): void } {
  if (stdout) return stdout
  const audit = batchedLines(process.stdout)
  process.on('exit', audit.flush)
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, function flushThenStop() {
      audit.flush()
      // a listener replaces the signal's default action: restore it, unless someone else
      // (serveTokenApp's graceful stop) handles the signal and exits in its own time
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
    })
  stdout = audit
  return audit
}

/**
 * {@link createTokenApp} with Node's defaults: `nodeMd5Digest` (Node's own MD5, faster than the
 * portable one, same tokens) and {@link stdoutAudit}; any option of yours wins.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono'
 * const app = new Hono().route('/video', createNodeTokenApp({ config: configFromEnv(process.env) }))
 * ```
 */
export function createNodeTokenApp<E extends Env = BlankEnv>(
  options: TokenAppOptions<E> | CustomAuthorizerAppOptions<E> = {},
): TokenApp<E> {
  return createTokenApp<E>({
    digest: nodeMd5Digest,
    ...options,
    audit: options.audit ?? stdoutAudit(),
  })
}

/** Longest wait for Redis (`REDIS_URL`) at start, handshake included, before giving up. */
export const REDIS_START_TIMEOUT_MS = 3_000

/** What {@link serveTokenApp} takes: the app's options, where it listens, where its config is. */
export interface ServeTokenAppOptions extends Omit<TokenAppOptions, 'config'> {
  /**
   * Default: the variables of `env`, validated before listening. `auth` (`AUTH_MODE`) may be
   * left out only with your own `authorize`.
   */
  config?: CustomAuthorizerConfigInput
  /** The variables read when no `config` is given (default `process.env`). */
  env?: TokenBackendEnv
  /** Default `PORT`, else 8787. */
  port?: number
  /** Default `HOST`, else 127.0.0.1. */
  hostname?: string
  /**
   * Default `true`: SIGTERM/SIGINT stop the server gracefully (no new connections, open
   * requests finish, at most {@link SHUTDOWN_GRACE_MS}; a second signal cuts at once), the audit
   * lines are written, then `onStopped`. `false`: the process and its signals are yours.
   */
  signals?: boolean
  /**
   * With `signals`: called once, after a graceful stop (0), a stop that had to cut requests (1),
   * a failure to listen (1) or to reach Redis at start (`REDIS_URL`, 1). Default: exit the
   * process with that code. Without `signals`, those failures are the server's `error` event.
   */
  onStopped?: (code: number) => void
  /**
   * Where the stop's messages, the Redis connection's and the start's warnings go (default
   * standard error, `token-backend: …`).
   */
  log?: (message: string) => void
  /**
   * How many instances serve together behind one balancer; only for the warning logged at start
   * when they would not share state (no `REDIS_URL`). Default `INSTANCES`, else 1; a Node
   * cluster worker or a PM2 cluster instance (`NODE_APP_INSTANCE`) counts as several.
   */
  instances?: number
}

/**
 * Serves the token app on Node. The configuration is validated before anything listens: a bad
 * one throws a {@link ConfigError} naming the variable (or field), never its value. SIGTERM and
 * SIGINT stop it gracefully and exit 0 (see {@link ServeTokenAppOptions.signals}).
 *
 * With `REDIS_URL` (`config.redis.url`), several instances share their sessions, rate limits and
 * viewers' streams:
 * it connects first (within {@link REDIS_START_TIMEOUT_MS}; else `onStopped(1)`, or the server's
 * `error` event without `signals`, the message free of the URL), listens after, and closes the
 * connection when the server closes. Without it, and counted as one of several instances
 * ({@link ServeTokenAppOptions.instances}), it logs once that this state is per process.
 *
 * @example
 * ```ts
 * serveTokenApp({ port: 8787 }, ({ url }) => console.log(`listening on ${url}token`))
 * ```
 */
export function serveTokenApp(
  {
    config,
    env = process.env,
    port,
    hostname,
    signals = true,
    onStopped = exitWith,
    log = toStderr,
    instances,
    ...options
  }: ServeTokenAppOptions = {},
  onListening?: (info: { port: number; url: string }) => void,
): ServerType {
  // validated before anything is set up (exit handlers, the socket)
  const reading = { customAuthorizer: options.authorize !== undefined }
  const valid = config === undefined ? configFromEnv(env, reading) : tokenConfig(config, reading)
  const several = scaledOut(instances ?? instancesFrom(process.env))
  const trusting = headerTrust(valid)
  const audit = options.audit ?? stdoutAudit()
  const host = hostname ?? process.env.HOST ?? '127.0.0.1'
  const listening = port ?? Number(process.env.PORT ?? 8787)
  // valid: auth may only be missing with an authorizer, which createTokenApp reads the same way
  const appOf = (more: Partial<TokenAppOptions>) =>
    createNodeTokenApp({ ...options, ...more, audit, config: valid } as CustomAuthorizerAppOptions)
  let fetchWith: TokenApp['fetch'] | undefined
  // createAdaptorServer's work, by hand: it does not pass an errorHandler on to the listener
  const server = createServer(
    // Node's own refusal of an HTTP/1.1 request without Host has an empty body: ours names it
    { requireHostHeader: false },
    getRequestListener(
      (request: Request, env: Parameters<TokenApp['fetch']>[1]) =>
        hostRefusal(request, env) ?? (fetchWith ?? notReady)(withLocalHost(request, env), env),
      // bracketed when IPv6: the URL of a request without Host is built from it
      { hostname: host.includes(':') ? `[${host}]` : host, errorHandler: unparsableRequest },
    ),
  )
  answerClientErrors(server)
  let closed = false
  server.once('close', () => {
    closed = true
  })
  const listen = () => {
    if (closed) return
    if (trusting !== undefined && !isLoopback(host))
      log(
        `listening on ${host} while ${trusting}: any caller that reaches this port can choose the viewer's address (rate limits, IP-bound tokens, session networks); listen on 127.0.0.1 behind your proxy, or set TRUSTED_PROXIES to the proxies' addresses only`,
      )
    server.listen(listening, host, () => {
      const { port: bound } = server.address() as { port: number }
      // an IPv6 address is bracketed in a URL (http://[::1]:8787/)
      const named = host.includes(':') ? `[${host}]` : host
      onListening?.({ port: bound, url: `http://${named}:${bound}/` })
    })
  }
  const stopper = signals
    ? stopOnSignals(server, {
        flush: () => (audit as { flush?: () => void }).flush?.(),
        onStopped,
        log,
        where: `${host}:${listening}`,
      })
    : undefined
  const { redis } = valid
  if (redis === undefined) {
    if (several && holdsState(valid))
      log(
        'several instances without REDIS_URL: session revocations, the networks counted per session, rate limits and stream limits are per process, so each instance enforces its own; set REDIS_URL to share them',
      )
    fetchWith = appOf({}).fetch
    listen()
    return server
  }
  // Redis first: an instance that cannot share its state must not serve with a private one
  connectShared(redis, log).then(
    ({ client, stores }) => {
      if (closed) {
        void client.close()
        return
      }
      server.once('close', () => void client.close().catch(() => undefined))
      // the app's own recipe for a remote store: most leaf requests answered from this
      // process for a second, sessions already playing kept through a short outage
      const shared = cachedSessionStore(stores.redisSessionStore(client), { now: options.now })
      fetchWith = appOf({
        sessions: options.sessions ?? shared,
        rateLimit: options.rateLimit ?? ((limit) => stores.redisLimit(client, limit)),
        streams: options.streams ?? stores.redisStreamStore(client),
      }).fetch
      listen()
    },
    (error: Error) => {
      if (closed) return
      closed = true
      if (stopper) {
        log(error.message)
        // 1, not the 2 of a bad configuration: Redis may be back on the next restart
        stopper.fail(1)
      } else server.emit('error', error)
    },
  )
  return server
}

/** What of the viewer's address a configuration takes from headers any caller can write, if anything. */
function headerTrust({ ipHeaders, trustedProxies }: TokenBackendConfig): string | undefined {
  if (ipHeaders !== undefined) return `trusting ${ipHeaders.join(', ')} (IP_HEADERS) from anyone`
  const ranges = trustedProxies && parseIpRanges(trustedProxies)
  if (ranges && 'ranges' in ranges && ranges.ranges.open)
    return 'trusting X-Forwarded-For from every address (TRUSTED_PROXIES has a /0)'
  return undefined
}

/** Whether `host` (what the server listens on) is reachable only from this machine. */
function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  const parsed = parseIpRanges(['127.0.0.0/8', '::1'])
  return 'ranges' in parsed && parsed.ranges.has(host.replace(/^\[|\]$/g, ''))
}

/** Answers a request that somehow arrives before the app exists (nothing listens before). */
function notReady(): Response {
  return Response.json({ error: 'starting' }, { status: 503, headers: { 'retry-after': '1' } })
}

/**
 * The Redis entry loaded only when `REDIS_URL` is set (the `redis` package is an optional peer),
 * connected within {@link REDIS_START_TIMEOUT_MS}. Rejects with a message that names neither
 * the URL nor its password.
 */
async function connectShared({ url, cluster: many }: RedisConfig, log: (line: string) => void) {
  const stores = await import('./redis/index.ts').catch((error: Error) => {
    throw /Cannot find (?:package|module) 'redis'/.test(error.message)
      ? new Error('REDIS_URL is set but the redis package is not installed: npm install redis')
      : error
  })
  // a cluster's client serves the same stores: every operation of theirs touches one key
  const connecting = many
    ? stores.connectRedisCluster([url], { log })
    : stores.connectRedis(url, { log })
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // a connection that comes after all is not kept
      connecting.then(
        (late) => late.destroy(),
        () => undefined,
      )
      reject(
        new Error(`cannot connect to redis within ${REDIS_START_TIMEOUT_MS / 1000} s (REDIS_URL)`),
      )
    }, REDIS_START_TIMEOUT_MS)
  })
  try {
    const client = await Promise.race([connecting, deadline])
    return { client, stores }
  } catch (error) {
    throw new Error(withoutSecret((error as Error).message, url))
  } finally {
    clearTimeout(timer)
  }
}

/** A message with the URL and its password taken out, whatever the client put in it. */
function withoutSecret(message: string, url: string): string {
  const { password } = new URL(url)
  let clean = message.replaceAll(url, 'REDIS_URL')
  if (password === '') return clean
  clean = clean.replaceAll(password, '***')
  try {
    return clean.replaceAll(decodeURIComponent(password), '***')
  } catch {
    return clean // not valid percent-encoding: only its encoded form can appear
  }
}

function exitWith(code: number): void {
  process.exit(code)
}

function toStderr(message: string): void {
  console.error(`token-backend: ${message}`)
}
