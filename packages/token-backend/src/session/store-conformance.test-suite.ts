import { describe, expect, it } from 'vitest'
import type { SessionStore, StoredSession } from './session-store.ts'

// Test-only: excluded from the build and the package (`*.test-suite.ts` in tsconfig.build.json
// and package.json `files`), since it imports vitest.

/** A way to move a store's time forward, for the expiry tests. */
export interface StoreClock {
  /** The store's time, Unix seconds. */
  now(): number
  /**
   * Moves the store's time forward by `seconds` and lets whatever the store runs on time
   * (a sweep, an alarm, a TTL) happen: a fake clock, alarms run by hand, or a real wait. A clock
   * that follows real time should land at the start of the target second: the expiry tests ask
   * the store within one second and check, afterwards, that they did.
   */
  advance(seconds: number): Promise<void>
  /**
   * How long after `untilSeconds` a record may still be kept (a sweep or an alarm a little
   * later); default 60.
   */
  graceSeconds?: number
}

/**
 * Where a clock that follows real time should land when advanced by `seconds` from Unix second
 * `nowSeconds` (see {@link StoreClock.advance}): the start of the target second plus a margin,
 * in ms, so that the test has that whole second.
 *
 * @example
 * ```ts
 * const target = targetSecondMs(nowSeconds(), seconds) // wait until then
 * ```
 */
export function targetSecondMs(nowSeconds: number, seconds: number): number {
  return (nowSeconds + seconds) * 1000 + 20
}

/** What {@link describeSessionStore} needs to run its tests against a store. */
export interface StoreHarness {
  /**
   * The store under test. It may share its state with earlier calls: every test uses fresh
   * session ids and subjects, so nothing left by another test is in its way.
   */
  make(): SessionStore | Promise<SessionStore>
  /** Control over the store's time, or why the store cannot have it (the tests are skipped). */
  clock: StoreClock | { unavailable: string }
  /**
   * A second handle on the same state, as a second instance of the backend has (another
   * client of the same database), or why there is none (the tests are skipped).
   */
  peer: ((store: SessionStore) => SessionStore | Promise<SessionStore>) | { unavailable: string }
}

/** A session lives six hours by default; the expiry tests use short ones (real waits stay short). */
const LIFETIME = 6 * 3600
const SHORT_LIFETIME = 2
/** A clock that really waits spends a few seconds in each expiry test. */
const REAL_CLOCK_TIMEOUT = 20_000

/**
 * The contract of {@link SessionStore} as tests, to run against every implementation (memory,
 * the Durable Object, Redis, yours): a store that passes them keeps the session rules
 * (`SESSION_MAX_NETWORKS`, revocation) exactly, also under concurrent callers and across
 * instances, and does not grow without bound.
 *
 * @example
 * ```ts
 * // my-store.test.ts
 * describeSessionStore('my store', {
 *   make: () => myStore(client),
 *   clock: { unavailable: 'the database keeps real time' },
 *   peer: () => myStore(anotherClient),
 * })
 * ```
 */
export function describeSessionStore(name: string, harness: StoreHarness): void {
  const clock = 'unavailable' in harness.clock ? undefined : harness.clock
  const now = () => clock?.now() ?? Math.floor(Date.now() / 1000)
  const timed = clock === undefined ? it.skip : it
  const timedNote = 'unavailable' in harness.clock ? ` (skipped: ${harness.clock.unavailable})` : ''
  const peer = typeof harness.peer === 'function' ? harness.peer : undefined
  const shared = peer === undefined ? it.skip : it
  const instances = async (): Promise<[SessionStore, SessionStore]> => {
    if (peer === undefined) throw new Error('the harness has no peer')
    const first = await harness.make()
    return [first, await peer(first)]
  }
  const sharedNote = 'unavailable' in harness.peer ? ` (skipped: ${harness.peer.unavailable})` : ''

  const id = () => crypto.randomUUID()
  const session = (fields: Partial<StoredSession> = {}): StoredSession => {
    const iat = fields.iat ?? now()
    return { sid: id(), iat, exp: iat + LIFETIME, ...fields }
  }
  const network = (n: number) => `198.51.${Math.floor(n / 256)}.${n % 256}`
  /** Admits networks 0‥count-1 one after another; their answers. */
  const admitInTurn = async (
    store: SessionStore,
    of: StoredSession,
    count: number,
    max: number,
  ) => {
    const answers: boolean[] = []
    for (let n = 0; n < count; n++) answers.push(await store.admitNetwork(of, network(n), max))
    return answers
  }

  describe(`SessionStore conformance: ${name}`, () => {
    describe('network admission', () => {
      it('admits up to `max` distinct networks and refuses the next', async () => {
        const store = await harness.make()
        const s = session()
        expect(await admitInTurn(store, s, 4, 2)).toEqual([true, true, false, false])
      })

      it('admits a network already admitted again, also once the session is full', async () => {
        const store = await harness.make()
        const s = session()
        expect(await store.admitNetwork(s, network(0), 2)).toBe(true)
        expect(await store.admitNetwork(s, network(0), 2)).toBe(true)
        expect(await store.admitNetwork(s, network(1), 2)).toBe(true)
        expect(await store.admitNetwork(s, network(2), 2)).toBe(false)
        expect(await store.admitNetwork(s, network(0), 2)).toBe(true)
        expect(await store.admitNetwork(s, network(1), 2)).toBe(true)
      })

      it('does not record a refused network', async () => {
        const store = await harness.make()
        const s = session()
        await admitInTurn(store, s, 2, 2)
        expect(await store.admitNetwork(s, network(2), 2)).toBe(false)
        // had network 2 been recorded, the session would hold three and refuse network 3
        expect(await store.admitNetwork(s, network(3), 3)).toBe(true)
        expect(await store.admitNetwork(s, network(2), 3)).toBe(false)
      })

      it('counts against the `max` of each call', async () => {
        const store = await harness.make()
        const s = session()
        expect(await store.admitNetwork(s, network(0), 1)).toBe(true)
        expect(await store.admitNetwork(s, network(1), 1)).toBe(false)
        expect(await store.admitNetwork(s, network(1), 2)).toBe(true)
      })

      it('keeps sessions apart: one full session does not limit another, same networks or not', async () => {
        const store = await harness.make()
        const sub = id()
        const [a, b] = [session({ sub }), session({ sub })]
        await admitInTurn(store, a, 2, 2)
        expect(await store.admitNetwork(a, network(2), 2)).toBe(false)
        expect(await admitInTurn(store, b, 2, 2)).toEqual([true, true])
        expect(await store.admitNetwork(session(), network(2), 1)).toBe(true)
      })

      it('does not revoke: admitted sessions are not revoked', async () => {
        const store = await harness.make()
        const s = session({ sub: id() })
        await admitInTurn(store, s, 3, 2)
        expect(await store.isRevoked(s)).toBe(false)
      })
    })

    describe('revocation', () => {
      it('knows no revocation of a session it has never seen', async () => {
        const store = await harness.make()
        expect(await store.isRevoked(session())).toBe(false)
        expect(await store.isRevoked(session({ sub: id() }))).toBe(false)
      })

      it('revokeSession revokes that session only, not its viewer’s other sessions', async () => {
        const store = await harness.make()
        const sub = id()
        const [revoked, sibling, other] = [session({ sub }), session({ sub }), session()]
        await store.admitNetwork(revoked, network(0), 2)
        await store.revokeSession(revoked.sid, revoked.exp)
        expect(await store.isRevoked(revoked)).toBe(true)
        expect(await store.isRevoked({ ...revoked, sub: undefined })).toBe(true)
        expect(await store.isRevoked(sibling)).toBe(false)
        expect(await store.isRevoked(other)).toBe(false)
      })

      it('revokes a session it has never seen (revoked before its first request)', async () => {
        const store = await harness.make()
        const s = session()
        await store.revokeSession(s.sid, s.exp)
        expect(await store.isRevoked(s)).toBe(true)
      })

      it('revokeViewer revokes the sessions of that sub issued at or before `atSeconds`', async () => {
        const store = await harness.make()
        const [sub, otherSub] = [id(), id()]
        const at = now()
        await store.revokeViewer(sub, at, at + LIFETIME)
        expect(await store.isRevoked(session({ sub, iat: at - 3600 }))).toBe(true)
        expect(await store.isRevoked(session({ sub, iat: at - 1 }))).toBe(true)
        expect(await store.isRevoked(session({ sub, iat: at }))).toBe(true)
        // issued later (the viewer signed in again), another viewer, no viewer at all
        expect(await store.isRevoked(session({ sub, iat: at + 1 }))).toBe(false)
        expect(await store.isRevoked(session({ sub: otherSub, iat: at - 1 }))).toBe(false)
        expect(await store.isRevoked(session({ iat: at - 1 }))).toBe(false)
      })

      it('revokeViewer keeps its moment to the millisecond: a session of the same second after it plays', async () => {
        const store = await harness.make()
        const sub = id()
        const at = now() + 0.344
        await store.revokeViewer(sub, at, Math.ceil(at) + LIFETIME)
        expect(await store.isRevoked(session({ sub, iat: at - 0.244 }))).toBe(true)
        expect(await store.isRevoked(session({ sub, iat: at }))).toBe(true)
        expect(await store.isRevoked(session({ sub, iat: at + 0.013 }))).toBe(false)
        // a credential of an earlier release: whole seconds, issued in that second or before
        expect(await store.isRevoked(session({ sub, iat: Math.floor(at) }))).toBe(true)
      })

      it('moves a viewer’s revocation forward, never back', async () => {
        const store = await harness.make()
        const sub = id()
        const at = now()
        await store.revokeViewer(sub, at, at + LIFETIME)
        await store.revokeViewer(sub, at - 100, at + LIFETIME)
        expect(await store.isRevoked(session({ sub, iat: at }))).toBe(true)
        await store.revokeViewer(sub, at + 50, at + LIFETIME)
        expect(await store.isRevoked(session({ sub, iat: at + 50 }))).toBe(true)
        expect(await store.isRevoked(session({ sub, iat: at + 51 }))).toBe(false)
      })

      it('revoking twice keeps the session revoked', async () => {
        const store = await harness.make()
        const s = session()
        await store.revokeSession(s.sid, s.exp)
        await store.revokeSession(s.sid, s.exp)
        expect(await store.isRevoked(s)).toBe(true)
      })
    })

    describe('expiry', () => {
      const grace = () => clock?.graceSeconds ?? 60
      /** Moves the store's time to `seconds` (never back). */
      const advanceTo = async (seconds: number) => {
        const by = seconds - now()
        if (by > 0) await clock?.advance(by)
      }
      /** A request of another session: stores may forget lazily, while they are used. */
      const use = async (store: SessionStore) => {
        await store.admitNetwork(session(), network(0), 1)
      }

      timed(
        `keeps every record until its \`untilSeconds\` and forgets it at most the grace period later${timedNote}`,
        async () => {
          const store = await harness.make()
          const start = now()
          const until = start + SHORT_LIFETIME
          const sub = id()
          const admitted = session({ iat: start, exp: until })
          const revoked = session({ iat: start, exp: until })
          const ofViewer = session({ sub, iat: start, exp: until })
          await admitInTurn(store, admitted, 2, 2)
          await store.revokeSession(revoked.sid, until)
          await store.revokeViewer(sub, start, until)

          // the last second these sessions are valid in (a session expires at `exp`)
          await advanceTo(until - 1)
          await use(store)
          const kept = [
            await store.admitNetwork(admitted, network(2), 2),
            await store.isRevoked(revoked),
            await store.isRevoked(ofViewer),
          ]
          // on a real clock a starved machine can overrun: then these answers prove nothing
          expect(now(), 'the store answered after the sessions had expired').toBeLessThan(until)
          expect(kept).toEqual([false, true, true])

          await advanceTo(until + grace() + 1)
          await use(store)
          expect(await store.isRevoked(revoked)).toBe(false)
          expect(await store.isRevoked(ofViewer)).toBe(false)
          expect(await store.admitNetwork(admitted, network(2), 2)).toBe(true)
        },
        REAL_CLOCK_TIMEOUT,
      )

      timed(
        `does not shorten a record when a later call asks for less time${timedNote}`,
        async () => {
          const store = await harness.make()
          const start = now()
          const [short, long] = [start + SHORT_LIFETIME, start + 2 * SHORT_LIFETIME + grace() + 2]
          const sub = id()
          const revoked = session({ iat: start, exp: long })
          const ofViewer = session({ sub, iat: start, exp: long })
          await store.revokeSession(revoked.sid, long)
          await store.revokeSession(revoked.sid, short)
          await store.revokeViewer(sub, start, long)
          await store.revokeViewer(sub, start, short)
          await store.admitNetwork(revoked, network(0), 1)

          await advanceTo(short + grace() + 1)
          await use(store)
          expect(await store.isRevoked(revoked)).toBe(true)
          expect(await store.isRevoked(ofViewer)).toBe(true)
          expect(await store.admitNetwork(revoked, network(1), 1)).toBe(false)
        },
        REAL_CLOCK_TIMEOUT,
      )
    })

    describe('concurrent callers', () => {
      it('admits exactly `max` of 50 simultaneous distinct networks, and records just those', async () => {
        const store = await harness.make()
        const s = session()
        const networks = Array.from({ length: 50 }, (_, n) => network(n))
        const answers = await Promise.all(networks.map((n) => store.admitNetwork(s, n, 3)))
        expect(answers.filter(Boolean)).toHaveLength(3)
        // the winners are the session's networks: admitted again, every other one refused
        const again = await Promise.all(networks.map((n) => store.admitNetwork(s, n, 3)))
        expect(again).toEqual(answers)
      })

      it('counts 50 simultaneous admissions of one network once', async () => {
        const store = await harness.make()
        const s = session()
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => store.admitNetwork(s, network(0), 2)),
        )
        expect(answers.every(Boolean)).toBe(true)
        expect(await admitInTurn(store, s, 3, 2)).toEqual([true, true, false])
      })

      it('keeps the latest of simultaneous viewer revocations, whatever order they land in', async () => {
        const store = await harness.make()
        const sub = id()
        const at = now()
        // the latest first: a store that lets the last write win ends at `at`
        await Promise.all(
          Array.from({ length: 20 }, (_, n) => store.revokeViewer(sub, at + 19 - n, at + LIFETIME)),
        )
        expect(await store.isRevoked(session({ sub, iat: at + 19 }))).toBe(true)
        expect(await store.isRevoked(session({ sub, iat: at + 20 }))).toBe(false)
      })
    })

    describe('instances sharing the store', () => {
      shared(`sees a revocation made through another instance${sharedNote}`, async () => {
        const [a, b] = await instances()
        const sub = id()
        const [revoked, ofViewer] = [session(), session({ sub })]
        expect(await b.isRevoked(revoked)).toBe(false)
        await a.revokeSession(revoked.sid, revoked.exp)
        await a.revokeViewer(sub, ofViewer.iat, ofViewer.exp)
        expect(await b.isRevoked(revoked)).toBe(true)
        expect(await b.isRevoked(ofViewer)).toBe(true)
      })

      shared(
        `counts networks across instances, also 50 simultaneous ones split between two${sharedNote}`,
        async () => {
          const [a, b] = await instances()
          const s = session()
          expect(await a.admitNetwork(s, network(0), 2)).toBe(true)
          expect(await b.admitNetwork(s, network(1), 2)).toBe(true)
          expect(await a.admitNetwork(s, network(2), 2)).toBe(false)

          const racing = session()
          const answers = await Promise.all(
            Array.from({ length: 50 }, (_, n) =>
              (n % 2 === 0 ? a : b).admitNetwork(racing, network(n), 3),
            ),
          )
          expect(answers.filter(Boolean)).toHaveLength(3)
        },
      )
    })

    describe('CDN drains (optional: a store without them drains per process)', () => {
      const drains = async (store: SessionStore) => {
        if (store.drainedCdns === undefined || store.drainCdn === undefined)
          throw new Error('this store keeps no CDN drains: leave both methods out of the harness')
        return { drained: store.drainedCdns.bind(store), drain: store.drainCdn.bind(store) }
      }
      it('lists a drained CDN until it is undrained; draining twice lists it once', async () => {
        const store = await harness.make()
        if (store.drainedCdns === undefined) return
        const { drained, drain } = await drains(store)
        const [cdn, other] = [`cdn-${id().slice(0, 8)}`, `cdn-${id().slice(0, 8)}`]
        await drain(cdn, true)
        await drain(cdn, true)
        await drain(other, true)
        expect((await drained()).filter((listed) => listed === cdn)).toEqual([cdn])
        await drain(cdn, false)
        expect(await drained()).not.toContain(cdn)
        expect(await drained()).toContain(other)
        await drain(other, false)
        expect(await drained()).not.toContain(other)
      })

      shared(`drains a CDN for every instance${sharedNote}`, async () => {
        const [a, b] = await instances()
        if (a.drainedCdns === undefined) return
        const cdn = `cdn-${id().slice(0, 8)}`
        await (await drains(a)).drain(cdn, true)
        expect(await (await drains(b)).drained()).toContain(cdn)
        await (await drains(b)).drain(cdn, false)
        expect(await (await drains(a)).drained()).not.toContain(cdn)
      })
    })
  })
}
