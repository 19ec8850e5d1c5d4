// Edge sessions on the floors: one bin (its memory store) and two bins sharing one Redis (the
// `redis` peer): a session's leaf is a 302 to a correctly signed CDN URL, a revocation binds (in
// the other instance too), and the viewer's rate limit is counted once for both.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@proj/stack'
import { checkLeaf, fail, serving, startProcess, stopped } from './processes.mjs'

const ADMIN = 'floor-admin-token-of-32-characters-x'
const SESSION = {
  SESSION_SECRET: 'floor-session-secret-of-32-chars-ok',
  SESSION_ADMIN_TOKEN: ADMIN,
}
const VIEWER = { 'x-real-ip': '198.51.100.7' }
const LEAF = 'v0/seg_000.ts'

/** A new session from the backend on `port`: its URL, its leaf's URL and its id. */
async function newSession(label, port) {
  const response = await fetch(`http://127.0.0.1:${port}/session?video=demo&type=vod`, {
    headers: VIEWER,
  })
  const body = await response.text()
  if (response.status !== 200) fail(`${label}: GET /session answered ${response.status}: ${body}`)
  const url = JSON.parse(body).session_url
  const credential = new URL(url).pathname.split('/').find((part) => part.split('.').length === 3)
  const claims = JSON.parse(Buffer.from(credential?.split('.')[1] ?? '', 'base64url').toString())
  return { url, leaf: url.replace(/master\.m3u8$/, LEAF), id: claims.sid }
}

/** The leaf's answer without following it: its status, and the redirect's checked target. */
async function askLeaf(leaf, signing) {
  const response = await fetch(leaf, { headers: VIEWER, redirect: 'manual' })
  const body = await response.text()
  const location = response.headers.get('location')
  const problem =
    response.status === 302
      ? checkLeaf(location, { ...signing, video: 'demo', file: LEAF })
      : undefined
  return { status: response.status, body, problem }
}

/** Revokes session `id` through the backend on `port` with the admin token. */
async function revoke(label, port, id) {
  const response = await fetch(`http://127.0.0.1:${port}/sessions/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: id }),
  })
  if (response.status !== 200)
    fail(`${label}: POST /sessions/revoke answered ${response.status}: ${await response.text()}`)
}

/** Asks the leaf until it is refused (a backend keeps an answer 1 s); fails after 3 s. */
async function refusedWithin(label, leaf, signing) {
  const deadline = Date.now() + 3000
  for (;;) {
    const answer = await askLeaf(leaf, signing)
    if (answer.status === 403 && answer.body.includes('revoked')) return
    if (Date.now() > deadline)
      fail(`${label}: the revoked session's leaf still answers ${answer.status} after 3 s`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/**
 * One bin, its memory store: a session's leaf redirects to a CDN URL the secret signs; revoked
 * with the admin token, the leaf is refused.
 *
 * @example await sessionLane('sessions', { node, bin, cwd }, env, signing)
 */
export async function sessionLane(label, { node, bin, cwd }, env, signing) {
  const { port, run } = await serving(
    label,
    startProcess(node, bin, ['--port', '0'], { ...env, ...SESSION }, cwd),
  )
  const session = await newSession(label, port)
  const first = await askLeaf(session.leaf, signing)
  if (first.status !== 302 || first.problem)
    fail(`${label}: the leaf answered ${first.status}: ${first.problem ?? first.body}`)
  await revoke(label, port, session.id)
  await refusedWithin(label, session.leaf, signing)
  await stopped(label, run)
  console.log(`  ok    ${label}: leaf → 302 to a CDN URL the secret signs; revoked → 403`)
}

/** Resolves once redis-server answers PING on `port` (fails after 5 s). */
async function redisReady(port) {
  const deadline = Date.now() + 5000
  for (;;) {
    const pong = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
      socket.on('data', (data) => {
        socket.destroy()
        resolve(data.toString().startsWith('+PONG'))
      })
      socket.on('error', () => resolve(false))
    })
    if (pong) return
    if (Date.now() > deadline) fail(`redis-server did not answer on port ${port} within 5 s`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Two bins on one Redis (`REDIS_URL`, the floor of the `redis` peer), redis-server started here
 * (e2e/servers/redis.mjs): a session issued and admitted by A, revoked through B, is refused by
 * A; the viewer's limit (3 requests) is counted once for both: the 4th request, whichever
 * instance gets it, is a 429.
 *
 * @example await sharedRedis('two instances, one Redis', { node, bin, cwd }, env, signing, root)
 */
export async function sharedRedis(label, { node, bin, cwd }, env, signing, root) {
  const redisPort = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'floor-redis-'))
  const redis = spawn(process.execPath, [join(root, 'e2e', 'servers', 'redis.mjs')], {
    env: { PATH: process.env.PATH, REDIS_PORT: String(redisPort), REDIS_DIR: dir },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    await redisReady(redisPort)
    const shared = {
      ...env,
      ...SESSION,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMIT_REQUESTS: '3',
      RATE_LIMIT_PERIOD: '60',
    }
    const start = (name) => serving(name, startProcess(node, bin, ['--port', '0'], shared, cwd))
    const [a, b] = await Promise.all([start(`${label}, A`), start(`${label}, B`)])
    // request 1 of the viewer's 3 (A)
    const session = await newSession(`${label}, A`, a.port)
    const first = await askLeaf(session.leaf, signing)
    if (first.status !== 302 || first.problem)
      fail(`${label}: A's leaf answered ${first.status}: ${first.problem ?? first.body}`)
    await revoke(`${label}, B`, b.port, session.id)
    await refusedWithin(`${label}: A after the revocation through B`, session.leaf, signing)
    // requests 2 and 3 admitted (B, A); the 4th refused whichever instance gets it
    const token = (port) =>
      fetch(`http://127.0.0.1:${port}/token?video=demo&type=vod`, { headers: VIEWER })
    const statuses = []
    for (const port of [b.port, a.port, b.port]) statuses.push((await token(port)).status)
    if (statuses.join() !== '200,200,429')
      fail(
        `${label}: the viewer's 2nd to 4th requests (B, A, B) answered ${statuses.join(', ')}, not 200, 200, 429: the limit is not shared`,
      )
    await Promise.all([stopped(`${label}, A`, a.run), stopped(`${label}, B`, b.run)])
    console.log(
      `  ok    ${label}: revoked through B → A refuses the leaf; the limit of 3 counted once for both (200, 200, 429); both exit 0`,
    )
  } finally {
    redis.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}
