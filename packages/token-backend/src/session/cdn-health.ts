import type { CdnFailure } from '@proj/signing'

/**
 * Why a CDN failed a request the backend signed itself (`@proj/signing`'s word), and the status
 * when it answered one. A "fault" here is what a test injects (`@proj/token-refresh/testing`).
 */
export interface CdnFailureReport {
  failure: CdnFailure
  status?: number | undefined
}

/** How the session lane judges its CDNs. Defaults: {@link CDN_HEALTH_DEFAULTS}. */
export interface CdnHealthPolicy {
  /** Each CDN is probed at most this often, and only while sessions ask for files (ms). */
  probeIntervalMs: number
  /** A probe or a playlist fetch with no answer within this is a failure: a hanging CDN (ms). */
  timeoutMs: number
  /** A CDN that failed serves nothing for at least this long after its last failure (ms). */
  cooldownMs: number
  /** Probes in a row that must succeed, after the cooldown, before a CDN serves again. */
  recoverAfter: number
}

/**
 * The session lane's defaults. A probe a second bounds detection to about one leaf of 2 s (a
 * refusal or a 5xx is seen at once, a hang after `timeoutMs`); the 10-s cooldown and two good
 * probes in a row keep a CDN that answers now and then from taking sessions back and forth.
 *
 * @example
 * ```ts
 * createTokenApp({ cdnHealth: { ...CDN_HEALTH_DEFAULTS, cooldownMs: 30_000 } })
 * ```
 */
export const CDN_HEALTH_DEFAULTS: Readonly<CdnHealthPolicy> = Object.freeze({
  probeIntervalMs: 1000,
  timeoutMs: 1500,
  cooldownMs: 10_000,
  recoverAfter: 2,
})

/** One CDN as {@link CdnHealth.view} reports it (the `GET /cdns` answer). */
export interface CdnHealthEntry {
  id: string
  /** `failed`: refused, answered 5xx or hung; `drained`: taken out by the operator. */
  state: 'healthy' | 'failed' | 'drained'
  /**
   * Why it last failed, while failed: the words the player core uses too (`@proj/signing`'s
   * `CdnFailure`: `refused`, `server-error`, `network`, `timeout`).
   */
  failure?: CdnFailure
  /** The status the CDN answered with that failure (a refusal, a 5xx), while failed. */
  status?: number
  /** Unix ms of the last failure, while failed. */
  failed_at?: number
}

interface CdnState {
  drained: boolean
  /** Unix ms of the last failure; `undefined` while healthy. */
  failedAt: number | undefined
  fault: CdnFailureReport
  /** Good probes since the last failure. */
  goodInARow: number
  lastProbeAt: number
  probing: boolean
}

/**
 * What one process (or Workers isolate) knows of its CDNs' health, from the signals it sees
 * itself: its probes and its own playlist fetches, and the operator's drains. Sessions are served
 * by {@link serving}: the preferred CDN that is neither failed nor drained. A failed CDN comes
 * back once its cooldown has passed since its last failure and `recoverAfter` probes in a row
 * succeeded, so one outage moves sessions away once and back once.
 *
 * @example
 * ```ts
 * const health = new CdnHealth(['primary', 'b'], CDN_HEALTH_DEFAULTS, Date.now)
 * health.failed('primary', { failure: 'server-error', status: 503 })
 * health.serving() // 'b'
 * ```
 */
export class CdnHealth {
  readonly #states = new Map<string, CdnState>()
  readonly #order: readonly string[]
  readonly #policy: CdnHealthPolicy
  readonly #now: () => number
  /** What {@link serving} answered last. */
  #serving: string | undefined

  /** `ids` preferred first. */
  constructor(ids: readonly string[], policy: CdnHealthPolicy, now: () => number) {
    this.#order = ids
    this.#policy = policy
    this.#now = now
    for (const id of ids)
      this.#states.set(id, {
        drained: false,
        failedAt: undefined,
        fault: { failure: 'network' },
        goodInARow: 0,
        lastProbeAt: Number.NEGATIVE_INFINITY,
        probing: false,
      })
  }

  #state(id: string): CdnState {
    const state = this.#states.get(id)
    if (state === undefined) throw new RangeError(`no CDN ${id}`)
    return state
  }

  #healthy(state: CdnState): boolean {
    if (state.failedAt === undefined) return true
    const { cooldownMs, recoverAfter } = this.#policy
    if (this.#now() - state.failedAt < cooldownMs || state.goodInARow < recoverAfter) return false
    state.failedAt = undefined
    return true
  }

  /**
   * The CDN sessions are served by now: the preferred healthy one that is not drained; when
   * every CDN not drained failed, the one sessions are on already (a probe of it that timed out
   * under load is no reason to move them to a CDN that refused a moment ago), else the preferred
   * one; when every CDN is drained, the preferred one.
   */
  serving(): string {
    // one CDN (a list of one): nothing to choose, nothing to allocate per leaf
    if (this.#order.length === 1) return this.#order[0] as string
    const live = this.#order.filter((id) => !this.#state(id).drained)
    const first = live[0] ?? (this.#order[0] as string)
    const current = this.#serving
    const chosen =
      live.find((id) => this.#healthy(this.#state(id))) ??
      (current !== undefined && live.includes(current) ? current : first)
    this.#serving = chosen
    return chosen
  }

  /** The CDN `id` failed: why, and the status it answered when it answered one. */
  failed(id: string, fault: CdnFailureReport): void {
    const state = this.#state(id)
    state.failedAt = this.#now()
    state.fault = fault
    state.goodInARow = 0
  }

  /** The CDN `id` answered as it should. */
  succeeded(id: string): void {
    const state = this.#state(id)
    if (state.failedAt !== undefined) state.goodInARow++
  }

  /**
   * Whether `id` is due for a probe (none in flight, none started within `intervalMs`, by
   * default `probeIntervalMs`, and another CDN to move to: one CDN alone is never probed); when
   * it is, the probe counts as started: call {@link probed} when it ends.
   */
  claimProbe(id: string, intervalMs: number = this.#policy.probeIntervalMs): boolean {
    const state = this.#state(id)
    const at = this.#now()
    if (this.#order.length < 2) return false
    if (state.probing || at - state.lastProbeAt < intervalMs) return false
    state.probing = true
    state.lastProbeAt = at
    return true
  }

  /** The probe of `id` ended: what went wrong, `undefined` if it succeeded. */
  probed(id: string, fault: CdnFailureReport | undefined): void {
    this.#state(id).probing = false
    if (fault === undefined) this.succeeded(id)
    else this.failed(id, fault)
  }

  /** The operator takes `id` out (`true`) or puts it back (`false`). */
  drain(id: string, drained: boolean): void {
    this.#state(id).drained = drained
  }

  /** Exactly `ids` are drained (what the shared store says); unknown ids are ignored. */
  drainOnly(ids: readonly string[]): void {
    for (const [id, state] of this.#states) state.drained = ids.includes(id)
  }

  /** Whether `id` is one of these CDNs. */
  has(id: string): boolean {
    return this.#states.has(id)
  }

  /** Every CDN's state, preferred first. */
  view(): CdnHealthEntry[] {
    return this.#order.map((id) => {
      const state = this.#state(id)
      if (state.drained) return { id, state: 'drained' }
      if (this.#healthy(state)) return { id, state: 'healthy' }
      const { failure, status } = state.fault
      return {
        id,
        state: 'failed',
        failure,
        ...(status !== undefined && { status }),
        failed_at: state.failedAt as number,
      }
    })
  }
}
