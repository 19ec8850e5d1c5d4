// Ports for the servers a test or benchmark starts itself (redis-server, nginx, token backends).
// A port probed free with listen(0) lies inside the kernel's ephemeral range, which every outgoing
// connection (Chromium's, ffmpeg's, a Redis client's, fetch's) draws its source port from: one of
// them can take it before our server binds it, and the server fails with EADDRINUSE. Below that
// range only another listener can take a port, so the ports come from there, from a block of
// their own per parallel worker, clear of the stack's fixed ports.
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'

/** Where the port blocks lie: one settings object, {@link PORT_BLOCKS} its defaults. */
export interface PortBlockSettings {
  /** Ports in one worker's block. */
  readonly size: number
  /** Blocks per test runner: the runner's worker index is taken modulo this. */
  readonly workers: number
  /** Inclusive ranges no block may overlap: ports the stack listens on at fixed numbers. */
  readonly reserved: ReadonlyArray<readonly [number, number]>
}

/**
 * The blocks' defaults: 500 ports per worker, 8 workers per runner (more than this machine's
 * runners start), clear of the stack's fixed ports.
 *
 * @example
 * ```ts
 * portBlock(portSlot(process.env), ephemeralStart(), { ...PORT_BLOCKS, size: 100 })
 * ```
 */
export const PORT_BLOCKS: PortBlockSettings = {
  size: 500,
  workers: 8,
  reserved: [
    // the demo page (15173) and the playback benchmark's page (15174)
    [15100, 15199],
    // the e2e stack's servers (nginx, emulator, workers, redis, the cluster's 18391-18393)
    [18000, 18999],
    // a Redis Cluster node also listens on its port + 10000: the cluster's bus
    [28391, 28393],
  ],
}

/**
 * The first port of the kernel's ephemeral range: /proc/sys/net/ipv4/ip_local_port_range on
 * Linux, else 32768 (below the IANA range 49152 that other systems use, so still outside it).
 *
 * @example
 * ```ts
 * ephemeralStart() // 32768 on this machine
 * ```
 */
export function ephemeralStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    )
    if (first > 0) return first
  } catch {
    // not Linux
  }
  return 32768
}

/**
 * Which block a process probes: a Playwright worker (`TEST_PARALLEL_INDEX`) one of the first
 * `workers` blocks, a vitest worker (`VITEST_POOL_ID`, from 1) one of the next `workers`, any
 * other process (a benchmark, the floors check) the block after them. Workers that run side by
 * side have different indexes, so they never probe the same ports.
 *
 * @example
 * ```ts
 * portSlot({ TEST_PARALLEL_INDEX: '1' }) // 1
 * portSlot({ VITEST_POOL_ID: '1' }) // 8
 * portSlot({}) // 16
 * ```
 */
export function portSlot(
  env: Readonly<Record<string, string | undefined>>,
  { workers }: PortBlockSettings = PORT_BLOCKS,
): number {
  const playwright = Number.parseInt(env.TEST_PARALLEL_INDEX ?? '', 10)
  if (playwright >= 0) return playwright % workers
  const vitest = Number.parseInt(env.VITEST_POOL_ID ?? '', 10)
  if (vitest >= 1) return workers + ((vitest - 1) % workers)
  return 2 * workers
}

/**
 * The `slot`-th block (`from` inclusive, `to` exclusive) counted down from `below` (the start of
 * the ephemeral range), blocks that overlap a reserved range left out. With the defaults and the
 * range at 32768, Playwright's blocks are 28768-32767 (as e2e had them before vitest shared this)
 * vitest's 24268-28267 (28268-28767 left out: the cluster's bus) and any other process's
 * 23768-24267.
 *
 * @example
 * ```ts
 * portBlock(0, 32768) // { from: 32268, to: 32768 }
 * ```
 */
export function portBlock(
  slot: number,
  below: number,
  { size, reserved }: PortBlockSettings = PORT_BLOCKS,
): { from: number; to: number } {
  let to = below
  for (let seen = -1; ; to -= size) {
    const from = to - size
    // under 1024 a port needs privileges: a range starting that low leaves no room for blocks
    if (from < 1024) throw new Error(`freePort: no block ${slot} below port ${below}`)
    const clear = reserved.every(([first, last]) => last < from || first >= to)
    if (clear && ++seen === slot) return { from, to }
  }
}

/**
 * Whether `server` could listen on the loopback `port`. (Not a race of events.once: its
 * 'listening' waiter rejects on the 'error' first, so a busy port would throw, not be skipped.)
 *
 * @example
 * ```ts
 * const probe = createServer()
 * if (await listens(probe, 18380)) probe.close()
 * ```
 */
export function listens(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (bound: boolean) => () => {
      server.off('listening', onListening).off('error', onError)
      resolve(bound)
    }
    const onListening = settle(true)
    const onError = settle(false)
    server.once('listening', onListening).once('error', onError)
    server.listen(port, '127.0.0.1')
  })
}

/** How far into its block this process has probed: a port is handed out once per pass. */
let nextPort = -1

/**
 * A loopback port free right now, below the ephemeral range (see {@link portBlock}), for a server
 * started next: the next port of this worker's block that a probe can bind. Successive calls move
 * on through the block, so a server stopped for a while (a Redis restarted on its port) does not
 * see its port handed to another server meanwhile.
 *
 * @example
 * ```ts
 * const port = await freePort()
 * const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1'])
 * ```
 */
export async function freePort(): Promise<number> {
  const slot = portSlot(process.env)
  const { from, to } = portBlock(slot, ephemeralStart())
  const size = to - from
  if (nextPort < 0)
    // a process outside a test runner may run beside another one (a benchmark, the floors
    // check): starting at a point of its own, the two rarely probe the same port at once
    nextPort = slot === portSlot({}) ? process.pid % size : 0
  for (let tried = 0; tried < size; tried++) {
    const port = from + (nextPort++ % size)
    const probe = createServer()
    if (await listens(probe, port)) {
      await new Promise((resolve) => probe.close(resolve))
      return port
    }
  }
  throw new Error(`freePort: no free port in ${from}-${to - 1}`)
}
