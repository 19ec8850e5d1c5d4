// The CDN lane of one video: which of several CDNs its requests go to, and the probe that brings
// them back to the preferred one. Loaded on demand (`import()`), when the first record with
// `cdns` arrives: a page whose records name one CDN never downloads it.
import { type CdnFailure, cdnFailureOf } from '@proj/signing/cdn-failure'
import type { RefreshSettings } from './refresh-settings.ts'
import type { CdnChange, Clock, TimerHandle, Timers } from './types.ts'

/** What a {@link CdnLane} is tuned by (the refresher's `cdn` option, resolved). */
export interface CdnLaneSettings {
  /** How long a CDN playback left is skipped before a probe may bring playback back (ms). */
  cooldownMs: number
  /** Time to first byte after which a request to a CDN counts as failed (ms); bounds each probe. */
  timeoutMs: number
}

/** What a {@link CdnLane} needs from its owner (a refresher, or the service worker's video). */
export interface CdnLaneHooks {
  clock: Clock
  timers: Timers
  /**
   * Whether CDN `id` serves the video again (a request of its own, with that CDN's token).
   * The lane bounds it by `timeoutMs` and aborts `signal` then, or when it is stopped.
   */
  probe(id: string, signal: AbortSignal): Promise<boolean>
  /** The CDN in use changed. */
  changed(change: CdnChange): void
}

/**
 * Which of a video's CDNs gets its requests (see {@link createCdnLane}): `active` gets every
 * request; the preferred CDN is the first by priority.
 */
export interface CdnLane {
  readonly active: string
  readonly preferred: string
  /** Every CDN, preferred first. */
  readonly ids: readonly string[]
  /** Time to first byte after which a request counts as its CDN's failure (ms). */
  readonly timeoutMs: number
  /**
   * A request to CDN `id` failed for `failure`. Returns whether a retry now can go to another
   * CDN than `id`: the active one, after a switch when `id` was the active CDN. `false` for a
   * CDN it does not know, once stopped, and when every other CDN is cooling down (then playback
   * stays where it is).
   */
  failed(id: string, failure: CdnFailure): boolean
  /**
   * One request, as the lane follows it across CDNs (`video`: its URL is the video's); its
   * first-byte timer on `timers`.
   */
  request(timers: Timers, video: boolean): LaneRequest
  /**
   * A new record lists `ids`: the active CDN stays while it is listed (a refresh mid-outage does
   * not bring playback back to the failing CDN); otherwise the first one not cooling down takes
   * over (the preferred one when all are).
   */
  update(ids: readonly string[]): void
  /** Stops the probe (its timer and its request); later failures are ignored. */
  stop(): void
}

/** One request as a {@link CdnLane} follows it (what a `CdnAttempt` asks of the lane). */
export interface LaneRequest {
  /** A new sending, to CDN `id` (`undefined`: a URL that is not the video's). */
  sent(id: string | undefined): void
  /** The first-byte bound of its sendings (ms): the lane's, for the video's URLs. */
  readonly timeoutMs: number | undefined
  /** Calls `timedOut` when the bound runs out before `firstByte()` (the current sending). */
  watch(firstByte: () => boolean, timedOut: () => void): void
  /** Stops the current sending's timer. */
  end(): void
  /**
   * Whether the current sending's failure (the CDN's: `@proj/signing`'s `cdnFailureOf`) sends
   * the request to another CDN now: the lane moves away from its CDN (or had), and the request
   * was never sent to the CDN now in use: never twice to one CDN. A request sent to every CDN
   * already blames none.
   */
  takes(failure: CdnFailure): boolean
}

/**
 * Creates the lane of a video's CDNs: the preferred one (first of `ids`) until a request fails
 * on it, then the next one not cooling down, sticky, until a probe (`cooldownMs` after leaving
 * the preferred CDN, again after each failed probe) finds the preferred CDN well. Requests
 * already sent to an abandoned CDN that fail later do not move playback again, so an outage
 * causes one switch away and one back. A CDN cools down only when playback leaves it, and a
 * CDN being probed is not gone back to before its probe says so. A closure, not a class: its
 * state minifies.
 *
 * @example
 * ```ts
 * const lane = createCdnLane(['a', 'b'], { cooldownMs: 20_000, timeoutMs: 3000 }, { clock, timers, probe, changed })
 * lane.failed('a', 'timeout') // true: retry on lane.active, now 'b'
 * ```
 */
export function createCdnLane(
  ids: readonly string[],
  { cooldownMs, timeoutMs }: CdnLaneSettings,
  { clock, timers, probe, changed }: CdnLaneHooks,
): CdnLane {
  let list = ids
  let active = ids[0] ?? ''
  let stopped = false
  let probeTimer: TimerHandle | undefined
  /** Ends the running probe (its timeout and its request), if any. */
  let endProbe: (() => void) | undefined
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
  // One probe at a time, bounded by the timeout; stop() ends it at once.
  const probeWithin = (id: string) =>
    new Promise<boolean>((resolve) => {
      const controller = new AbortController()
      const end = () => {
        timers.clear(timer)
        controller.abort()
        resolve(false)
      }
      const timer = timers.set(end, timeoutMs)
      endProbe = end
      probe(id, controller.signal)
        .then(resolve, () => resolve(false))
        .finally(() => timers.clear(timer))
    }).finally(() => {
      endProbe = undefined
    })
  // Probes the preferred CDN after a cooldown; a failed probe waits another one.
  const armProbe = () => {
    const timer = timers.set(async () => {
      const target = preferred()
      // cooling while the probe runs: a failure elsewhere meanwhile must not send playback back
      // to a CDN not known to be well again
      coolingUntil.set(target, Number.POSITIVE_INFINITY)
      const well = await probeWithin(target)
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
  const usable = (candidates: readonly string[], now: number) =>
    candidates.find((candidate) => (coolingUntil.get(candidate) ?? 0) <= now)
  const failed = (id: string, failure: CdnFailure) => {
    if (stopped || !list.includes(id)) return false
    if (id !== active) return true
    const now = clock.now()
    const start = list.indexOf(id)
    const next = usable([...list.slice(start + 1), ...list.slice(0, start)], now)
    // nowhere to go: playback stays, and so must this CDN's standing for later switches
    if (next === undefined) return false
    coolingUntil.set(id, now + cooldownMs)
    switchTo(next, failure)
    return true
  }
  return {
    get active() {
      return active
    },
    get preferred() {
      return preferred()
    },
    get ids() {
      return list
    },
    timeoutMs,
    failed,
    request(requestTimers, video) {
      const tried = new Set<string>()
      let id: string | undefined
      let ours = video
      let timer: TimerHandle | undefined
      const end = () => {
        if (timer !== undefined) requestTimers.clear(timer)
        timer = undefined
      }
      return {
        sent(cdn) {
          end()
          id = cdn
          ours = cdn !== undefined
          if (cdn !== undefined) tried.add(cdn)
        },
        get timeoutMs() {
          return ours ? timeoutMs : undefined
        },
        watch(firstByte, timedOut) {
          end()
          if (ours)
            timer = requestTimers.set(() => {
              timer = undefined
              if (!firstByte()) timedOut()
            }, timeoutMs)
        },
        end,
        takes: (failure) =>
          id !== undefined && tried.size < list.length && failed(id, failure) && !tried.has(active),
      }
    },
    update(next) {
      list = next
      if (!next.includes(active)) switchTo(usable(next, clock.now()) ?? preferred(), 'recovered')
    },
    stop() {
      stopped = true
      clearProbe()
      endProbe?.()
    },
  }
}

/** The lane of a refresher's video ({@link openCdnLane}): a {@link CdnLane} that knows its URLs. */
export interface VideoLane extends CdnLane {
  /** `url` (on the CDN in use, with its pair) was sent: the next probe asks for the same file. */
  sent(url: string): void
  /**
   * Why an answer of `status` for `url` is its CDN's failure, when `url` is the video's (its
   * token `fresh` or not): the refresher's deprecated `cdnFailureOf`.
   */
  failureOf(url: string, status: number, fresh: boolean): CdnFailure | undefined
  /** `url` failed on its CDN: whether a retry goes to another CDN now (the deprecated `cdnFailed`). */
  failedAt(url: string, failure: CdnFailure): boolean
}

/**
 * The lane of a refresher's video: its settings' `cdn` option (cooldown, timeout, probe: a
 * `HEAD` by default) on its clock and timers; each probe asks for `probeUrl(id, lastUrl)` (the
 * video's last URL sent, on the probed CDN with that CDN's token); `cdnOf` says which CDN a URL
 * of the video is on.
 *
 * @example
 * ```ts
 * const lane = openCdnLane(settings, { ids: ['a', 'b'], probeUrl, changed, cdnOf })
 * lane.sent(url) // later probes ask for this file
 * ```
 */
export function openCdnLane(
  { clock, timers, cdn }: Pick<RefreshSettings, 'clock' | 'timers' | 'cdn'>,
  video: {
    ids: readonly string[]
    probeUrl: (id: string, lastUrl: string | undefined) => string | undefined
    changed: (change: CdnChange) => void
    cdnOf?: (url: string) => string | undefined
  },
): VideoLane {
  const probe = cdn.probe ?? headProbe
  let lastUrl: string | undefined
  const lane = createCdnLane(video.ids, cdn, {
    clock,
    timers,
    probe: (id, signal) => {
      const url = video.probeUrl(id, lastUrl)
      return url === undefined ? Promise.resolve(false) : probe(url, signal)
    },
    changed: video.changed,
  })
  const cdnOf = (url: string) => video.cdnOf?.(url)
  return Object.assign(lane, {
    sent(url: string) {
      lastUrl = url
    },
    failureOf: (url: string, status: number, fresh: boolean) =>
      cdnOf(url) === undefined ? undefined : cdnFailureOf(status, { tokenFresh: fresh }),
    failedAt(url: string, failure: CdnFailure) {
      const id = cdnOf(url)
      return id !== undefined && lane.failed(id, failure)
    },
  })
}

/**
 * The default probe of a refresher: the CDN answers a `HEAD` of `url` (its host and token) with
 * a 2xx, before `signal` aborts it.
 *
 * @example
 * ```ts
 * await headProbe('https://a.cdn.example.com/videos/1_demo/tok/1767225600/v0/seg_001.ts', signal) // true
 * ```
 */
export async function headProbe(url: string, signal: AbortSignal): Promise<boolean> {
  const response = await fetch(url, { method: 'HEAD', cache: 'no-store', signal })
  return response.ok
}

/**
 * What a {@link CdnFailover} needs from its owner.
 *
 * @deprecated `CdnLaneHooks` (`createCdnLane`), whose probe the lane bounds and aborts itself.
 */
export interface CdnFailoverHooks {
  clock: Clock
  timers: Timers
  /** Asks whether the CDN `id` serves again; resolves `false` on any failure. */
  probe: (id: string) => Promise<boolean>
  /** The active CDN changed. */
  changed: (change: CdnChange) => void
}

/**
 * Which of several CDNs a player uses.
 *
 * @deprecated {@link CdnLane} ({@link createCdnLane}).
 */
export type CdnFailover = Pick<CdnLane, 'active' | 'preferred' | 'failed' | 'update' | 'stop'>

/**
 * The state of a player's CDNs, with a probe that is not bounded in time.
 *
 * @deprecated `createCdnLane(ids, { cooldownMs, timeoutMs }, hooks)`: the CDN lane, whose probe
 * is bounded by `timeoutMs` and aborted by `stop()`.
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
  return createCdnLane(
    ids,
    // setTimeout's longest wait: the old probe had no bound of its own
    { cooldownMs, timeoutMs: 2 ** 31 - 1 },
    { clock, timers, probe: (id) => probe(id), changed },
  )
}
