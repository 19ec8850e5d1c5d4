import type { TokenRecord as SignedRecord } from '@proj/signing'
import type { CdnFailure } from '@proj/signing/cdn-failure'
import type { TokenPeers } from './token-peers.ts'

/**
 * Why a request failed on its CDN: `@proj/signing`'s words, which the token backend's CDN health
 * uses too (`refused`, `server-error`, `network`, `timeout`).
 */
export type { CdnFailure }

/** The token backend's answer (spec 2.11): what `getToken` resolves to; declared by `@proj/signing`. */
export interface TokenRecord extends SignedRecord {
  /**
   * Only from a backend with stream limits: the id of the stream this record belongs to, which
   * the refresher hands back to `getToken` (see {@link TokenContext}) so the next refresh
   * renews this stream instead of starting a new one.
   */
  stream?: string
}

/**
 * What the refresher tells `getToken` about the playback it refreshes: pass it on to
 * `fetchToken(url, context)` (which sends `stream=<id>`), or send `stream` yourself.
 */
export interface TokenContext {
  /**
   * The stream the current record names (`record.stream`); for the first token, an id the
   * refresher proposes (random, 32 characters of `[0-9a-f]`, `proposed` set), which a backend
   * with stream limits adopts: a first request retried after its answer was lost is then one
   * stream, not two.
   */
  stream?: string
  /** `stream` is the refresher's proposal (no record yet): `fetchToken` prefers the tab's last stream of the URL. */
  proposed?: boolean
  /**
   * Aborts when the call ran past `tokenTimeoutMs` (its reason a `TimeoutError`) or the refresher
   * was destroyed: give it to `fetch`.
   */
  signal?: AbortSignal | null
}

/** The detail of a refresher's `cdnchange` event. */
export interface CdnChange {
  /** The CDN left. */
  from: string
  /** The CDN every request goes to from now on. */
  to: string
  /** Why: the failure seen on `from`, or `recovered` when a probe found the preferred CDN well. */
  reason: CdnFailure | 'recovered'
}

/** The multi-CDN options of a refresher (`cdn`), ignored with one CDN. */
export interface CdnFailoverOptions {
  /** How long a failed CDN is left alone before a probe may bring playback back (ms). */
  cooldownMs?: number
  /** Time to first byte after which an attempt counts as failed (ms); also bounds each probe. */
  timeoutMs?: number
  /**
   * Whether the preferred CDN serves `url` (its own host and token) again. Default: a `HEAD`
   * request answered 2xx. `signal` aborts when the probe times out or the refresher is destroyed.
   */
  probe?: (url: string, signal: AbortSignal) => Promise<boolean>
}

/** Wall-clock time in milliseconds (`Date.now` by default). Injected so tests are deterministic. */
export interface Clock {
  now(): number
}

/** Opaque timer handle, whatever the runtime's `setTimeout` returns. */
export type TimerHandle = ReturnType<typeof setTimeout>

/** One-shot timers (`setTimeout`/`clearTimeout` by default). */
export interface Timers {
  set(callback: () => void, ms: number): TimerHandle
  clear(handle: TimerHandle): void
}

/** Something that can tell whether the page is hidden and announce changes (the `document`). */
export interface Visibility {
  readonly hidden: boolean
  addEventListener(type: 'visibilitychange', listener: () => void): void
  removeEventListener(type: 'visibilitychange', listener: () => void): void
}

/** The refresh options of spec 4.15, plus what a demanding player integration needs. */
export interface TokenRefreshOptions {
  /**
   * Fetches a fresh record from the token backend: `(context) => fetchToken(url, context)` gets
   * clock-skew correction and keeps one stream across refreshes under stream limits. A function
   * that takes no context still works, but then each refresh starts a new stream (a record that
   * names a stream then logs one warning).
   */
  getToken: (context: TokenContext) => Promise<TokenRecord>
  /** `true`: play `url_ip` with `token_ip` on the IP-bound host. Default `false` (`url`, `token`). */
  ipBound?: boolean
  /** Seconds before `expires` at which the token is refreshed; > 0 and below the token lifetime. */
  refreshLeadSeconds: number
  /**
   * Each refresh lands at a uniformly random moment of the this-many seconds before the lead
   * time (so never later than `refreshLeadSeconds` before `expires`): viewers who joined a live
   * event together do not all refresh in the same second. The first refresh is spread wider,
   * from half the spread after the initial fetch to the lead time, which scatters a herd in one
   * cycle (it costs one early refresh per playback). Default `refreshLeadSeconds / 4`; `0`
   * refreshes every viewer exactly at the lead time.
   */
  refreshSpreadSeconds?: number
  /** Called with every new record after a successful refresh (not for the initial one). */
  onTokenRefreshed?: (record: TokenRecord) => void
  /** Called on every failed refresh; playback goes on with the current token while it is valid. */
  onError?: (error: unknown) => void
  /**
   * Backoff of failed refreshes (ms): the first delay; the cap while the token is valid (also at
   * most half its remaining validity); the cap once it has expired and playback needs a new one
   * (default 3000: retried every 1.5–3 s, jittered, so playback resumes seconds after an outage).
   */
  retry?: { baseMs?: number; maxMs?: number; expiredMaxMs?: number }
  /** How long a request may wait for a due refresh before going out with the current token (ms). */
  maxWaitMs?: number
  /**
   * How long a request may wait for a new token once the current one has expired (a backend
   * outage longer than a token's life), instead of going out to be refused (ms). Default 30000.
   */
  maxOutageWaitMs?: number
  /**
   * How long one `getToken` call may take before it counts as failed (retried with the backoff)
   * and its `signal` aborts (ms). Default 10000.
   */
  tokenTimeoutMs?: number
  clock?: Clock
  timers?: Timers
  /** Uniform in [0, 1), for backoff jitter and the refresh spread. */
  random?: () => number
  /**
   * The registry through which refreshers of the same video share each new record (one
   * `getToken` per cycle for all the players of a page). Default the page-wide
   * `pagePeers`; `null` refreshes alone.
   */
  peers?: TokenPeers | null
  /** Page visibility source; defaults to `document` where there is one. */
  visibility?: Visibility | null
  /**
   * Failover between the CDNs of records with `cdns` (ignored with one CDN): the cooldown
   * before the preferred CDN is probed again, the time-to-first-byte timeout, the probe.
   * Defaults in {@link CDN_FAILOVER_DEFAULTS}.
   */
  cdn?: CdnFailoverOptions
}

/**
 * How a player's requests are kept on a fresh pair: `hooks`, the player's own request hooks
 * (hls.js loader, VHS xhr hooks: MSE playback); `service-worker`, a service worker rewriting the
 * requests of native playback; `session`, an edge session URL that needs no refresh (`GET /session`);
 * `swap`, switching a native `<video>` to each new URL.
 */
export type ProtectionMode = (typeof PROTECTION_MODES)[number]

/** Every {@link ProtectionMode}, in the order a page tries them. @example `PROTECTION_MODES.includes(mode)` */
export const PROTECTION_MODES = ['hooks', 'service-worker', 'session', 'swap'] as const
