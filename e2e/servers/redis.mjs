#!/usr/bin/env node
// Debian's redis-server in the foreground on a loopback port, as an ordinary process of the e2e
// stack (like nginx.mjs): SIGTERM/SIGINT stop it. Used by support/stack.ts and the outage spec.
//   REDIS_PORT, REDIS_DIR (a scratch directory: its append-only file, when REDIS_APPENDONLY=yes)
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'

const port = process.env.REDIS_PORT ?? ''
const dir = process.env.REDIS_DIR ?? ''
if (!/^\d+$/.test(port) || dir === '') {
  console.error('redis.mjs: REDIS_PORT (a number) and REDIS_DIR must be set')
  process.exit(2)
}
if (spawnSync('redis-server', ['--version']).error) {
  console.error(
    'redis.mjs: redis-server not found; install it with: apt-get install -y redis-server',
  )
  process.exit(2)
}
mkdirSync(dir, { recursive: true })
const redis = spawn(
  'redis-server',
  [
    '--port',
    port,
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    process.env.REDIS_APPENDONLY === 'yes' ? 'yes' : 'no',
    '--logfile',
    '',
  ],
  { stdio: 'inherit' },
)
const stop = () => redis.kill('SIGTERM')
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
redis.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
