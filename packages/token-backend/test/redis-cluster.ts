import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort, type RedisServer, startRedisServer } from './redis-server.ts'

const run = promisify(execFile)

/**
 * The longest {@link startRedisCluster} takes, its steps' bounds added up: the timeout of the
 * `beforeAll` that starts one (vitest's default of 10 s is less than a loaded machine needs).
 */
export const CLUSTER_START_TIMEOUT_MS = 40_000

/** A local Redis Cluster of a Node test: three masters, no replicas, every slot assigned. */
export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of each node. */
  readonly urls: readonly string[]
  readonly nodes: readonly RedisServer[]
  stop(): Promise<void>
}

/**
 * Starts three `redis-server --cluster-enabled yes` on free loopback ports (no persistence, their
 * cluster files in a temporary folder), joins them with `redis-cli --cluster create` (three
 * shards, no replicas) and waits until every node says `cluster_state:ok`. Stop it in `afterAll`.
 * About 2 s on an idle machine; each step is bounded (a node's start 10 s, the join 15 s, the
 * agreement 10 s), so give the hook that calls it {@link CLUSTER_START_TIMEOUT_MS}.
 *
 * @example
 * ```ts
 * const redis = await startRedisCluster()
 * const client = await connectRedisCluster(redis.urls)
 * afterAll(() => redis.stop())
 * ```
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'))
  const started = await Promise.allSettled(
    [0, 1, 2].map(async (i) =>
      startRedisServer([
        '--cluster-enabled',
        'yes',
        // a bus port of its own: port + 10,000 (the default) is another process's to take, and
        // past 65,535 for a data port above 55,535, where redis-server refuses to start
        '--cluster-port',
        String(await freePort()),
        '--cluster-config-file',
        join(dir, `nodes-${i}.conf`),
        '--dir',
        dir,
      ]),
    ),
  )
  const nodes = started.flatMap((node) => (node.status === 'fulfilled' ? [node.value] : []))
  const failed = started.find((node): node is PromiseRejectedResult => node.status === 'rejected')
  if (failed !== undefined) {
    // the nodes that did start do not outlive the failure
    await Promise.all(nodes.map((node) => node.stop()))
    await rm(dir, { recursive: true, force: true })
    throw failed.reason
  }
  const addresses = nodes.map((node) => node.url.replace('redis://', ''))
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    // bounded: it waits for the nodes to agree (a second or two; longer on a loaded machine)
    await run(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
      { timeout: 15_000 },
    )
    await clusterOk(addresses)
  } catch (err) {
    await stop()
    throw err
  }
  return { urls: nodes.map((node) => node.url), nodes, stop }
}

/** Waits (10 s at most) until every node of `addresses` (`host:port`) reports `cluster_state:ok`. */
async function clusterOk(addresses: readonly string[]): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const states = await Promise.all(
      addresses.map(async (address) => {
        const [host = '', port = ''] = address.split(':')
        const { stdout } = await run('redis-cli', ['-h', host, '-p', port, 'cluster', 'info'], {
          timeout: 2000,
        })
        return stdout.includes('cluster_state:ok')
      }),
    )
    if (states.every(Boolean)) return
    if (Date.now() > deadline) throw new Error(`the cluster ${addresses.join(' ')} is not ok`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
