import { StoreUnavailableError } from '../store-unavailable.ts'

/** What the store needs to know of a session. */
export interface StoredSession {
  sid: string
  /** The viewer's subject, when the session has one. */
  sub?: string | undefined
  /** Issued at / expires at, Unix seconds. */
  iat: number
  exp: number
}

/**
 * Where sessions' shared state lives: the deny list (revoked sessions and viewers) and the
 * networks each session was used from. A Durable Object on Workers (`durableSessionStore`),
 * memory on Node (`memorySessionStore`); implement it on your own database the same way.
 */
export interface SessionStore {
  /**
   * Notes that `session` is used from `network`; `false` when that would make more than `max`
   * distinct networks (the network is then not recorded).
   */
  admitNetwork(session: StoredSession, network: string, max: number): Promise<boolean>
  /** Whether the session was revoked, or its viewer's sessions issued until then. */
  isRevoked(session: StoredSession): Promise<boolean>
  /** Revokes one session; the record may be forgotten after `untilSeconds` (its expiry). */
  revokeSession(sid: string, untilSeconds: number): Promise<void>
  /**
   * Revokes every session of `sub` issued at or before `atSeconds`; kept until `untilSeconds`
   * (when the last of them has expired).
   */
  revokeViewer(sub: string, atSeconds: number, untilSeconds: number): Promise<void>
  /**
   * The CDNs the operator drained (`POST /cdns/drain`), for every instance. Optional: a store
   * without it keeps drains in each process.
   */
  drainedCdns?(): Promise<string[]>
  /** Drains (`true`) or undrains a CDN for every instance sharing the store. */
  drainCdn?(cdn: string, drained: boolean): Promise<void>
}

interface Entry {
  networks: string[]
  revoked: boolean
  /** For a viewer: sessions issued at or before this are revoked. */
  revokedAt?: number
  until: number
}

/**
 * The store in process memory: for Node (one process) and tests. Entries are dropped once their
 * session has expired; at most `capacity` live entries (then new networks are refused rather
 * than memory growing without bound).
 *
 * @example
 * ```ts
 * const app = createTokenApp({ sessions: memorySessionStore() })
 * ```
 */
export function memorySessionStore(
  { capacity = 200_000 }: { capacity?: number } = {},
  now: () => number = Date.now,
): SessionStore & { readonly size: number } {
  const entries = new Map<string, Entry>()
  const drained = new Set<string>()
  let swept = 0
  const nowSeconds = () => Math.floor(now() / 1000)
  const sweep = () => {
    const at = nowSeconds()
    if (at - swept < 60 && entries.size < capacity) return
    swept = at
    for (const [key, entry] of entries) if (entry.until < at) entries.delete(key)
  }
  const entry = (key: string, until: number): Entry | undefined => {
    let found = entries.get(key)
    if (found === undefined) {
      sweep()
      if (entries.size >= capacity) return undefined
      found = { networks: [], revoked: false, until }
      entries.set(key, found)
    }
    found.until = Math.max(found.until, until)
    return found
  }
  return {
    async admitNetwork(session, network, max) {
      const found = entry(`session:${session.sid}`, session.exp)
      if (found === undefined) return false
      if (found.networks.includes(network)) return true
      if (found.networks.length >= max) return false
      found.networks.push(network)
      return true
    },
    async isRevoked({ sid, sub, iat }) {
      if (entries.get(`session:${sid}`)?.revoked) return true
      const viewer = sub === undefined ? undefined : entries.get(`viewer:${sub}`)
      return viewer?.revokedAt !== undefined && iat <= viewer.revokedAt
    },
    async revokeSession(sid, untilSeconds) {
      const found = entry(`session:${sid}`, untilSeconds)
      if (found) found.revoked = true
      else throw new Error('session store is full')
    },
    async revokeViewer(sub, atSeconds, untilSeconds) {
      const found = entry(`viewer:${sub}`, untilSeconds)
      if (found) found.revokedAt = Math.max(found.revokedAt ?? 0, atSeconds)
      else throw new Error('session store is full')
    },
    async drainedCdns() {
      return [...drained]
    },
    async drainCdn(cdn, drain) {
      if (drain) drained.add(cdn)
      else drained.delete(cdn)
    },
    get size() {
      return entries.size
    },
  }
}

/**
 * How long, at most, {@link cachedSessionStore} keeps playing a session it last saw not revoked
 * while the store is unavailable (`StoreUnavailableError`), counted from that last answer's
 * expiry: 30 s covers a restart or a failover of Redis without every viewer's playback stalling,
 * and bounds what an instance can miss (a revocation made just before the outage).
 */
export const STORE_OUTAGE_TRUST_MS = 30_000

/**
 * Keeps a store's answers in this isolate for `ttlMs` (admissions for good: a network once
 * admitted stays admitted), so a session's segments do not each cost a round trip to the
 * store. Revocation then takes effect up to `ttlMs` later, on top of the leaf lifetime.
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
 * @example
 * ```ts
 * const store = cachedSessionStore(durableSessionStore(env.SESSION_REGISTRY), 1000)
 * ```
 */
export function cachedSessionStore(
  store: SessionStore,
  ttlMs: number,
  now: () => number = Date.now,
  capacity = 10_000,
  outageTrustMs = STORE_OUTAGE_TRUST_MS,
): SessionStore {
  const admitted = new Set<string>()
  const revoked = new Map<string, { at: number; value: boolean }>()
  const asking = new Map<string, Promise<boolean>>()
  // revocations made through this instance: an answer asked for before one is not kept
  let revocations = 0
  const bounded = <T>(collection: Set<T> | Map<T, unknown>) => {
    if (collection.size >= capacity) collection.clear()
  }
  // before and after a revocation through this instance is written: no answer asked for until
  // then is kept or shared
  const forgetAnswers = (matches: (key: string) => boolean) => {
    revocations++
    asking.clear()
    for (const key of revoked.keys()) if (matches(key)) revoked.delete(key)
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
    if (generation === revocations) {
      bounded(revoked)
      revoked.set(key, { at: now(), value })
    }
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
      if (admitted.has(key)) return true
      const ok = await store.admitNetwork(session, network, max)
      if (ok) {
        bounded(admitted)
        admitted.add(key)
      }
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
