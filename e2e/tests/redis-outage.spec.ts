// Redis stopped mid-playback and started again, under a Node instance of the token backend with
// REDIS_URL (its own redis-server and instance: the spec stops and starts that Redis). The policy
// of the README's security model, observed: a session this instance already trusts keeps playing
// (its leaves, for at most 30 s past its last check); issuing, a new network, a session it does
// not know yet and a revocation fail closed with a JSON 503 and Retry-After, each within a
// bounded time; when Redis is back everything works again without a restart, nothing forgotten,
// and the revocation answered 503 has not happened behind the operator's back.
import { join } from 'node:path'
import { expect, test } from '../support/browser-witness.ts'
import { cdnRequests } from '../support/cdn-log.ts'
import { ffmpeg, sessionIdOf, uniqueVideo } from '../support/hls-clients.ts'
import {
  type ChildServer,
  freePort,
  root,
  run,
  stop,
  waitFor,
  waitForPort,
} from '../support/processes.ts'
import { nodeTokenInstance, SESSION } from '../support/stack.ts'

// ports of its own (repeats of the spec may run side by side)
const ports = { redis: 0, token: 0 }
const token = () => `http://127.0.0.1:${ports.token}`
const LEAF_MS = SESSION.leafSeconds * 1000
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The spec's redis-server, with an append-only file: what it knew survives the restart. */
const startRedis = async () => {
  const server = run('e2e/servers/redis.mjs', {
    REDIS_PORT: String(ports.redis),
    REDIS_DIR: join(root, '.tmp', 'e2e', `redis-outage-${ports.redis}`),
    REDIS_APPENDONLY: 'yes',
  })
  await waitForPort(ports.redis, server)
  return server
}

/** One request, timed, redirects not followed. */
const timed = async (path: string, init: RequestInit = {}) => {
  const started = Date.now()
  const res = await fetch(`${token()}${path}`, { redirect: 'manual', ...init })
  const body = await res.text()
  return {
    status: res.status,
    ms: Date.now() - started,
    retryAfter: res.headers.get('retry-after'),
    body,
  }
}

const revoke = (sessionId: string) =>
  timed('/sessions/revoke', {
    method: 'POST',
    headers: { authorization: `Bearer ${SESSION.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: sessionId }),
  })

const sessionOf = async (video: string) => {
  const issued = await timed(`/session?video=${video}&type=live`)
  expect(issued.status, issued.body).toBe(200)
  return (JSON.parse(issued.body) as { session_url: string }).session_url
}

test('Redis stopped mid-playback and started again: trusted sessions play on, the rest fails closed within a bound, all recovers by itself', async () => {
  test.setTimeout(150_000)
  ports.redis = await freePort()
  ports.token = await freePort()
  let redis: ChildServer | undefined = await startRedis()
  const backend = run('apps/token-worker/src/node.ts', {
    ...nodeTokenInstance(ports.token, {
      REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
      RATE_LIMIT_REQUESTS: '1000',
    }).env,
  })
  const video = uniqueVideo('redis-outage')
  let client: ReturnType<typeof ffmpeg> | undefined
  try {
    await waitFor(`${token()}/token?video=ready`, backend)
    const playing = await sessionOf(video)
    // a session issued before the outage whose leaves this instance has never checked
    const unseen = await sessionOf(uniqueVideo('redis-outage-unseen'))
    client = ffmpeg(playing)
    const playingBy = Date.now() + 30_000
    while (cdnRequests(video).filter((e) => e.status === 200).length < 3) {
      if (Date.now() > playingBy) throw new Error(`not playing:\n${client.output()}`)
      await pause(500)
    }

    await stop(redis.child)
    redis = undefined
    const stoppedAt = Date.now()
    await pause(1500)
    // everything that needs Redis's word now: a JSON 503 with Retry-After, within a bound
    const leaf = (url: string, headers: Record<string, string> = {}) =>
      timed(`${new URL(url).pathname.replace(/master\.m3u8$/, 'v0/seg_001.ts')}`, { headers })
    const refusals = {
      // issuing reads Redis for the viewer's rate limit (a viewer the IP headers name)
      'new session': await timed(`/session?video=${uniqueVideo('redis-outage-new')}&type=vod`, {
        headers: { 'x-forwarded-for': '198.51.100.66' },
      }),
      'plain token': await timed('/token?video=redis-outage&type=vod', {
        headers: { 'x-forwarded-for': '198.51.100.66' },
      }),
      'playing session, new network': await leaf(playing, { 'x-forwarded-for': '192.0.2.77' }),
      'session not seen here yet': await leaf(unseen),
      revocation: await revoke(sessionIdOf(unseen)),
    }
    await test.info().attach('refusals.json', { body: JSON.stringify(refusals, null, 2) })
    for (const [what, answer] of Object.entries(refusals)) {
      expect(answer.status, `${what}: ${answer.body}`).toBe(503)
      expect(Number(answer.retryAfter), what).toBeGreaterThan(0)
      expect(JSON.parse(answer.body), what).toMatchObject({
        error: expect.stringMatching(/unavailable/),
      })
      // a bound, not a hang: Redis calls wait 1 s at most
      expect(answer.ms, what).toBeLessThan(2500)
    }
    await pause(10_000)
    const restartedAt = Date.now()
    redis = await startRedis()
    // recovery without a restart of the instance: the next issue succeeds
    let recoveredAt = 0
    for (let i = 0; i < 100 && !recoveredAt; i++) {
      if ((await timed(`/session?video=${uniqueVideo('redis-back')}&type=vod`)).status === 200)
        recoveredAt = Date.now()
      else await pause(100)
    }
    expect(recoveredAt, 'recovered within 10 s of Redis starting').toBeGreaterThan(0)
    // the revocation answered 503 was not written later either (503: not done, retry); the
    // instance's client reconnects within a second or so (issuing from 0.0.0.0 needed no Redis)
    let unseenAfter = await leaf(unseen)
    for (let i = 0; i < 100 && unseenAfter.status === 503; i++) {
      await pause(100)
      unseenAfter = await leaf(unseen)
    }
    expect(unseenAfter.status, `revoked although answered 503: ${unseenAfter.body}`).toBe(302)
    await pause(8000)

    const served = cdnRequests(video).filter((entry) => entry.status === 200)
    const during = served.filter((e) => e.at > stoppedAt + 1000 && e.at < restartedAt)
    const after = served.filter((e) => e.at > recoveredAt)
    await test.info().attach('timeline.json', {
      body: JSON.stringify(
        { stoppedAt, restartedAt, recoveredAt, cdn: cdnRequests(video) },
        null,
        2,
      ),
    })
    // the trusted session played through the outage and after it
    expect(during.length, 'segments served during the outage').toBeGreaterThan(3)
    expect(after.length, 'segments served after Redis returned').toBeGreaterThan(2)
    expect(client.output()).not.toMatch(/Server returned (403|5\d\d)/)

    // nothing forgotten, nothing stuck: the revocation works again (and binds the playing session)
    const revokedAt = Date.now()
    const revoked = await revoke(sessionIdOf(playing))
    expect(revoked.status, revoked.body).toBe(200)
    await pause(LEAF_MS + 5000)
    expect(
      cdnRequests(video).filter((e) => e.status === 200 && e.at > revokedAt + LEAF_MS + 2000),
    ).toEqual([])
    expect(backend.output()).not.toMatch(/unexpected error/)
  } finally {
    client?.process.kill('SIGKILL')
    await stop(backend.child)
    if (redis) await stop(redis.child)
  }
})
