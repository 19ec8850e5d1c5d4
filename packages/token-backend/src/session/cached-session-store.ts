/**
 * A session store's answers kept in this process or isolate for a second, so a session's
 * segments do not each cost a round trip to Redis or the Durable Object, and sessions already
 * playing ride out a short outage of the store.
 */
import { LruMap } from '../lru.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import type { SessionStore, StoredSession } from './session-store.ts'

/** How long this isolate trusts the store's "not revoked" (on top of the leaf lifetime). */
export const REVOCATION_CACHE_MS = 1000

/**
 * How long, at most, {@link cachedSessionStore} keeps playing a session it last saw not revoked
 * while the store is unavailable (`StoreUnavailableError`), counted from that last answer's
 * expiry: 30 s covers a restart or a failover of Redis without every viewer's playback stalling,
 * and bounds what an instance can miss (a revocation made just before the outage).
 */
export const STORE_OUTAGE_TRUST_MS = 30_000

/** How {@link cachedSessionStore} keeps answers; every field has a default. */
export interface SessionCacheOptions {
  /** How long an answer of the store is kept, in ms (default {@link REVOCATION_CACHE_MS}). */
  ttlMs?: number | undefined
  /** The clock, in ms (default `Date.now`). */
  now?: (() => number) | undefined
  /**
   * Answers kept at most, of each kind (revocation answers, admitted networks): the most
   * recently used stay, one drops when a new one comes (default 10,000).
   */
  capacity?: number | undefined
  /** See {@link STORE_OUTAGE_TRUST_MS} (the default). */
  outageTrustMs?: number | undefined
}

/** The defaults of {@link SessionCacheOptions}, in one place. */
export const SESSION_CACHE_DEFAULTS = Object.freeze({
  ttlMs: REVOCATION_CACHE_MS,
  capacity: 10_000,
  outageTrustMs: STORE_OUTAGE_TRUST_MS,
})

/**
 * Keeps a store's answers in this isolate for `ttlMs` (admissions for good: a network once
 * admitted stays admitted), so a session's segments do not each cost a round trip to the
 * store. Revocation then takes effect up to `ttlMs` later, on top of the leaf lifetime. At most
 * `capacity` answers are kept, the most recently used: a full cache drops one answer at a time,
 * never all of them (which would send every playing session to the store in the next second).
 *
 * While the store is unavailable (it throws {@link StoreUnavailableError}), the policy is:
 * - a session this instance saw not revoked within the last `ttlMs + outageTrustMs` keeps
 *   playing from the networks already admitted here; after that its requests fail (503) until the
 *   store answers again, so an outage delays a revocation by at most `outageTrustMs`, never for
 *   good (and revoking fails closed meanwhile: the operator is told, nothing is dropped silently);
 * - a session seen revoked stays refused;
 * - anything else (a session or a network this instance does not know yet) fails closed: a new
 *   network is not admitted on a guess, since that is how a leaked URL spreads.
 * Nothing is re-checked in the background: the first answer of the store after the outage wins.
 *
 * The positional form `cachedSessionStore(store, ttlMs, now, capacity, outageTrustMs)` still
 * works (deprecated).
 *
 * @example
 * ```ts
 * const store = cachedSessionStore(durableSessionStore(env.SESSION_REGISTRY), { ttlMs: 1000 })
 * ```
 */
export function cachedSessionStore(store: SessionStore, options?: SessionCacheOptions): SessionStore
/** @deprecated Pass the options as one object: `cachedSessionStore(store, { ttlMs, now })`. */
export function cachedSessionStore(
  store: SessionStore,
  ttlMs: number,
  now?: () => number,
  capacity?: number,
  outageTrustMs?: number,
): SessionStore
export function cachedSessionStore(
  store: SessionStore,
  options: SessionCacheOptions | number = {},
  ...positional: [now?: () => number, capacity?: number, outageTrustMs?: number]
): SessionStore {
  const given =
    typeof options === 'number'
      ? {
          ttlMs: options,
          now: positional[0],
          capacity: positional[1],
          outageTrustMs: positional[2],
        }
      : options
  const { ttlMs, capacity, outageTrustMs } = {
    ...SESSION_CACHE_DEFAULTS,
    ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
  }
  const now = given.now ?? Date.now
  const admitted = new LruMap<string, true>(capacity)
  const revoked = new LruMap<string, { at: number; value: boolean }>(capacity)
  const asking = new Map<string, Promise<boolean>>()
  // revocations made through this instance: an answer asked for before one is not kept
  let revocations = 0
  // before and after a revocation through this instance is written: no answer asked for until
  // then is kept or shared
  const forgetAnswers = (matches: (key: string) => boolean) => {
    revocations++
    asking.clear()
    for (const key of [...revoked.keys()]) if (matches(key)) revoked.delete(key)
  }
  const ask = async (
    session: StoredSession,
    key: string,
    cached: { at: number; value: boolean } | undefined,
  ) => {
    const generation = revocations
    let value: boolean
    try {
      value = await store.isRevoked(session)
    } catch (err) {
      // the last answer's time is not moved: the trust ends outageTrustMs after it expired
      const trusted =
        cached !== undefined && (cached.value || now() - cached.at < ttlMs + outageTrustMs)
      if (err instanceof StoreUnavailableError && trusted) return cached.value
      throw err
    }
    if (generation === revocations) revoked.set(key, { at: now(), value })
    return value
  }
  // the drained CDNs, read once per ttlMs; kept through an outage (a drain is not a security rule)
  let drains: { at: number; value: string[] } | undefined
  let askingDrains: Promise<string[]> | undefined
  const readDrains = async (read: () => Promise<string[]>) => {
    try {
      const value = await read()
      drains = { at: now(), value }
      return value
    } catch (err) {
      if (err instanceof StoreUnavailableError) return drains?.value ?? []
      throw err
    } finally {
      askingDrains = undefined
    }
  }
  const drainedCdns = store.drainedCdns?.bind(store)
  const drainCdn = store.drainCdn?.bind(store)
  return {
    ...(drainedCdns && {
      drainedCdns() {
        if (drains !== undefined && now() - drains.at < ttlMs) return Promise.resolve(drains.value)
        askingDrains ??= readDrains(drainedCdns)
        return askingDrains
      },
    }),
    ...(drainCdn && {
      async drainCdn(cdn: string, drained: boolean) {
        await drainCdn(cdn, drained)
        drains = undefined
      },
    }),
    async admitNetwork(session, network, max) {
      const key = `${session.sid} ${network}`
      if (admitted.get(key)) return true
      const ok = await store.admitNetwork(session, network, max)
      if (ok) admitted.set(key, true)
      return ok
    },
    isRevoked(session) {
      const key = `${session.sid} ${session.sub ?? ''}`
      const cached = revoked.get(key)
      if (cached !== undefined && now() - cached.at < ttlMs) return Promise.resolve(cached.value)
      // one question to the store per session at a time: the requests of a session that arrive
      // while its answer is on the way wait for it (measured: 7 store reads per playing session
      // and second under load without this, 1 with it)
      let answer = asking.get(key)
      if (answer === undefined) {
        const asked = ask(session, key, cached).finally(() => {
          if (asking.get(key) === asked) asking.delete(key)
        })
        asking.set(key, asked)
        answer = asked
      }
      return answer
    },
    async revokeSession(sid, until) {
      const forget = () => forgetAnswers((key) => key.startsWith(`${sid} `))
      forget()
      try {
        await store.revokeSession(sid, until)
      } finally {
        forget()
      }
    },
    async revokeViewer(sub, at, until) {
      const forget = () => forgetAnswers((key) => key.endsWith(` ${sub}`))
      forget()
      try {
        await store.revokeViewer(sub, at, until)
      } finally {
        forget()
      }
    },
  }
}
