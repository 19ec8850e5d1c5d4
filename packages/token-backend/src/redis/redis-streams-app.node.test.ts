import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, reconnected, startRedisServer } from '../../test/redis-server.ts'
import { asViewer, streamApp } from '../../test/streams.ts'
import { STORE_OUTAGE_TRUST_MS } from '../session/cached-session-store.ts'
import type { StreamTokenRecord } from '../token-route.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import { redisStreamStore } from './redis-stream-store.ts'

// Stream limits on Node over a real redis-server: three instances of the backend (three
// clients, three apps) share one ledger, as three processes behind a balancer do.
let redis: RedisServer
let clients: RedisClient[] = []
const TIMEOUT_MS = 300

beforeAll(async () => {
  redis = await startRedisServer()
  clients = await Promise.all([1, 2, 3].map(() => connectRedis(redis.url, { log: () => {} })))
})

afterAll(async () => {
  for (const client of clients) client.destroy()
  await redis?.stop()
})

const viewer = () => `viewer-${crypto.randomUUID()}`
const harnesses = (limit: number) => {
  const prefix = `apps-${crypto.randomUUID()}:`
  return clients.map((client) =>
    streamApp({ limit }, { streams: redisStreamStore(client, { prefix, timeoutMs: TIMEOUT_MS }) }),
  )
}
const instances = (limit: number) => harnesses(limit).map(({ app }) => app)
type App = ReturnType<typeof instances>[number]

const token = async (app: App, sub: string, stream?: string) =>
  app.request(
    `http://token.test/token?video=demo${stream ? `&stream=${stream}` : ''}`,
    await asViewer(sub),
  )
const session = async (app: App, sub: string) =>
  app.request('http://token.test/session?video=demo&type=vod', await asViewer(sub))

describe('stream limits over Redis, three instances', () => {
  it('20 token-stream starts of one viewer at once, spread over the instances, admit exactly the limit', async () => {
    const apps = instances(2)
    const sub = viewer()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => token(apps[i % 3] as App, sub)),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(2)
    expect(statuses.filter((status) => status === 409)).toHaveLength(18)
  })

  it('20 session starts at once admit exactly the limit, and a stream renews on any instance', async () => {
    const apps = instances(3)
    const sub = viewer()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => session(apps[i % 3] as App, sub)),
    )
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3)
    const other = viewer()
    const first = (await (await token(apps[0] as App, other)).json()) as StreamTokenRecord
    for (const app of apps) {
      const renewed = (await (await token(app, other, first.stream)).json()) as StreamTokenRecord
      expect(renewed.stream).toBe(first.stream)
    }
  })

  it("a proposed id retried on other instances, at once and later, is one stream (the player's first /token, its retry, a reload)", async () => {
    const apps = instances(1)
    const sub = viewer()
    const id = crypto.randomUUID().replaceAll('-', '')
    const answers = await Promise.all(apps.map((app) => token(app, sub, id)))
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    for (const answer of answers)
      expect(((await answer.json()) as StreamTokenRecord).stream).toBe(id)
    expect(
      ((await (await token(apps[2] as App, sub, id)).json()) as StreamTokenRecord).stream,
    ).toBe(id)
    // the slot is that stream's: a second playback is refused at limit 1
    expect((await token(apps[1] as App, sub)).status).toBe(409)
  })

  it('with Redis down: a new stream is a 503, a stream this instance admitted plays on; all recovers', async () => {
    const [first, second] = harnesses(2)
    const [a, b] = [first?.app, second?.app] as [App, App]
    const sub = viewer()
    const playing = ((await (await token(a, sub)).json()) as StreamTokenRecord).stream as string
    const sessionAnswer = (await (await session(a, sub)).json()) as { session_url: string }
    const leaf = new URL(sessionAnswer.session_url).pathname.replace(
      /master\.m3u8$/,
      'v0/seg_001.ts',
    )
    await redis.stop()
    const fresh = await token(a, viewer())
    expect(fresh.status).toBe(503)
    expect(fresh.headers.get('retry-after')).toBe('1')
    expect((await session(a, sub)).status).toBe(503)
    // admitted here: refreshes and leaves go on (the lease is not written meanwhile)
    const refreshed = await token(a, sub, playing)
    expect(refreshed.status).toBe(200)
    expect(((await refreshed.json()) as StreamTokenRecord).stream).toBe(playing)
    expect((await a.request(`http://token.test${leaf}`)).status).toBe(302)
    // an instance that never saw them cannot tell: it fails closed, the player retries
    expect((await token(b, sub, playing)).status).toBe(503)
    // for a bounded time: then it fails closed too
    if (first) first.clock.ms += STORE_OUTAGE_TRUST_MS
    expect((await token(a, sub, playing)).status).toBe(503)
    expect((await a.request(`http://token.test${leaf}`)).status).toBe(503)
    await redis.start() // empty: what Redis held is gone without persistence
    await reconnected(clients)
    expect((await token(b, sub, playing)).status).toBe(200)
  })
})
