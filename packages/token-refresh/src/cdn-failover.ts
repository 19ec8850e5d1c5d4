import type { Clock, TimerHandle, Timers } from './types.ts'

/**
 * Why a request failed on its CDN, as {@link classifyCdnFailure} tells it from an answer:
 * `refused`, a 403/410 for a token that is still fresh (the CDN, not the token, is wrong);
 * `server-error`, a 5xx; `network`, no answer at all (status 0).
 */
export type CdnFailure = 'refused' | 'server-error' | 'network'

/** A {@link CdnFailure}, or the adapter's own verdict: no first byte within `cdnTimeoutMs`. */
export type CdnFailureReason = CdnFailure | 'timeout'

/** The detail of a refresher's `cdnchange` event. */
export interface CdnChange {
  /** The CDN left. */
  from: string
  /** The CDN every request goes to from now on. */
  to: string
  /** Why: the failure seen on `from`, or `recovered` when a probe found the preferred CDN well. */
  reason: CdnFailureReason | 'recovered'
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

/**
 * The defaults of {@link CdnFailoverOptions}. The timeout is well below the 6 s of forward
 * buffer players keep, so a hung CDN is left and the retry lands before the buffer runs dry;
 * the cooldown keeps a CDN that fails on and off from pulling playback to and fro.
 *
 * @example
 * ```ts
 * await TokenRefresher.create({ ...options, cdn: { ...CDN_FAILOVER_DEFAULTS, cooldownMs: 60_000 } })
 * ```
 */
export const CDN_FAILOVER_DEFAULTS = { cooldownMs: 20_000, timeoutMs: 3000 } as const

/**
 * Whether an answer of `status` is the CDN's failure (not the token's, not the content's):
 * 403/410 only while the token is `fresh` (an expired token's refusal is the token's), any 5xx,
 * and 0, the status of a request that got no answer. 404s and successes are `undefined`.
 *
 * @example
 * ```ts
 * classifyCdnFailure(503, true) // 'server-error'
 * classifyCdnFailure(403, false) // undefined: the token expired, a refresh helps
 * ```
 */
export function classifyCdnFailure(status: number, fresh: boolean): CdnFailure | undefined {
  if (status === 0) return 'network'
  if (status >= 500 && status <= 599) return 'server-error'
  if ((status === 403 || status === 410) && fresh) return 'refused'
  return undefined
}

/** What a {@link CdnFailover} needs from its owner. */
export interface CdnFailoverHooks {
  clock: Clock
  timers: Timers
  /** Asks whether the CDN `id` serves again; resolves `false` on any failure. */
  probe: (id: string) => Promise<boolean>
  /** The active CDN changed. */
  changed: (change: CdnChange) => void
}

/**
 * Which of several CDNs a player uses (see {@link createCdnFailover}): `active` gets every
 * request; the preferred CDN is the first by priority.
 */
export interface CdnFailover {
  readonly active: string
  readonly preferred: string
  /**
   * A request to CDN `id` failed for `reason`. Returns whether a retry now can go to another CDN
   * than `id`: the active one, after a switch when `id` was the active CDN. `false` for a CDN
   * it does not know, once stopped, and when every other CDN is cooling down (then playback
   * stays where it is).
   */
  failed(id: string, reason: CdnFailureReason): boolean
  /**
   * A new record lists `ids`: the active CDN stays while it is listed (a refresh mid-outage does
   * not bring playback back to the failing CDN); otherwise the first one not cooling down takes
   * over (the preferred one when all are).
   */
  update(ids: string[]): void
  /** Stops the probe timer; later failures are ignored. */
  stop(): void
}

/**
 * Creates the state of a player's CDNs: the preferred one (first of `ids`) until a request fails
 * on it, then the next one not cooling down, sticky, until a probe (`cooldownMs` after leaving
 * the preferred CDN, again after each failed probe) finds the preferred CDN well. Requests
 * already sent to an abandoned CDN that fail later do not move playback again, so an outage
 * causes one switch away and one back. A closure, not a class: its state minifies.
 *
 * @example
 * ```ts
 * const failover = createCdnFailover(['a', 'b'], 20_000, { clock, timers, probe, changed })
 * failover.failed('a', 'timeout') // true: retry on failover.active, now 'b'
 * ```
 */
export function createCdnFailover(
  ids: string[],
  cooldownMs: number,
  { clock, timers, probe, changed }: CdnFailoverHooks,
): CdnFailover {
  let list = ids
  let active = ids[0] ?? ''
  let stopped = false
  let probeTimer: TimerHandle | undefined
  /** Client time until which each CDN that failed is skipped. */
  const coolingUntil = new Map<string, number>()
  const preferred = () => list[0] ?? ''
  const clearProbe = () => {
    if (probeTimer !== undefined) timers.clear(probeTimer)
    probeTimer = undefined
  }
  const switchTo = (to: string, reason: CdnChange['reason']) => {
    const from = active
    if (from === to) return
    active = to
    changed({ from, to, reason })
    if (to === preferred()) clearProbe()
    else if (probeTimer === undefined) armProbe()
  }
  // Probes the preferred CDN after a cooldown; a failed probe waits another one.
  const armProbe = () => {
    const timer = timers.set(async () => {
      const target = preferred()
      // cooling while the probe runs: a failure elsewhere meanwhile must not send playback back
      // to a CDN not known to be well again
      coolingUntil.set(target, Number.POSITIVE_INFINITY)
      const well = await probe(target).catch(() => false)
      coolingUntil.set(target, well ? 0 : clock.now() + cooldownMs)
      // cleared, or replaced by a newer chain while the probe ran: that one goes on alone
      if (probeTimer !== timer) return
      probeTimer = undefined
      if (stopped || active === target) return
      if (well) switchTo(target, 'recovered')
      else armProbe()
    }, cooldownMs)
    probeTimer = timer
  }
  const usable = (candidates: string[], now: number) =>
    candidates.find((candidate) => (coolingUntil.get(candidate) ?? 0) <= now)
  return {
    get active() {
      return active
    },
    get preferred() {
      return preferred()
    },
    failed(id, reason) {
      if (stopped || !list.includes(id)) return false
      if (id !== active) return true
      const now = clock.now()
      const start = list.indexOf(id)
      const next = usable([...list.slice(start + 1), ...list.slice(0, start)], now)
      // nowhere to go: playback stays, and so must this CDN's standing for later switches
      if (next === undefined) return false
      coolingUntil.set(id, now + cooldownMs)
      switchTo(next, reason)
      return true
    },
    update(next) {
      list = next
      if (!next.includes(active)) switchTo(usable(next, clock.now()) ?? preferred(), 'recovered')
    },
    stop() {
      stopped = true
      clearProbe()
    },
  }
}
