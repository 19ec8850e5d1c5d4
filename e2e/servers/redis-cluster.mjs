#!/usr/bin/env node
// A local Redis Cluster as an ordinary process of the e2e stack (like redis.mjs): three Debian
// redis-server --cluster-enabled on loopback ports, joined by `redis-cli --cluster create` into
// three shards without replicas. A small HTTP answer on REDIS_CLUSTER_READY_PORT says 200 once
// every node reports cluster_state:ok (the nodes' own ports open before the cluster exists).
// SIGTERM/SIGINT stop the three nodes.
//   REDIS_CLUSTER_PORTS (three comma-separated ports), REDIS_CLUSTER_READY_PORT, REDIS_DIR
import { execFile, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const ports = (process.env.REDIS_CLUSTER_PORTS ?? '').split(',').filter((p) => /^\d+$/.test(p))
const ready = process.env.REDIS_CLUSTER_READY_PORT ?? ''
const dir = process.env.REDIS_DIR ?? ''
if (ports.length !== 3 || !/^\d+$/.test(ready) || dir === '') {
  console.error(
    'redis-cluster.mjs: REDIS_CLUSTER_PORTS (three ports), REDIS_CLUSTER_READY_PORT and REDIS_DIR must be set',
  )
  process.exit(2)
}
if (spawnSync('redis-cli', ['--version']).error || spawnSync('redis-server', ['--version']).error) {
  console.error(
    'redis-cluster.mjs: redis-server or redis-cli not found; install them with: apt-get install -y redis-server',
  )
  process.exit(2)
}
// a cluster file of an earlier run names nodes that are gone: every run starts from none
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })

const nodes = ports.map((port) =>
  spawn(
    'redis-server',
    [
      ...['--port', port, '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
      ...['--logfile', ''],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  ),
)
const stop = () => {
  for (const node of nodes) node.kill('SIGTERM')
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
let exited = 0
for (const node of nodes)
  node.on('exit', (code) => {
    // one node gone is the cluster gone: stop the others and report it
    stop()
    if (++exited === nodes.length) process.exit(code ?? 1)
  })

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const accepts = (port) =>
  new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
const clusterOk = async () => {
  for (const port of ports) {
    const { stdout } = await run('redis-cli', ['-p', port, 'cluster', 'info'])
    if (!stdout.includes('cluster_state:ok')) return false
  }
  return true
}

let ok = false
createServer((_, res) => {
  res.writeHead(ok ? 200 : 503).end(ok ? 'cluster_state:ok\n' : 'starting\n')
}).listen(Number(ready), '127.0.0.1')

try {
  for (let i = 0; !(await Promise.all(ports.map(accepts))).every(Boolean); i++) {
    if (i > 100) throw new Error(`the nodes on ${ports} did not start`)
    await pause(100)
  }
  const addresses = ports.map((port) => `127.0.0.1:${port}`)
  await run('redis-cli', [
    ...['--cluster', 'create', ...addresses],
    ...['--cluster-replicas', '0', '--cluster-yes'],
  ])
  for (let i = 0; !(await clusterOk()); i++) {
    if (i > 100) throw new Error(`the cluster on ${ports} is not ok`)
    await pause(100)
  }
  ok = true
} catch (error) {
  console.error(`redis-cluster.mjs: ${error.message}`)
  stop() // the nodes' exits end this process
}
