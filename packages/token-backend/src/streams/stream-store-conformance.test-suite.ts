import { describe, expect, it } from 'vitest'
import {
  MOST_EVICTIONS_REMEMBERED,
  MOST_LOGGED_OVER_LIMIT,
  type StreamRequest,
  type StreamVerdict,
} from './stream-ledger.ts'
import type { StreamStore } from './stream-store.ts'

// Test-only: excluded from the build and the package (`*.test-suite.ts`), since it imports vitest.

/** What {@link describeStreamStore} needs to run its tests against a store. */
export interface StreamStoreHarness {
  /** The store under test; it may share state with earlier calls (every test has its own viewers). */
  make(): StreamStore | Promise<StreamStore>
  /**
   * Further handles on the same state, as further instances of the backend have (other clients
   * of the same database), or why there are none (those tests then use the one store).
   */
  peers: ((count: number) => Promise<StreamStore[]>) | { unavailable: string }
}

const MINUTE = 60_000

/**
 * The contract of {@link StreamStore} as tests, for every implementation (memory, the Durable
 * Object, Redis, yours): the rules of the stream ledger, kept exactly under concurrent starts of
 * one viewer, also across instances. Time is the request's (`nowMs`): no test waits.
 *
 * @example
 * ```ts
 * describeStreamStore('my store', { make: () => myStore(client), peers: async (n) => … })
 * ```
 */
export function describeStreamStore(name: string, harness: StreamStoreHarness): void {
  // the real clock: a store that keeps real time (Redis' PXAT, alarms) sees what a request would
  const now = () => Date.now()
  const viewer = () => `viewer-${crypto.randomUUID()}`
  const newId = () => crypto.randomUUID().replaceAll('-', '')
  const ask = (fields: Partial<StreamRequest> & { limit?: number } = {}): StreamRequest => {
    const nowMs = fields.nowMs ?? now()
    return {
      newId: newId(),
      lane: 'token',
      nowMs,
      untilMs: nowMs + MINUTE,
      keepUntilMs: nowMs + MINUTE,
      limit: 2,
      policy: 'reject-newest',
      mode: 'enforce',
      ...fields,
    }
  }
  const admitted = (verdict: StreamVerdict) => {
    if (verdict.kind !== 'admitted') throw new Error(`expected admitted, got ${verdict.kind}`)
    return verdict
  }
  const instances = async (count: number): Promise<StreamStore[]> => {
    const first = await harness.make()
    if (typeof harness.peers !== 'function') return Array.from({ length: count }, () => first)
    return [first, ...(await harness.peers(count - 1))]
  }
  const peersNote =
    typeof harness.peers === 'function' ? '' : ` (one instance: ${harness.peers.unavailable})`

  describe(`StreamStore conformance: ${name}`, () => {
    it('admits up to the limit, then refuses the newest and names the active streams, oldest first', async () => {
      const store = await harness.make()
      const sub = viewer()
      const first = admitted(await store.admit(sub, ask({ nowMs: now() })))
      const second = admitted(await store.admit(sub, ask({ nowMs: now() + 1000 })))
      expect([first.active, second.active]).toEqual([1, 2])
      expect(first.lease.lane).toBe('token')
      expect(first.evicted).toBeUndefined()
      const third = await store.admit(sub, ask({ nowMs: now() + 2000 }))
      expect(third.kind).toBe('refused')
      if (third.kind !== 'refused') return
      expect(third.active.map((lease) => lease.id)).toEqual([first.lease.id, second.lease.id])
      expect(await store.list(sub, now() + 3000)).toHaveLength(2)
    })

    it('renews a stream by its id: the same id, a longer lease, never counted twice', async () => {
      const store = await harness.make()
      const sub = viewer()
      const first = admitted(await store.admit(sub, ask()))
      admitted(await store.admit(sub, ask()))
      const at = now() + 30_000
      const renewed = await store.admit(
        sub,
        ask({ id: first.lease.id, nowMs: at, untilMs: at + MINUTE }),
      )
      expect(renewed).toMatchObject({
        kind: 'renewed',
        lease: {
          id: first.lease.id,
          startedAt: first.lease.startedAt,
          lastSeenAt: at,
          expiresAt: at + MINUTE,
        },
      })
      // a retried refresh (an earlier expiry) never shortens the lease
      const retried = await store.admit(
        sub,
        ask({ id: first.lease.id, nowMs: at, untilMs: at + 1000 }),
      )
      expect(retried).toMatchObject({ kind: 'renewed', lease: { expiresAt: at + MINUTE } })
      expect(await store.list(sub, at)).toHaveLength(2)
    })

    it('starts a new stream for an unknown or expired id, and frees the slot of an expired one', async () => {
      const store = await harness.make()
      const sub = viewer()
      const start = now()
      const old = admitted(await store.admit(sub, ask({ nowMs: start, untilMs: start + 10_000 })))
      admitted(await store.admit(sub, ask({ nowMs: start, untilMs: start + MINUTE })))
      expect((await store.admit(sub, ask({ nowMs: start + 5000 }))).kind).toBe('refused')
      const unknown = await store.admit(
        sub,
        ask({ id: 'never-admitted-id-000000', nowMs: start + 5000 }),
      )
      expect(unknown.kind).toBe('refused')
      // the first stream was not seen again before its lease ran out: its slot is free
      const later = start + 11_000
      expect((await store.list(sub, later)).map((lease) => lease.id)).not.toContain(old.lease.id)
      const back = admitted(
        await store.admit(
          sub,
          ask({ id: old.lease.id, nowMs: later, newId: 'fresh-id-0000000000000' }),
        ),
      )
      expect(back.lease.id).toBe('fresh-id-0000000000000')
    })

    it('re-admits a session stream under its own id (newId = id) once it was idle', async () => {
      const store = await harness.make()
      const sub = viewer()
      const start = now()
      const sid = newId()
      const session = {
        lane: 'session' as const,
        id: sid,
        newId: sid,
        keepUntilMs: start + 6 * MINUTE,
      }
      admitted(await store.admit(sub, ask({ ...session, nowMs: start, untilMs: start + 1000 })))
      const idle = start + 2000
      const again = admitted(
        await store.admit(sub, ask({ ...session, nowMs: idle, untilMs: idle + 1000 })),
      )
      expect(again.lease).toMatchObject({ id: sid, lane: 'session', startedAt: idle })
    })

    it('evict-oldest: the newest is admitted, the oldest ends, and its next request is told so', async () => {
      const store = await harness.make()
      const sub = viewer()
      const policy = 'evict-oldest' as const
      const start = now()
      const oldest = admitted(await store.admit(sub, ask({ policy, nowMs: start })))
      const middle = admitted(await store.admit(sub, ask({ policy, nowMs: start + 1 })))
      const newest = admitted(await store.admit(sub, ask({ policy, nowMs: start + 2 })))
      expect(newest.evicted?.id).toBe(oldest.lease.id)
      expect(newest.active).toBe(2)
      expect(
        await store.admit(sub, ask({ policy, id: oldest.lease.id, nowMs: start + 3 })),
      ).toEqual({
        kind: 'ended',
        reason: 'evicted',
      })
      expect((await store.list(sub, start + 3)).map((lease) => lease.id)).toEqual([
        middle.lease.id,
        newest.lease.id,
      ])
    })

    it('log mode admits beyond the limit, saying what enforce would have done, and evicts nothing', async () => {
      const store = await harness.make()
      const sub = viewer()
      for (const policy of ['reject-newest', 'evict-oldest'] as const) {
        const verdict = admitted(await store.admit(sub, ask({ policy, mode: 'log', limit: 1 })))
        expect(verdict.evicted).toBeUndefined()
        expect(verdict.wouldRefuse).toBe(policy === 'evict-oldest')
      }
      expect(await store.list(sub, now())).toHaveLength(2)
    })

    it(`a viewer looping new streams keeps a bounded record: the ${MOST_EVICTIONS_REMEMBERED} latest evictions remembered, in log mode the limit + ${MOST_LOGGED_OVER_LIMIT} latest streams`, async () => {
      const store = await harness.make()
      const [evicting, logging] = [viewer(), viewer()]
      const policy = 'evict-oldest' as const
      const start = now()
      const ids: string[] = []
      const loops = MOST_EVICTIONS_REMEMBERED + 6
      for (let index = 0; index < loops; index++) {
        const at = start + index
        ids.push(
          admitted(await store.admit(evicting, ask({ policy, limit: 1, nowMs: at }))).lease.id,
        )
        admitted(await store.admit(logging, ask({ mode: 'log', limit: 1, nowMs: at })))
      }
      // the 69 first were evicted: the 64 latest of them are still told "ended"
      const latestEvicted = ids.at(-2) ?? ''
      expect(await store.admit(evicting, ask({ policy, limit: 1, id: latestEvicted }))).toEqual({
        kind: 'ended',
        reason: 'evicted',
      })
      const oldestRemembered = ids[loops - 1 - MOST_EVICTIONS_REMEMBERED] ?? ''
      expect(
        (await store.admit(evicting, ask({ policy, limit: 1, id: oldestRemembered }))).kind,
      ).toBe('ended')
      // the first is forgotten: it may start again, as any new stream may under evict-oldest
      const first = ids[0] ?? ''
      const again = admitted(
        await store.admit(evicting, ask({ policy, limit: 1, id: first, newId: first })),
      )
      expect(again.lease.id).toBe(first)
      expect(await store.list(logging, start + loops)).toHaveLength(1 + MOST_LOGGED_OVER_LIMIT)
    })

    it('ends one stream or all of them for the operator; ended streams are never admitted anew', async () => {
      const store = await harness.make()
      const sub = viewer()
      const [a, b, c] = [
        admitted(await store.admit(sub, ask({ limit: 3 }))),
        admitted(await store.admit(sub, ask({ limit: 3 }))),
        admitted(await store.admit(sub, ask({ limit: 3 }))),
      ]
      expect(await store.end(sub, a.lease.id, now())).toBe(1)
      expect(await store.end(sub, a.lease.id, now())).toBe(0)
      expect(await store.admit(sub, ask({ id: a.lease.id }))).toEqual({
        kind: 'ended',
        reason: 'ended',
      })
      expect(await store.end(sub, undefined, now())).toBe(2)
      for (const id of [b.lease.id, c.lease.id])
        expect(await store.admit(sub, ask({ id }))).toEqual({ kind: 'ended', reason: 'ended' })
      expect(await store.list(sub, now())).toEqual([])
      expect(await store.end(viewer(), undefined, now())).toBe(0)
    })

    it('counts each viewer apart', async () => {
      const store = await harness.make()
      const [one, two] = [viewer(), viewer()]
      for (const sub of [one, one, two, two]) admitted(await store.admit(sub, ask()))
      expect((await store.admit(one, ask())).kind).toBe('refused')
      expect(await store.list(two, now())).toHaveLength(2)
    })

    it(`20 starts of one viewer at once admit exactly the limit, over instances sharing the store${peersNote}`, async () => {
      const stores = await instances(3)
      const sub = viewer()
      const verdicts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (stores[i % stores.length] as StreamStore).admit(sub, ask({ limit: 3 })),
        ),
      )
      expect(verdicts.filter((verdict) => verdict.kind === 'admitted')).toHaveLength(3)
      expect(verdicts.filter((verdict) => verdict.kind === 'refused')).toHaveLength(17)
      expect(await stores[1 % stores.length]?.list(sub, now())).toHaveLength(3)
    })

    it(`a client's id named 20 times at once (a start and its retries, newId = id) is one stream${peersNote}`, async () => {
      const stores = await instances(3)
      const sub = viewer()
      const id = newId()
      const verdicts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (stores[i % stores.length] as StreamStore).admit(sub, ask({ id, newId: id, limit: 1 })),
        ),
      )
      expect(verdicts.map((verdict) => verdict.kind).sort()).toEqual([
        'admitted',
        ...Array<string>(19).fill('renewed'),
      ])
      expect((await (stores[0] as StreamStore).list(sub, now())).map((lease) => lease.id)).toEqual([
        id,
      ])
      // evicted, the id is not adopted again while its end is remembered
      admitted(
        await (stores[1 % stores.length] as StreamStore).admit(
          sub,
          ask({ limit: 1, policy: 'evict-oldest' }),
        ),
      )
      expect(await (stores[0] as StreamStore).admit(sub, ask({ id, newId: id, limit: 1 }))).toEqual(
        {
          kind: 'ended',
          reason: 'evicted',
        },
      )
    })

    it('one id from one network more than maxNetworks is refused (networks), the stream plays on for the others', async () => {
      const store = await harness.make()
      const sub = viewer()
      const id = newId()
      const from = (network: string) => ask({ id, newId: id, network, maxNetworks: 2, limit: 1 })
      expect(admitted(await store.admit(sub, from('net-a'))).lease.networks).toEqual(['net-a'])
      const second = await store.admit(sub, from('net-b'))
      expect(second).toMatchObject({ kind: 'renewed', lease: { networks: ['net-a', 'net-b'] } })
      expect(await store.admit(sub, from('net-c'))).toEqual({ kind: 'ended', reason: 'networks' })
      for (const network of ['net-a', 'net-b'])
        expect((await store.admit(sub, from(network))).kind).toBe('renewed')
      // without a network (the session lane, SESSION_BINDING=none): not counted
      expect((await store.admit(sub, ask({ id, newId: id, limit: 1 }))).kind).toBe('renewed')
      expect((await store.list(sub, now())).map((lease) => lease.networks)).toEqual([
        ['net-a', 'net-b'],
      ])
    })

    it(`20 starts at once with evict-oldest leave exactly the limit active, every other one evicted${peersNote}`, async () => {
      const stores = await instances(3)
      const sub = viewer()
      const verdicts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (stores[i % stores.length] as StreamStore).admit(
            sub,
            ask({ limit: 2, policy: 'evict-oldest' }),
          ),
        ),
      )
      expect(verdicts.every((verdict) => verdict.kind === 'admitted')).toBe(true)
      const active = await (stores[0] as StreamStore).list(sub, now())
      expect(active).toHaveLength(2)
      const evicted = verdicts.flatMap((verdict) =>
        verdict.kind === 'admitted' && verdict.evicted ? [verdict.evicted.id] : [],
      )
      expect(new Set(evicted).size).toBe(18)
    })
  })
}
