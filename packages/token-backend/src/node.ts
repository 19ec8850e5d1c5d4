/**
 * The token backend on Node (`@proj/token-backend/node`): the same app with Node's faster MD5 and
 * batched stdout audit lines, served by `@hono/node-server`. A separate entry, so a Worker's
 * bundle never sees `node:` modules.
 */
import type { Server } from 'node:http'
import { type ServerType, serve } from '@hono/node-server'
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
  type CustomAuthorizerConfigInput,
  configFromEnv,
  type TokenWorkerEnv,
  tokenConfig,
} from './config.ts'

export { batchedLines } from './audit-log.ts'

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

/** How long open requests may run after SIGTERM/SIGINT before their connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000

/** What {@link serveTokenApp} takes: the app's options, where it listens, where its config is. */
export interface ServeTokenAppOptions extends Omit<TokenAppOptions, 'config'> {
  /**
   * Default: the variables of `env`, validated before listening. `auth` (`AUTH_MODE`) may be
   * left out only with your own `authorize`.
   */
  config?: CustomAuthorizerConfigInput
  /** The variables read when no `config` is given (default `process.env`). */
  env?: TokenWorkerEnv
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
   * With `signals`: called once, after a graceful stop (0), a stop that had to cut requests (1)
   * or a failure to listen (1). Default: exit the process with that code.
   */
  onStopped?: (code: number) => void
  /** With `signals`: where the stop's messages go (default standard error, `token-backend: …`). */
  log?: (message: string) => void
}

/**
 * Serves the token app on Node. The configuration is validated before anything listens: a bad
 * one throws a {@link ConfigError} naming the variable (or field), never its value. SIGTERM and
 * SIGINT stop it gracefully and exit 0 (see {@link ServeTokenAppOptions.signals}).
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
    ...options
  }: ServeTokenAppOptions = {},
  onListening?: (info: { port: number; url: string }) => void,
): ServerType {
  // validated before anything is set up (exit handlers, the socket)
  const reading = { customAuthorizer: options.authorize !== undefined }
  const valid = config === undefined ? configFromEnv(env, reading) : tokenConfig(config, reading)
  const audit = options.audit ?? stdoutAudit()
  // valid: auth may only be missing with an authorizer, which createTokenApp reads the same way
  const app = createNodeTokenApp({ ...options, audit, config: valid } as CustomAuthorizerAppOptions)
  const host = hostname ?? process.env.HOST ?? '127.0.0.1'
  const listening = port ?? Number(process.env.PORT ?? 8787)
  const server = serve({ fetch: app.fetch, port: listening, hostname: host }, (info) =>
    onListening?.({ port: info.port, url: `http://${host}:${info.port}/` }),
  )
  // Without a key/cert it is an http.Server (the type also admits HTTP/2 servers).
  if (signals)
    stopOnSignals(server as Server, {
      flush: () => (audit as { flush?: () => void }).flush?.(),
      onStopped,
      log,
      where: `${host}:${listening}`,
    })
  return server
}

function exitWith(code: number): void {
  process.exit(code)
}

function toStderr(message: string): void {
  console.error(`token-backend: ${message}`)
}

/**
 * Until SIGTERM/SIGINT: then no new connections, open requests finish (idle keep-alive
 * connections are closed as they become idle), connections still open after
 * {@link SHUTDOWN_GRACE_MS} are cut; the audit lines are written last. A second signal cuts
 * at once.
 */
function stopOnSignals(
  server: Server,
  {
    flush,
    onStopped,
    log,
    where,
  }: { flush(): void; onStopped(code: number): void; log(message: string): void; where: string },
): void {
  let stopping = false
  let cut = false
  let finished = false
  const finish = (code: number) => {
    if (finished) return
    finished = true
    process.off('SIGTERM', stop)
    process.off('SIGINT', stop)
    flush()
    // the last lines reach the pipe before the process may exit
    process.stdout.write('', () => onStopped(code))
  }
  const cutAll = () => {
    cut = true
    server.closeAllConnections()
  }
  function stop(signal: NodeJS.Signals) {
    if (stopping) {
      log(`${signal} again: closing the open connections now`)
      cutAll()
      return
    }
    stopping = true
    log(
      `${signal}: not accepting connections, letting open requests finish (at most ${SHUTDOWN_GRACE_MS / 1000} s)`,
    )
    const deadline = setTimeout(cutAll, SHUTDOWN_GRACE_MS)
    // keep-alive connections left idle by a request that just finished
    const sweep = setInterval(() => server.closeIdleConnections(), 100)
    server.close(() => {
      clearTimeout(deadline)
      clearInterval(sweep)
      log(cut ? 'stopped; requests still open were cut' : 'stopped')
      finish(cut ? 1 : 0)
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  server.once('error', (error: NodeJS.ErrnoException) => {
    if (stopping) return
    log(`cannot listen on ${where}: ${error.code ?? error.message}`)
    finish(1)
  })
  // closed by its owner (not by a signal): the signals are the process's again
  server.once('close', () => {
    if (stopping) return
    process.off('SIGTERM', stop)
    process.off('SIGINT', stop)
  })
}
