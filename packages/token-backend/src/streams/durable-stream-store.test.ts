import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { asViewer, STREAM_ADMIN, streamApp } from '../../test/streams.ts'
import type { SessionRegistry } from '../session/session-registry.ts'
import { durableStreamStore } from './durable-stream-store.ts'
import { LATEST_LEASE_MS, type StreamRequest } from './stream-ledger.ts'
import { describeStreamStore } from './stream-store-conformance.test-suite.ts'

// The SessionRegistry Durable Object of test/wrangler.test.jsonc, in workerd. Every store over
// the namespace reaches the one object of a viewer, as every isolate's would.
const registry = (env as unknown as { SESSION_REGISTRY: DurableObjectNamespace<SessionRegistry> })
  .SESSION_REGISTRY

describeStreamStore('durableStreamStore (SessionRegistry Durable Object)', {
  make: () => durableStreamStore(registry),
  peers: async (count) => Array.from({ length: count }, () => durableStreamStore(registry)),
})

// An absolute `expire` may lie centuries ahead (no MAX_EXPIRE_SECONDS: no cap, as the spec
// says); the object's alarm takes no date after 2189. Such a lease is kept until
// LATEST_LEASE_MS, and the record still gets the alarm that deletes it.
describe('durableStreamStore, a lease asked until after 2189', () => {
  const FAR_EXPIRE = 9_999_999_999_999 // seconds: the year 318857

  it('is admitted until LATEST_LEASE_MS, listed with a printable date, and deleted by an alarm', async () => {
    const streams = durableStreamStore(registry)
    const sub = `viewer-${crypto.randomUUID()}`
    const nowMs = Date.now()
    const farMs = (FAR_EXPIRE + 30) * 1000
    const request: StreamRequest = {
      newId: 'far-future-stream-id-0001',
      lane: 'token',
      nowMs,
      untilMs: farMs,
      keepUntilMs: farMs,
      limit: 2,
      policy: 'reject-newest',
      mode: 'enforce',
    }
    expect((await streams.admit(sub, request)).kind).toBe('admitted')
    const [lease] = await streams.list(sub, nowMs)
    expect(lease?.expiresAt).toBe(LATEST_LEASE_MS)
    expect(new Date(LATEST_LEASE_MS).toISOString()).toBe('2188-01-01T00:00:00.000Z')
    const alarm = await runInDurableObject(registry.getByName(`viewer:${sub}`), (_, state) =>
      state.storage.getAlarm(),
    )
    expect(alarm).toBeGreaterThan(LATEST_LEASE_MS)
    // a renewal asking as far again changes nothing, and is no error either
    expect((await streams.admit(sub, { ...request, id: request.newId })).kind).toBe('renewed')
    expect(await streams.end(sub, undefined, nowMs)).toBe(1)
  })

  it('GET /token with such an expire is a 200, and the operator can still list the viewer', async () => {
    const { app } = streamApp({ limit: 2 })
    const sub = `viewer-${crypto.randomUUID()}`
    const token = await app.request(
      `http://token.test/token?video=demo&expire=${FAR_EXPIRE}`,
      await asViewer(sub),
      env,
    )
    expect(token.status).toBe(200)
    expect((await token.json<{ expires: number }>()).expires).toBe(FAR_EXPIRE)
    const listed = await app.request(
      `http://token.test/streams?sub=${sub}`,
      { headers: { authorization: `Bearer ${STREAM_ADMIN}` } },
      env,
    )
    expect(listed.status).toBe(200)
    const { streams } = await listed.json<{ streams: { expires_at: string }[] }>()
    expect(streams.map((stream) => stream.expires_at)).toEqual(['2188-01-01T00:00:00.000Z'])
  })

  it('heals a record written before the cap: its next write sets an alarm instead of throwing', async () => {
    const sub = `viewer-${crypto.randomUUID()}`
    const stub = registry.getByName(`viewer:${sub}`)
    const nowMs = Date.now()
    const farMs = (FAR_EXPIRE + 30) * 1000
    // straight to the object, as a store before LATEST_LEASE_MS wrote it
    await runInDurableObject(stub, (_, state) =>
      state.storage.put('streams', {
        streams: [
          {
            id: 'old-far-stream-id-0001',
            lane: 'token',
            startedAt: nowMs,
            lastSeenAt: nowMs,
            expiresAt: farMs,
            keepUntil: farMs,
          },
        ],
        ended: [],
      }),
    )
    expect(await durableStreamStore(registry).end(sub, undefined, nowMs)).toBe(1)
    const alarm = await runInDurableObject(stub, (_, state) => state.storage.getAlarm())
    expect(alarm).toBe(LATEST_LEASE_MS + 60_000)
  })
})
