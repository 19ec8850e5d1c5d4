import type { TimerHandle, Timers } from './types.ts'

/**
 * Waits for `promise`, at most `ms` on `timers`; never rejects.
 *
 * @example
 * ```ts
 * await waitAtMost(refresh, 5000, timers) // goes on after 5 s whatever the refresh does
 * ```
 */
export async function waitAtMost(
  promise: Promise<unknown>,
  ms: number,
  timers: Timers,
): Promise<void> {
  let timer: TimerHandle | undefined
  await Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = timers.set(() => resolve(undefined), ms)
    }),
  ])
  if (timer !== undefined) timers.clear(timer)
}

/**
 * The requests held back while the token is expired (an outage longer than a token's life): a
 * request with the expired token would only be refused and burn the player's retries, so it
 * waits for the next record, bounded. `size` tells the backoff that playback is waiting.
 *
 * @example
 * ```ts
 * await held.hold(30_000, timers) // until releaseAll() or 30 s
 * ```
 */
export class HeldRequests {
  #releases = new Set<() => void>()

  /** How many requests are held now. */
  get size(): number {
    return this.#releases.size
  }

  /** Holds the caller until {@link releaseAll} or `ms`. */
  async hold(ms: number, timers: Timers): Promise<void> {
    let release: (() => void) | undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
      this.#releases.add(resolve)
    })
    await waitAtMost(released, ms, timers)
    if (release) this.#releases.delete(release)
  }

  /** Lets every held request go (a new record arrived, or the refresher is gone). */
  releaseAll(): void {
    for (const release of this.#releases) release()
    this.#releases.clear()
  }
}
