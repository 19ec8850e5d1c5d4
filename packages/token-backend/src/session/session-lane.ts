import type { Context } from 'hono'
import type { AuditSink } from '../audit-log.ts'
import type { CdnSigners } from '../cdn-record.ts'
import type { SessionConfig, TokenBackendConfig } from '../config.ts'
import { fail } from '../errors.ts'
import { LruMap } from '../lru.ts'
import type { StreamGate } from '../streams/stream-gate.ts'
import type { TokenAppEnv } from '../types.ts'
import type { AdmissionRules } from '../viewer-request.ts'
import { cachedSessionStore, REVOCATION_CACHE_MS } from './cached-session-store.ts'
import { CDN_HEALTH_DEFAULTS, type CdnHealthPolicy } from './cdn-health.ts'
import { durableSessionStore } from './durable-session-store.ts'
import { cacheApiPlaylists, memoryPlaylists, type PlaylistCache } from './playlist-cache.ts'
import { type RefusedSession, refusedSession } from './session-audit.ts'
import { type SessionCdns, sessionCdns } from './session-cdns.ts'
import { memorySessionStore, type SessionStore } from './session-store.ts'
import { verifiedSessions } from './session-token.ts'
import { upstreamPlaylists } from './upstream-playlists.ts'

export { REVOCATION_CACHE_MS } from './cached-session-store.ts'

/** Session answers are for any page or app (the URL is the credential): CORS for every origin. */
export const SESSION_CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Date, Retry-After',
  // a page may time its own media requests (Resource Timing), redirect hop included
  'timing-allow-origin': '*',
}

/** What the session routes are given by `createTokenApp`. */
export interface SessionRouteOptions extends AdmissionRules {
  now: () => number
  audit: AuditSink
  /** Every CDN's signer of a configuration, made once per configuration (one CDN: a list of one). */
  signersOf: (config: TokenBackendConfig) => CdnSigners
  /** The shared session state; default: the `SESSION_REGISTRY` binding, else memory. */
  store: SessionStore | undefined
  /** Upstream playlists; default: the Workers Cache API, else memory. */
  playlists: PlaylistCache | undefined
  /** How the worker reaches the CDN (tests inject one). */
  fetcher: typeof fetch | undefined
  /** How sessions fail over between several CDNs; default {@link CDN_HEALTH_DEFAULTS}. */
  cdnHealth?: Partial<CdnHealthPolicy> | undefined
  /** The stream ledger's gate (shared with `/token`: a viewer's streams count together). */
  streams: StreamGate
}

/** A refusal's audit line, without what the log adds (event, time, request ID). */
export type Refusal = Omit<RefusedSession, 'event' | 'time' | 'request_id'>

/** What the session routes share: the options, and state that lives as long as the app. */
export type SessionLane = ReturnType<typeof sessionLane>

/**
 * The session configuration, or the 501 that says how to turn sessions on.
 *
 * @example
 * ```ts
 * const session = sessionsOf(c.get('tokenConfig'))
 * ```
 */
export function sessionsOf(config: TokenBackendConfig): SessionConfig {
  return config.session ?? fail(501, 'sessions are off: set SESSION_SECRET to turn them on')
}

/**
 * The state the session routes share for the app's lifetime: verified credentials, the session
 * store (given, the `SESSION_REGISTRY` Durable Object behind a 1-s isolate cache, or memory; a
 * given store is used as it is, its caller choosing the cache and so the outage policy of
 * `cachedSessionStore`: sessions already trusted keep playing for a bounded time, the rest fails
 * closed with a 503 through `handleError`),
 * upstream playlists (given, the Cache API, or memory), and the refusal audit (once per session
 * or caller and reason: never per segment or retry).
 *
 * @example
 * ```ts
 * const lane = sessionLane({ now: Date.now, audit, authorize, limitFor, … })
 * ```
 */
export function sessionLane({
  now,
  audit,
  signersOf,
  store,
  playlists,
  fetcher,
  cdnHealth,
  streams,
  ...admission
}: SessionRouteOptions) {
  const stores = new WeakMap<object, SessionStore>()
  const fetchCdn: typeof fetch = fetcher ?? ((input, init) => fetch(input, init))
  const policy = { ...CDN_HEALTH_DEFAULTS, ...cdnHealth }
  // one health view per configuration, as long as the app lives (Workers: per environment)
  const cdnsByConfig = new WeakMap<TokenBackendConfig, SessionCdns>()
  const localStore = memorySessionStore({}, now)
  // the refusals already audited, the most recent kept: a clear-all would audit every refused
  // session again at once
  const refusals = new LruMap<string, true>(10_000)
  const noteRefusal = (c: Context<TokenAppEnv>, line: Refusal) => {
    const key = `${line.session_id ?? line.client_ip} ${line.reason}`
    if (refusals.get(key)) return
    refusals.set(key, true)
    audit(JSON.stringify(refusedSession(line, { requestId: c.get('requestId'), nowMs: now() })))
  }
  return {
    now,
    audit,
    admission,
    streams,
    sessions: verifiedSessions(),
    upstream: upstreamPlaylists(
      playlists ??
        (typeof caches !== 'undefined' && 'default' in caches
          ? cacheApiPlaylists((caches as unknown as { default: Cache }).default)
          : memoryPlaylists({}, now)),
      fetchCdn,
    ),
    /** How long a CDN may take to answer a playlist when another CDN could answer instead. */
    cdnTimeoutMs: policy.timeoutMs,
    /** The CDNs sessions are served by (one CDN: a list of one), with their health. */
    cdnsOf(config: TokenBackendConfig): SessionCdns {
      let cdns = cdnsByConfig.get(config)
      if (cdns === undefined) {
        cdns = sessionCdns(signersOf(config), { policy, now, fetcher: fetchCdn })
        cdnsByConfig.set(config, cdns)
      }
      return cdns
    },
    storeOf(c: Context<TokenAppEnv>): SessionStore {
      if (store) return store
      const binding = c.env?.SESSION_REGISTRY
      if (binding === undefined) return localStore
      let found = stores.get(binding)
      if (found === undefined) {
        found = cachedSessionStore(durableSessionStore(binding), {
          ttlMs: REVOCATION_CACHE_MS,
          now,
        })
        stores.set(binding, found)
      }
      return found
    },
    noteRefusal,
    /**
     * Brings `cdns`' drains up to date with the store's, when the store keeps them (every
     * instance then drains alike); a store that cannot answer leaves them as they were.
     * `undefined` when there is nothing to ask (one CDN cannot be drained: `POST /cdns/drain`
     * answers 409; or the store keeps no drains).
     */
    syncDrains(c: Context<TokenAppEnv>, cdns: SessionCdns): Promise<void> | undefined {
      if (cdns.cdns.length < 2) return undefined
      const shared = this.storeOf(c)
      if (shared.drainedCdns === undefined) return undefined
      return shared.drainedCdns().then(
        (drained) => cdns.health.drainOnly(drained),
        () => undefined,
      )
    },
    /** Audits the refusal (once) and throws its `{error}` answer. */
    refuse(c: Context<TokenAppEnv>, status: 403 | 410, message: string, line: Refusal): never {
      noteRefusal(c, line)
      return fail(status, message)
    },
  }
}
