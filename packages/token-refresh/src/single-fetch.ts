import type { TimerHandle, TokenRecord } from './types.ts'

/** Backends sign by the second: a token fetched a second later differs from the one before. */
const ONE_SECOND_MS = 1000

/**
 * One `getToken` call at a time: a fetch started while one is in flight shares its promise.
 *
 * @example
 * ```ts
 * const fetches = new SingleFetch()
 * fetches.run(() => nextRecord(settings, current)) // a second run() now gets the same promise
 * ```
 */
export class SingleFetch {
  /** The fetch under way, if any. */
  current: Promise<TokenRecord> | undefined

  /**
   * Starts `work` unless a fetch is in flight, whose promise is then shared. Its failure is
   * the refresher's to report: a caller that does not wait on it raises no unhandled rejection.
   */
  run(work: () => Promise<TokenRecord>): Promise<TokenRecord> {
    if (!this.current) {
      this.current = work().finally(() => {
        this.current = undefined
      })
      this.current.catch(() => undefined)
    }
    return this.current
  }
}

/**
 * A refresh that must replace a refused token: `fetch`, and when `stillRefused` (a backend
 * signing within the refused token's second hands it out again), once more a second later,
 * unless `ended` by then.
 *
 * @example
 * ```ts
 * replacingFetch(() => this.#fetch(), () => tokenOf(cdn) === refused, () => this.destroyed, timers)
 * ```
 */
export async function replacingFetch(
  fetch: () => Promise<TokenRecord>,
  stillRefused: () => boolean,
  ended: () => boolean,
  timers: { set(callback: () => void, ms: number): TimerHandle },
): Promise<TokenRecord> {
  const record = await fetch()
  if (!stillRefused() || ended()) return record
  await new Promise((resolve) => timers.set(() => resolve(undefined), ONE_SECOND_MS))
  return ended() ? record : fetch()
}
