import { pagePeers, type TokenPeers } from './token-peers.ts'
import type { Clock, Timers, TokenRecord, TokenRefreshOptions, Visibility } from './types.ts'

/**
 * Every default of the refresher, in one place. Each is a trade between a backend spared and a
 * viewer who never sees a stall; the comment says which side it leans to and why.
 *
 * @example
 * ```ts
 * const retry = { ...REFRESH_DEFAULTS.retry, maxMs: 60_000 } // a slower backoff, same first try
 * ```
 */
export const REFRESH_DEFAULTS = {
  retry: {
    /** First backoff after a failure: a blip (one dropped request) costs half a second. */
    baseMs: 500,
    /**
     * Backoff cap while the token is valid (also at most half its remaining validity, see
     * `backoffDelay`): a down backend sees each viewer about twice a minute, not a storm.
     */
    maxMs: 30_000,
    /**
     * Backoff cap once the token has expired and playback asks for the video: retries every
     * 1.5–3 s (jittered), so playback resumes seconds after the outage ends.
     */
    expiredMaxMs: 3000,
  },
  /** A request waits this long for a due refresh before leaving with the current (valid) pair. */
  maxWaitMs: 5000,
  /**
   * A request waits this long for a new token once the current one has expired: long enough to
   * ride out a short backend outage, short enough that the player's own error shows eventually.
   */
  maxOutageWaitMs: 30_000,
  /** The spread is this fraction of the lead: a herd is flattened, the lead stays mostly intact. */
  spreadOfLead: 0.25,
  /**
   * A backend's Retry-After is honoured up to this once the token has expired (a valid token is
   * never let expire for it): a misconfigured `Retry-After: 86400` cannot park playback for a day.
   */
  maxRetryAfterMs: 300_000,
  /** How recent a request must be for playback to count as waiting for a token. */
  demandWindowMs: 10_000,
  /** Timer and on-demand refreshes never come closer than this, whatever the clocks say. */
  minRefreshIntervalMs: 1000,
  /** The lead spec 4.15 recommends, as fractions of the token lifetime: outside it, a warning. */
  recommendedLead: { min: 0.2, max: 0.3 },
} as const

/** The retry backoff with every bound resolved (ms). */
export interface RetryPolicy {
  baseMs: number
  maxMs: number
  expiredMaxMs: number
}

/** {@link TokenRefreshOptions} with every default applied and every unit in ms. */
export interface RefreshSettings {
  getToken: () => Promise<TokenRecord>
  ipBound: boolean
  leadMs: number
  spreadMs: number
  retry: RetryPolicy
  maxWaitMs: number
  maxOutageWaitMs: number
  clock: Clock
  timers: Timers
  random: () => number
  peers: TokenPeers | null
  visibility: Visibility | null
  onTokenRefreshed: ((record: TokenRecord) => void) | undefined
  onError: ((error: unknown) => void) | undefined
}

const systemClock: Clock = { now: () => Date.now() }
const systemTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle),
}

/**
 * Applies {@link REFRESH_DEFAULTS} to `options` and checks what can be checked before the first
 * token arrives.
 *
 * @throws RangeError when `refreshLeadSeconds` is not a number > 0 or `refreshSpreadSeconds`
 *   not a number >= 0.
 * @example
 * ```ts
 * const settings = resolveRefreshSettings({ getToken, refreshLeadSeconds: 60 })
 * settings.spreadMs // 15000
 * ```
 */
export function resolveRefreshSettings(options: TokenRefreshOptions): RefreshSettings {
  const lead = options.refreshLeadSeconds
  if (!(lead > 0) || !Number.isFinite(lead))
    throw new RangeError(`refreshLeadSeconds must be a number > 0, got ${lead}`)
  const spread = options.refreshSpreadSeconds ?? lead * REFRESH_DEFAULTS.spreadOfLead
  if (!(spread >= 0) || !Number.isFinite(spread))
    throw new RangeError(`refreshSpreadSeconds must be a number >= 0, got ${spread}`)
  const { retry } = REFRESH_DEFAULTS
  return {
    getToken: options.getToken,
    ipBound: options.ipBound ?? false,
    leadMs: lead * 1000,
    spreadMs: spread * 1000,
    retry: {
      baseMs: options.retry?.baseMs ?? retry.baseMs,
      maxMs: options.retry?.maxMs ?? retry.maxMs,
      expiredMaxMs: options.retry?.expiredMaxMs ?? retry.expiredMaxMs,
    },
    maxWaitMs: options.maxWaitMs ?? REFRESH_DEFAULTS.maxWaitMs,
    maxOutageWaitMs: options.maxOutageWaitMs ?? REFRESH_DEFAULTS.maxOutageWaitMs,
    clock: options.clock ?? systemClock,
    timers: options.timers ?? systemTimers,
    random: options.random ?? Math.random,
    peers: options.peers === undefined ? pagePeers : options.peers,
    // an explicit `visibility: undefined` means none, like `null`
    visibility:
      'visibility' in options
        ? (options.visibility ?? null)
        : typeof document === 'undefined'
          ? null
          : document,
    onTokenRefreshed: options.onTokenRefreshed,
    onError: options.onError,
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
  const { min, max } = REFRESH_DEFAULTS.recommendedLead
  const fatal = leadSeconds >= lifetimeSeconds
  if (!fatal && leadSeconds >= lifetimeSeconds * min && leadSeconds <= lifetimeSeconds * max)
    return undefined
  const rule = fatal ? 'must be below' : 'is outside the recommended 20–30 % of'
  return {
    fatal,
    message: `refreshLeadSeconds (${leadSeconds}) ${rule} the token lifetime (${Math.round(lifetimeSeconds)} s)`,
  }
}
