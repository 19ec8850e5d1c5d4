/** What the store needs to know of a session. */
export interface StoredSession {
  sid: string
  /** The viewer's subject, when the session has one. */
  sub?: string | undefined
  /** Issued at, Unix seconds, to the millisecond (a fraction: `issuedAt` of its credential). */
  iat: number
  /** Expires at, Unix seconds. */
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
   * (when the last of them has expired). `atSeconds` has a fraction (milliseconds), as
   * sessions' `iat` has: keep it as a number, not rounded, or a session issued in the same
   * second before the revocation would play on (rounded down) or one after it be refused (up).
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

// the cache in front of a remote store has its own module; importers of this one still find it
export { cachedSessionStore, STORE_OUTAGE_TRUST_MS } from './cached-session-store.ts'
