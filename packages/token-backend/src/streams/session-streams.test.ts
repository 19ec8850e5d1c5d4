import { describe, expect, it } from 'vitest'
import { asViewer, streamApp } from '../../test/streams.ts'
import type { StreamSettings } from './stream-settings.ts'
import { memoryStreamStore, type StreamStore } from './stream-store.ts'

// The session lane with stream limits, in workerd: /session starts a stream, each leaf renews it.

type Harness = ReturnType<typeof streamApp>
const viewer = () => `viewer-${crypto.randomUUID()}`

/** Issues a session; the path of one of its segments, or the refusal. */
async function issue({ app }: Harness, sub: string) {
  const response = await app.request(
    'http://token.test/session?video=demo&type=vod',
    await asViewer(sub),
  )
  if (response.status !== 200) return { response, leaf: '' }
  const { session_url } = (await response.json()) as { session_url: string }
  return { response, leaf: new URL(session_url).pathname.replace(/master\.m3u8$/, 'v0/seg_001.ts') }
}

async function issued(harness: Harness, sub: string) {
  const { response, leaf } = await issue(harness, sub)
  expect(response.status).toBe(200)
  return leaf
}

const fetchLeaf = ({ app }: Harness, leaf: string) => app.request(`http://token.test${leaf}`)

/** A memory store that counts the calls it answers. */
function countedStore(): StreamStore & { calls: number } {
  const inner = memoryStreamStore()
  const counted = {
    calls: 0,
    admit: (...args: Parameters<StreamStore['admit']>) => {
      counted.calls++
      return inner.admit(...args)
    },
    list: inner.list,
    end: inner.end,
  }
  return counted
}

const harness = (settings: Partial<StreamSettings> & { limit: number }, streams?: StreamStore) =>
  streamApp(settings, streams === undefined ? {} : { streams })

describe('sessions with STREAM_LIMIT=2', () => {
  it('HEAD /session checks like GET and issues nothing: no session, no slot, no audit line', async () => {
    const h = harness({ limit: 1 })
    const sub = viewer()
    for (let i = 0; i < 2; i++) {
      const head = await h.app.request('http://token.test/session?video=demo', {
        ...(await asViewer(sub)),
        method: 'HEAD',
      })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe('')
    }
    expect(h.lines).toEqual([])
    await issued(h, sub)
  })

  it('a session is a stream: the third is refused with the 409 body, token streams count alike', async () => {
    const h = harness({ limit: 2 })
    const sub = viewer()
    await issued(h, sub)
    const token = await h.app.request('http://token.test/token?video=demo', await asViewer(sub))
    expect(token.status).toBe(200)
    const { response } = await issue(h, sub)
    expect(response.status).toBe(409)
    expect(await response.json()).toMatchObject({
      code: 'stream_limit',
      limit: 2,
      streams: [{}, {}],
    })
    expect(h.lines.filter((line) => String(line.event).startsWith('stream_'))).toEqual([
      expect.objectContaining({ event: 'stream_admitted', lane: 'session', active: 1 }),
      expect.objectContaining({ event: 'stream_admitted', lane: 'token', active: 2 }),
      expect.objectContaining({ event: 'stream_refused', lane: 'session', active: 2 }),
    ])
  })

  it('leaves keep a session active; idle past SESSION_STREAM_IDLE it frees its slot, and comes back only if there is room', async () => {
    const h = harness({ limit: 1, sessionIdleSeconds: 60 })
    const sub = viewer()
    const first = await issued(h, sub)
    // played for five minutes: a leaf every 30 s keeps it
    for (let i = 0; i < 10; i++) {
      h.clock.ms += 30_000
      expect((await fetchLeaf(h, first)).status).toBe(302)
    }
    expect((await issue(h, sub)).response.status).toBe(409)
    // paused longer than the idle time: the slot is free, another device takes it
    h.clock.ms += 61_000
    const second = await issued(h, sub)
    expect((await fetchLeaf(h, second)).status).toBe(302)
    const back = await fetchLeaf(h, first)
    expect(back.status).toBe(403)
    expect(back.headers.get('access-control-allow-origin')).toBe('*')
    expect(await back.json()).toMatchObject({ code: 'stream_limit', limit: 1, streams: [{}] })
    // the other one pauses too: the first comes back as a new stream
    h.clock.ms += 61_000
    expect((await fetchLeaf(h, first)).status).toBe(302)
    expect((await fetchLeaf(h, second)).status).toBe(403)
  })

  it('evict-oldest: the oldest session is refused at its next leaf with the JSON 403, never re-admitted', async () => {
    const h = harness({ limit: 2, policy: 'evict-oldest' })
    const sub = viewer()
    const oldest = await issued(h, sub)
    expect((await fetchLeaf(h, oldest)).status).toBe(302)
    const middle = await issued(h, sub)
    const newest = await issued(h, sub)
    for (let i = 0; i < 2; i++) {
      h.clock.ms += 61_000 // past its idle time too: an evicted stream stays ended
      const refused = await fetchLeaf(h, oldest)
      expect(refused.status).toBe(403)
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await refused.json()).toEqual({
        error: 'stream ended: a newer stream of this viewer took its place',
        code: 'stream_ended',
        reason: 'evicted',
      })
      expect((await fetchLeaf(h, newest)).status).toBe(302)
    }
    expect((await fetchLeaf(h, middle)).status).toBe(302)
  })

  it('writes a playing session to the store at most once a second per instance', async () => {
    const store = countedStore()
    const h = harness({ limit: 2 }, store)
    const leaf = await issued(h, viewer())
    expect(store.calls).toBe(1)
    for (let i = 0; i < 10; i++) {
      h.clock.ms += 200
      expect((await fetchLeaf(h, leaf)).status).toBe(302)
    }
    // 2 s of leaves after the issuance: one write a second
    expect(store.calls).toBe(3)
    // a player's parallel requests, once the second is over: one write for all of them
    h.clock.ms += 1000
    const answers = await Promise.all(Array.from({ length: 10 }, () => fetchLeaf(h, leaf)))
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(302))
    expect(store.calls).toBe(4)
  })
})
