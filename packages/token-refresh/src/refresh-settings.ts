import { pagePeers, type TokenPeers } from './token-peers.ts'
import type { CdnFailoverOptions, Clock, Timers, TokenRefreshOptions, Visibility } from './types.ts'

// Every default of the refresher, in one place. Each is a trade between a backend spared and a
// viewer who never sees a stall; the comment says which side it leans to and why. Plain
// constants, so bundlers inline them (the players' size budgets count every byte).

/**
 * The retry backoff's defaults (ms): `baseMs`, the first backoff after a failure (a blip, one
 * dropped request, costs half a second); `maxMs`, the cap while the token is valid, also at most
 * half its remaining validity (a down backend sees each viewer about twice a minute, not a
 * storm); `expiredMaxMs`, the cap once the token has expired and playback asks for the video
 * (retries every 1.5–3 s, jittered, so playback resumes seconds after the outage ends).
 *
 * @example
 * ```ts
 * const retry = { ...DEFAULT_RETRY, maxMs: 60_000 } // a slower backoff, the same first try
 * ```
 */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = {
  baseMs: 500,
  maxMs: 30_000,
  expiredMaxMs: 3000,
}

/** A request waits this long for a due refresh before leaving with the current (valid) pair. */
export const DEFAULT_MAX_WAIT_MS = 5000

/**
 * A request waits this long for a new token once the current one has expired: long enough to
 * ride out a short backend outage, short enough that the player's own error shows eventually.
 */
export const DEFAULT_MAX_OUTAGE_WAIT_MS = 30_000

/**
 * One `getToken` call fails after this long (ms): a backend that never answers is retried like
 * one that is down; a slow one still has several seconds, as hls.js gives a playlist.
 */
export const DEFAULT_TOKEN_TIMEOUT_MS = 10_000

/** The default spread, as a share of the lead: a herd is flattened, the lead stays mostly intact. */
export const DEFAULT_SPREAD_OF_LEAD = 0.25

/**
 * A backend's Retry-After is honoured up to this once the token has expired (a valid token is
 * never let expire for it): a misconfigured `Retry-After: 86400` cannot park playback for a day.
 */
export const MAX_RETRY_AFTER_MS = 300_000

/** How recent a request must be for playback to count as waiting for a token. */
export const DEMAND_WINDOW_MS = 10_000

/** Timer and on-demand refreshes never come closer than this, whatever the clocks say. */
export const MIN_REFRESH_INTERVAL_MS = 1000

/**
 * The defaults of {@link CdnFailoverOptions} (the `cdn` option, several CDNs only). The timeout is
 * well below the 6 s of forward buffer players keep, so a hung CDN is left and the retry lands
 * before the buffer runs dry; the cooldown keeps a CDN that fails on and off from pulling
 * playback to and fro.
 *
 * @example
 * ```ts
 * await TokenRefresher.create({ ...options, cdn: { ...CDN_FAILOVER_DEFAULTS, cooldownMs: 60_000 } })
 * ```
 */
export const CDN_FAILOVER_DEFAULTS = { cooldownMs: 20_000, timeoutMs: 3000 } as const

/** The lead spec 4.15 recommends, as shares of the token lifetime: outside them, a warning. */
export const RECOMMENDED_LEAD_MIN = 0.2
/** See {@link RECOMMENDED_LEAD_MIN}. */
export const RECOMMENDED_LEAD_MAX = 0.3

/** The retry backoff with every bound resolved (ms). */
export interface RetryPolicy {
  baseMs: number
  maxMs: number
  expiredMaxMs: number
}

/** {@link TokenRefreshOptions} with every default applied and every unit in ms. */
export interface RefreshSettings
  extends Pick<TokenRefreshOptions, 'getToken' | 'onTokenRefreshed' | 'onError'> {
  ipBound: boolean
  leadMs: number
  spreadMs: number
  retry: RetryPolicy
  maxWaitMs: number
  maxOutageWaitMs: number
  tokenTimeoutMs: number
  clock: Clock
  timers: Timers
  random: () => number
  peers: TokenPeers | null
  visibility: Visibility | null
  cdn: CdnSettings
}

/** The `cdn` options resolved (ms); without a `probe`, the lane's `HEAD` (`headProbe`). */
export interface CdnSettings {
  cooldownMs: number
  timeoutMs: number
  probe: ((url: string, signal: AbortSignal) => Promise<boolean>) | undefined
}

/** `Date.now`: the default `clock`. */
export const systemClock: Clock = { now: () => Date.now() }

/** `setTimeout`/`clearTimeout`: the default `timers`, and the first-byte bound of real requests. */
export const systemTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle),
}

/**
 * Applies the defaults above to `options` and checks what can be checked before the first
 * token arrives.
 *
 * @throws RangeError naming the option when `refreshLeadSeconds`, a `retry` bound (`baseMs`,
 *   `maxMs`, `expiredMaxMs`) or a `cdn` one (`cooldownMs`, `timeoutMs`) is not a number > 0 below
 *   2^31 (what a timer holds), or `refreshSpreadSeconds` not one >= 0.
 * @example
 * ```ts
 * const settings = resolveRefreshSettings({ getToken, refreshLeadSeconds: 60 })
 * settings.spreadMs // 15000
 * ```
 */
export function resolveRefreshSettings(options: TokenRefreshOptions): RefreshSettings {
  const lead = options.refreshLeadSeconds
  const retry = { ...DEFAULT_RETRY, ...options.retry }
  const cdn = resolveCdnSettings(options.cdn)
  // One loop names whichever bound is wrong (`probe: 1` stands in for the probe function). A
  // delay of 0, NaN or undefined (`retry: { maxMs: config.maxMs }`), or one past what a timer
  // holds (it fires at once), called a failing backend, or probed a CDN, in a loop with no delay.
  for (const [name, value] of Object.entries({
    refreshLeadSeconds: lead,
    ...retry,
    ...cdn,
    probe: 1,
  }))
    if (!(value > 0 && value < 2 ** 31))
      throw new RangeError(`${name} must be a number > 0 (below 2^31), got ${value}`)
  const spread = options.refreshSpreadSeconds ?? lead * DEFAULT_SPREAD_OF_LEAD
  if (!(spread >= 0 && spread < Infinity))
    throw new RangeError(`refreshSpreadSeconds must be a number >= 0, got ${spread}`)
  return {
    ...options,
    ipBound: options.ipBound ?? false,
    leadMs: lead * 1000,
    spreadMs: spread * 1000,
    retry,
    maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    maxOutageWaitMs: options.maxOutageWaitMs ?? DEFAULT_MAX_OUTAGE_WAIT_MS,
    tokenTimeoutMs: options.tokenTimeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS,
    clock: options.clock ?? systemClock,
    timers: options.timers ?? systemTimers,
    random: options.random ?? Math.random,
    peers: options.peers === undefined ? pagePeers : options.peers,
    cdn,
    // an explicit `visibility: undefined` means none, like `null`
    visibility:
      'visibility' in options
        ? (options.visibility ?? null)
        : typeof document === 'undefined'
          ? null
          : document,
  }
}

/**
 * What is wrong with a lead of `leadSeconds` for a token living `lifetimeSeconds`: `fatal` when
 * it is not below the lifetime (no refresh could come in time), a warning outside the
 * recommended share, `undefined` when it is fine.
 *
 * @example
 * ```ts
 * leadProblem(20, 20) // { fatal: true, message: 'refreshLeadSeconds (20) must be below the token lifetime (20 s)' }
 * leadProblem(5, 20) // undefined
 * ```
 */
export function leadProblem(
  leadSeconds: number,
  lifetimeSeconds: number,
): { fatal: boolean; message: string } | undefined {
  const fatal = leadSeconds >= lifetimeSeconds
  const share = leadSeconds / lifetimeSeconds
  if (!fatal && share >= RECOMMENDED_LEAD_MIN && share <= RECOMMENDED_LEAD_MAX) return undefined
  const rule = fatal ? 'must be below' : 'is outside the recommended 20–30 % of'
  return {
    fatal,
    message: `refreshLeadSeconds (${leadSeconds}) ${rule} the token lifetime (${Math.round(lifetimeSeconds)} s)`,
  }
}

/**
 * Checks a lead of `leadSeconds` against the first record's lifetime: a {@link leadProblem}
 * warns, and throws when fatal and `dated` (the lifetime measured on the server's clock; on
 * the viewer's, which may be wrong by hours, refusing would break playback).
 *
 * @throws RangeError when the lead is not below a lifetime measured on the server's clock.
 * @example
 * ```ts
 * checkLead(10, record.expires - refresher.serverNow() / 1000, serverDateOf(record) !== undefined)
 * ```
 */
export function checkLead(leadSeconds: number, lifetimeSeconds: number, dated: boolean): void {
  const problem = leadProblem(leadSeconds, lifetimeSeconds)
  if (problem?.fatal && dated) throw new RangeError(problem.message)
  if (problem) console.warn(`[token-refresh] ${problem.message}`)
}

/**
 * The `cdn` options with {@link CDN_FAILOVER_DEFAULTS} applied; {@link resolveRefreshSettings}
 * checks them with the other bounds.
 *
 * @example
 * ```ts
 * resolveCdnSettings({ timeoutMs: 2000 }).cooldownMs // 20000
 * ```
 */
export function resolveCdnSettings(options: CdnFailoverOptions = {}): CdnSettings {
  const {
    cooldownMs = CDN_FAILOVER_DEFAULTS.cooldownMs,
    timeoutMs = CDN_FAILOVER_DEFAULTS.timeoutMs,
  } = options
  return { cooldownMs, timeoutMs, probe: options.probe }
}
