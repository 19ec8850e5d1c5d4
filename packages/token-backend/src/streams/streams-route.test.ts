import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { asViewer, STREAM_ADMIN, streamApp, streamConfig } from '../../test/streams.ts'
import { createTokenApp } from '../app.ts'
import type { StreamTokenRecord } from '../token-route.ts'
import type { StreamsView } from './streams-route.ts'

// GET/DELETE /streams, the operator's view of a viewer's streams, in workerd: memory, and the
// Durable Object (the test Worker's bindings passed as the app's env).

type Harness = ReturnType<typeof streamApp>
const operator = { authorization: `Bearer ${STREAM_ADMIN}` }
const viewer = () => `viewer-${crypto.randomUUID()}`

describe.each([
  ['memory', undefined],
  ['the Durable Object', env],
])('the operator endpoints over %s', (_, bindings) => {
  const call = (h: Harness, path: string, init: RequestInit = {}) =>
    h.app.request(`http://token.test${path}`, init, bindings)
  const startToken = async (h: Harness, sub: string, stream = '', query = '') => {
    const response = await call(
      h,
      `/token?video=demo${stream && `&stream=${stream}`}${query}`,
      await asViewer(sub),
    )
    return {
      status: response.status,
      body: (await response.json()) as StreamTokenRecord & { code?: string },
    }
  }

  it("lists a viewer's active streams, both lanes, oldest first", async () => {
    const h = streamApp({ limit: 3 })
    const sub = viewer()
    const started = h.clock.ms
    const { body } = await startToken(h, sub)
    h.clock.ms += 1000
    expect((await call(h, '/session?video=demo', await asViewer(sub))).status).toBe(200)
    const listed = await call(h, `/streams?sub=${encodeURIComponent(sub)}`, { headers: operator })
    expect(listed.status).toBe(200)
    const view = (await listed.json()) as StreamsView
    expect(view).toMatchObject({ sub, limit: 3 })
    expect(view.streams.map((stream) => [stream.lane, stream.id === body.stream])).toEqual([
      ['token', true],
      ['session', false],
    ])
    expect(view.streams[0]).toEqual({
      id: body.stream,
      lane: 'token',
      started_at: new Date(started).toISOString(),
      last_seen_at: new Date(started).toISOString(),
      expires_at: new Date((body.expires + 30) * 1000).toISOString(),
    })
  })

  it('lists a stream whose expiry lies past the latest date JavaScript prints (an expire far ahead)', async () => {
    const h = streamApp({ limit: 2 })
    const sub = viewer()
    // the last second Date can hold: the lease's grace puts its end past it
    const { status } = await startToken(h, sub, '', '&expire=8639999999999')
    expect(status).toBe(200)
    const listed = await call(h, `/streams?sub=${encodeURIComponent(sub)}`, { headers: operator })
    expect(listed.status).toBe(200)
    const [stream] = ((await listed.json()) as StreamsView).streams
    expect(stream?.expires_at).toMatch(bindings ? /^2188-01-01T/ : /^\+275760-09-13T/)
  })

  it('ends one stream, or all: their next refresh is refused as ended, audited', async () => {
    const h = streamApp({ limit: 3 })
    const sub = viewer()
    const ids = [] as string[]
    for (let i = 0; i < 3; i++) ids.push((await startToken(h, sub)).body.stream as string)
    const [one, two, three] = ids
    const ended = await call(h, `/streams?sub=${sub}&id=${one}`, {
      method: 'DELETE',
      headers: operator,
    })
    expect(await ended.json()).toEqual({ ended: 1 })
    const refused = await startToken(h, sub, one)
    expect(refused).toEqual({
      status: 409,
      body: { error: 'stream ended by the operator', code: 'stream_ended', reason: 'ended' },
    })
    expect((await startToken(h, sub, two)).status).toBe(200)
    const all = await call(h, `/streams?sub=${sub}`, { method: 'DELETE', headers: operator })
    expect(await all.json()).toEqual({ ended: 2 })
    for (const id of [two, three])
      expect((await startToken(h, sub, id)).body.code).toBe('stream_ended')
    // room again: a new stream is admitted
    expect((await startToken(h, sub)).status).toBe(200)
    expect(h.lines.filter((line) => line.event === 'stream_ended')).toEqual([
      expect.objectContaining({ sub, stream: one, reason: 'ended', ended: 1 }),
      expect.objectContaining({ sub, reason: 'ended', ended: 2 }),
    ])
  })

  it('lists one stream by id; other methods are a 405 with Allow, OPTIONS a 204', async () => {
    const h = streamApp({ limit: 3 })
    const sub = viewer()
    const one = (await startToken(h, sub)).body.stream as string
    await startToken(h, sub)
    const listed = await call(h, `/streams?sub=${sub}&id=${one}`, { headers: operator })
    expect(((await listed.json()) as StreamsView).streams.map((stream) => stream.id)).toEqual([one])
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const refused = await call(h, `/streams?sub=${sub}`, { method, headers: operator })
      expect(refused.status).toBe(405)
      expect(refused.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS')
      expect(await refused.json()).toEqual({
        error: `method ${method} is not allowed: use GET or DELETE`,
      })
    }
    const options = await call(h, '/streams', { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS')
    const revoke = await call(h, '/sessions/revoke', { method: 'GET', headers: operator })
    expect(revoke.status).toBe(405)
    expect(revoke.headers.get('allow')).toBe('POST, OPTIONS')
    expect(await revoke.json()).toEqual({ error: 'method GET is not allowed: use POST' })
  })

  it('needs the admin token, a sub, and stream limits', async () => {
    const h = streamApp({ limit: 1 })
    const anonymous = await call(h, '/streams?sub=ann')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="sessions"')
    expect(
      (await call(h, '/streams?sub=ann', { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401)
    const noSub = await call(h, '/streams', { headers: operator })
    expect(noSub.status).toBe(400)
    expect(await noSub.json()).toEqual({ error: 'sub is required' })
    const off = createTokenApp({
      config: { ...streamConfig({ limit: 1 }), streams: undefined },
      audit: () => {},
    })
    const answer = await off.request(
      'http://token.test/streams?sub=ann',
      { headers: operator },
      bindings,
    )
    expect(answer.status).toBe(501)
    expect(await answer.json()).toEqual({
      error: 'stream limits are off: set STREAM_LIMIT to turn them on',
    })
  })

  it('works with SESSION_ADMIN_TOKEN and sessions off (no SESSION_SECRET)', async () => {
    const noSessions = createTokenApp({
      config: { ...streamConfig({ limit: 1 }), session: { adminToken: STREAM_ADMIN } },
      audit: () => {},
    })
    const listed = await noSessions.request(
      'http://token.test/streams?sub=ann',
      { headers: operator },
      bindings,
    )
    expect(listed.status).toBe(200)
    const unauthorized = await noSessions.request('http://token.test/streams?sub=ann', {}, bindings)
    expect(unauthorized.status).toBe(401)
  })
})
