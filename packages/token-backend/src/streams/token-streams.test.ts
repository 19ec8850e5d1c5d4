import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { asViewer, streamApp, streamConfig } from '../../test/streams.ts'
import { createTokenApp } from '../app.ts'
import type { StreamTokenRecord } from '../token-route.ts'

// GET /token with stream limits, in workerd: memory (no bindings passed), and the
// SessionRegistry Durable Object (the test Worker's bindings passed as the app's env).

type App = ReturnType<typeof streamApp>['app']
const STREAM_ID = /^[A-Za-z0-9_-]{22,64}$/
const RECORD_FIELDS = 'token token_ip client_ip expires url url_ip'.split(' ')

async function token(
  app: App,
  sub: string | undefined,
  query = '',
  claims?: Record<string, unknown>,
  bindings?: object,
) {
  return app.request(
    `http://token.test/token?video=demo${query}`,
    await asViewer(sub, claims),
    bindings,
  )
}

async function started(app: App, sub: string, query = '', claims?: Record<string, unknown>) {
  const response = await token(app, sub, query, claims)
  expect(response.status).toBe(200)
  return ((await response.json()) as StreamTokenRecord).stream as string
}

const viewer = () => `viewer-${crypto.randomUUID()}`

describe('GET /token without stream limits', () => {
  it('answers the record as before: no stream field, the stream parameter ignored', async () => {
    const app = createTokenApp({ now: () => 1_800_000_000_000, audit: () => {} })
    const plain = await app.request('http://token.test/token?video=demo', {}, env)
    const given = await app.request(
      `http://token.test/token?video=demo&stream=${'a'.repeat(22)}`,
      {},
      env,
    )
    const body = await plain.text()
    expect(await given.text()).toBe(body)
    expect(Object.keys(JSON.parse(body))).toEqual(RECORD_FIELDS)
    // whatever its form: with limits off the backend does not read it
    const odd = await app.request('http://token.test/token?video=demo&stream=abc', {}, env)
    expect(await odd.text()).toBe(body)
  })
})

describe('GET /token with STREAM_LIMIT=2 (reject-newest)', () => {
  it('hands out a stream id, renews it on each refresh, and refuses a third stream with the typed 409', async () => {
    const { app, clock, lines } = streamApp({ limit: 2 })
    const sub = viewer()
    const first = await started(app, sub)
    expect(first).toMatch(STREAM_ID)
    const response = await token(app, sub)
    const record = (await response.json()) as StreamTokenRecord
    // one field more, after the record of spec 2.11
    expect(Object.keys(record)).toEqual([...RECORD_FIELDS, 'stream'])
    expect(record.stream).not.toBe(first)
    const startedAt = new Date(clock.ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
    clock.ms += 10_000
    // refreshes of an admitted stream: the same id, never counted twice
    for (let i = 0; i < 3; i++) expect(await started(app, sub, `&stream=${first}`)).toBe(first)
    const refused = await token(app, sub)
    expect(refused.status).toBe(409)
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/)
    const lastSeen = new Date(clock.ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
    expect(await refused.json()).toEqual({
      error: 'stream limit reached: 2 of 2 streams are playing',
      code: 'stream_limit',
      limit: 2,
      streams: [
        { started_at: startedAt, last_seen_at: lastSeen },
        { started_at: startedAt, last_seen_at: startedAt },
      ],
    })
    // another viewer is counted apart
    expect(await started(app, viewer())).toMatch(STREAM_ID)
    expect(lines.map((line) => [line.event, line.sub === sub])).toEqual([
      ['stream_admitted', true],
      ['token_issued', true],
      ['stream_admitted', true],
      ['token_issued', true],
      ['token_issued', true],
      ['token_issued', true],
      ['token_issued', true],
      ['stream_refused', true],
      ['stream_admitted', false],
      ['token_issued', false],
    ])
    expect(lines[7]).toMatchObject({ lane: 'token', limit: 2, active: 2 })
    expect(lines[0]).toMatchObject({ stream: first, lane: 'token', limit: 2, active: 1 })
  })

  it("frees a stream's slot at its token's expiry + the grace; its id then starts a new stream under that id", async () => {
    const { app, clock, lines } = streamApp({ limit: 1, graceSeconds: 30 })
    const sub = viewer()
    const first = await started(app, sub, '&expire=60')
    clock.ms += 89_000
    expect((await token(app, sub)).status).toBe(409)
    clock.ms += 1_000
    // a reload after a long pause: admitted anew (the slot was free), and keeps its id
    expect(await started(app, sub, `&stream=${first}`)).toBe(first)
    expect(lines.filter((line) => line.event === 'stream_admitted')).toHaveLength(2)
  })

  it("takes the viewer JWT's max_streams claim over the configured limit", async () => {
    const { app } = streamApp({ limit: 1 })
    const sub = viewer()
    for (let i = 0; i < 3; i++) await started(app, sub, '', { max_streams: 3 })
    const refused = await token(app, sub, '', { max_streams: 3 })
    expect(await refused.json()).toMatchObject({ code: 'stream_limit', limit: 3 })
    // a claim that is not a whole number ≥ 1 is ignored: the configured limit
    const other = viewer()
    await started(app, other, '', { max_streams: 0 })
    const capped = await token(app, other, '', { max_streams: '5' })
    expect(await capped.json()).toMatchObject({ code: 'stream_limit', limit: 1 })
    // above STREAM_LIMIT's own maximum (9999): ignored too, never "a billion streams"
    const huge = await token(app, other, '', { max_streams: 1e9 })
    expect(await huge.json()).toMatchObject({ code: 'stream_limit', limit: 1 })
  })

  it('HEAD makes the checks of GET and takes no slot: no stream, no token, no audit line', async () => {
    const { app, lines } = streamApp({ limit: 1 })
    const sub = viewer()
    for (let i = 0; i < 3; i++) {
      const head = await app.request('http://token.test/token?video=demo', {
        ...(await asViewer(sub)),
        method: 'HEAD',
      })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe('')
    }
    const badHead = await app.request('http://token.test/token?video=demo&stream=short', {
      ...(await asViewer(sub)),
      method: 'HEAD',
    })
    expect(badHead.status).toBe(400)
    expect(lines).toEqual([])
    // the one slot is still free
    await started(app, sub)
  })

  it("refuses a viewer's identity longer than 512 characters (the operator could not name it)", async () => {
    const { app } = streamApp({ limit: 1 })
    const long = await token(app, 'v'.repeat(513))
    expect(long.status).toBe(403)
    expect(await long.json()).toEqual({
      error: "the viewer's identity (sub) is longer than 512 characters",
    })
    await started(app, 'v'.repeat(512))
  })

  it('refuses a viewer without a subject, and a malformed stream id', async () => {
    const { app } = streamApp({ limit: 1 })
    const anonymous = await token(app, undefined)
    expect(anonymous.status).toBe(403)
    expect(await anonymous.json()).toEqual({
      error: 'stream limits need a viewer identity: a JWT with a sub claim',
    })
    const malformed = await token(app, viewer(), '&stream=short')
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toEqual({
      error: 'stream must be 22 to 64 characters from A-Z, a-z, 0-9, _ and -',
    })
    // checked before the viewer, as the video is: a bad request is not worth an authorization
    const unauthorized = await app.request('http://token.test/token?video=demo&stream=short')
    expect(unauthorized.status).toBe(400)
    const anonymousHead = await app.request('http://token.test/token?video=demo', {
      ...(await asViewer(undefined)),
      method: 'HEAD',
    })
    expect(anonymousHead.status).toBe(403)
  })
})

describe('GET /token: one id per playback, whoever names it first', () => {
  // the player proposes its id with its first /token (and a reload of the tab sends it again)
  const proposed = () => crypto.randomUUID().replaceAll('-', '')

  it('a first /token retried after its answer was lost counts once: the proposed id is adopted, then renewed', async () => {
    const { app, lines } = streamApp({ limit: 1 })
    const sub = viewer()
    const id = proposed()
    expect(await started(app, sub, `&stream=${id}`)).toBe(id)
    // the retry (the first answer never reached the player) and a reload of the page
    expect(await started(app, sub, `&stream=${id}`)).toBe(id)
    expect(await started(app, sub, `&stream=${id}`)).toBe(id)
    expect(lines.filter((line) => line.event === 'stream_admitted')).toEqual([
      expect.objectContaining({ sub, stream: id, active: 1 }),
    ])
    // a second tab proposes its own id: a second stream, refused at limit 1
    const other = await token(app, sub, `&stream=${proposed()}`)
    expect(await other.json()).toMatchObject({ code: 'stream_limit', limit: 1 })
  })

  it("ids are per viewer: another viewer naming the same id starts their own stream, apart from the first viewer's", async () => {
    const { app } = streamApp({ limit: 1 })
    const [ann, bob] = [viewer(), viewer()]
    const id = proposed()
    expect(await started(app, ann, `&stream=${id}`)).toBe(id)
    expect(await started(app, bob, `&stream=${id}`)).toBe(id)
    expect(await started(app, ann, `&stream=${id}`)).toBe(id)
  })

  it('an evicted id stays refused (stream_ended) while it is remembered: never adopted again', async () => {
    const { app, clock } = streamApp({ limit: 1, policy: 'evict-oldest', graceSeconds: 30 })
    const sub = viewer()
    const id = proposed()
    await started(app, sub, `&stream=${id}&expire=60`)
    await started(app, sub, `&stream=${proposed()}`)
    clock.ms += 89_000
    const refused = await token(app, sub, `&stream=${id}`)
    expect(await refused.json()).toMatchObject({ code: 'stream_ended', reason: 'evicted' })
  })

  it('the Durable Object adopts a proposed id once, however many retries of it come at once', async () => {
    const { app } = streamApp({ limit: 2 })
    const sub = viewer()
    const id = proposed()
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => token(app, sub, `&stream=${id}`, undefined, env)),
    )
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200])
    const streams = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as StreamTokenRecord).stream),
    )
    expect(new Set(streams)).toEqual(new Set([id]))
    // one slot taken: one more stream fits, a third does not
    expect((await token(app, sub, '', undefined, env)).status).toBe(200)
    expect((await token(app, sub, '', undefined, env)).status).toBe(409)
  })
})

describe('GET /token: one stream id on at most SESSION_MAX_NETWORKS networks', () => {
  const from = async (app: App, sub: string, id: string, ip: string) => {
    const { headers } = await asViewer(sub)
    return app.request(
      `http://token.test/token?video=demo&stream=${id}`,
      { headers: { ...headers, 'cf-connecting-ip': ip } },
      env,
    )
  }

  it('a shared id is refused from a third network (stream_ended, networks) and plays on for the first two', async () => {
    const { app, lines } = streamApp({ limit: 2 })
    const sub = viewer()
    const id = crypto.randomUUID().replaceAll('-', '')
    expect((await from(app, sub, id, '203.0.113.7')).status).toBe(200)
    // a new address in the same /24 (the default SESSION_BINDING=prefix) is the same network
    expect((await from(app, sub, id, '203.0.113.99')).status).toBe(200)
    // Wi-Fi to mobile: a second network, allowed (SESSION_MAX_NETWORKS defaults to 2)
    expect((await from(app, sub, id, '2001:db8:1:2::5')).status).toBe(200)
    const refused = await from(app, sub, id, '198.51.100.1')
    expect(refused.status).toBe(409)
    expect(await refused.json()).toEqual({
      error: 'stream refused: it already plays on as many networks as allowed; start a new one',
      code: 'stream_ended',
      reason: 'networks',
    })
    expect(lines.filter((line) => line.event === 'stream_refused')).toEqual([
      expect.objectContaining({ sub, stream: id, lane: 'token', reason: 'networks' }),
    ])
    expect((await from(app, sub, id, '203.0.113.7')).status).toBe(200)
    expect((await from(app, sub, id, '2001:db8:1:2::77')).status).toBe(200)
    // the refused device starts its own stream: counted as one more
    expect(
      (await from(app, sub, crypto.randomUUID().replaceAll('-', ''), '198.51.100.1')).status,
    ).toBe(200)
  })
})

describe('GET /token: the networks settings hold without SESSION_SECRET', () => {
  it('SESSION_MAX_NETWORKS=3 admits a third network, SESSION_BINDING=none counts none, sessions off', async () => {
    const { session: _, ...base } = streamConfig({ limit: 2 })
    for (const [session, thirdStatus] of [
      [{ maxNetworks: 3 }, 200],
      [{ binding: 'none' as const, maxNetworks: 1 }, 200],
      [{}, 409],
    ] as const) {
      const app = createTokenApp({ config: { ...base, session }, audit: () => {} })
      const sub = viewer()
      const id = crypto.randomUUID().replaceAll('-', '')
      const from = async (ip: string) => {
        const { headers } = await asViewer(sub)
        return app.request(
          `http://token.test/token?video=demo&stream=${id}`,
          { headers: { ...headers, 'cf-connecting-ip': ip } },
          env,
        )
      }
      expect((await from('203.0.113.7')).status).toBe(200)
      expect((await from('2001:db8:1:2::5')).status).toBe(200)
      expect((await from('198.51.100.1')).status).toBe(thirdStatus)
    }
  })
})

describe('GET /token with evict-oldest and log mode', () => {
  it('evict-oldest: the newest plays, the oldest is told stream_ended at its next refresh, never re-admitted', async () => {
    const { app, lines } = streamApp({ limit: 2, policy: 'evict-oldest' })
    const sub = viewer()
    const oldest = await started(app, sub)
    const middle = await started(app, sub)
    const newest = await started(app, sub)
    for (let i = 0; i < 2; i++) {
      const refused = await token(app, sub, `&stream=${oldest}`)
      expect(refused.status).toBe(409)
      expect(await refused.json()).toEqual({
        error: 'stream ended: a newer stream of this viewer took its place',
        code: 'stream_ended',
        reason: 'evicted',
      })
    }
    expect(await started(app, sub, `&stream=${middle}`)).toBe(middle)
    expect(await started(app, sub, `&stream=${newest}`)).toBe(newest)
    expect(lines.filter((line) => line.event === 'stream_evicted')).toEqual([
      expect.objectContaining({ sub, stream: oldest, lane: 'token', limit: 2, active: 2 }),
    ])
  })

  it('log mode: refuses nothing, and audits what enforce would have done', async () => {
    const { app, lines } = streamApp({ limit: 1, mode: 'log' })
    const sub = viewer()
    await started(app, sub)
    const second = await started(app, sub)
    expect(lines.filter((line) => line.event === 'stream_would_refuse')).toEqual([
      expect.objectContaining({
        sub,
        stream: second,
        lane: 'token',
        limit: 1,
        active: 2,
        policy: 'reject-newest',
      }),
    ])
  })
})

describe('GET /token with the SessionRegistry Durable Object', () => {
  it('20 starts of one viewer at once admit exactly the limit', async () => {
    const { app } = streamApp({ limit: 3 })
    const sub = viewer()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => token(app, sub, '', undefined, env)),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(3)
    expect(statuses.filter((status) => status === 409)).toHaveLength(17)
  })
})
