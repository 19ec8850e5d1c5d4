/**
 * How the Node server stops: on SIGTERM/SIGINT, without dropping the requests in flight (within
 * a grace), the audit lines written last. Apart from `serveTokenApp`, which only wires it in.
 */
import type { Server } from 'node:http'

/** How long open requests may run after SIGTERM/SIGINT before their connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000

/**
 * Until SIGTERM/SIGINT: then no new connections, open requests finish (idle keep-alive
 * connections are closed as they become idle), connections still open after
 * {@link SHUTDOWN_GRACE_MS} are cut; the audit lines are written last. A second signal cuts
 * at once.
 *
 * @example
 * ```ts
 * const stopper = stopOnSignals(server, { flush, onStopped: process.exit, log, where: ':8787' })
 * ```
 */
export function stopOnSignals(
  server: Server,
  {
    flush,
    onStopped,
    log,
    where,
  }: { flush(): void; onStopped(code: number): void; log(message: string): void; where: string },
): { fail(code: number): void } {
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
  return { fail: finish }
}
