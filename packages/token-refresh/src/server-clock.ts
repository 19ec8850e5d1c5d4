import { clockOffset, serverDateOf } from './fetch-token.ts'
import type { Clock, TokenRecord } from './types.ts'

/**
 * The server's clock as the records' `Date` headers tell it: the offset of the last record
 * that had one, and whether any had (without, the viewer's clock stands in, unchecked).
 *
 * @example
 * ```ts
 * const server = new ServerClock(clock, record)
 * server.take(next) // a refresh: its Date, if any
 * server.now() >= next.expires * 1000 // expired, on the server's clock
 * ```
 */
export class ServerClock {
  readonly #clock: Clock
  /** Server clock minus client clock (ms), from the last record with a `Date`. */
  #offset = 0
  /** A record came with the server's `Date`: {@link now} is the server's clock. */
  known = false

  constructor(clock: Clock, first: TokenRecord) {
    this.#clock = clock
    this.take(first)
  }

  /** Takes `record`'s `Date`, when it came with one. */
  take(record: TokenRecord): void {
    this.#offset = clockOffset(record, this.#clock, this.#offset)
    this.known ||= serverDateOf(record) !== undefined
  }

  /** The server's clock (ms). */
  now(): number {
    return this.#clock.now() + this.#offset
  }

  /** A moment of the server's clock on the viewer's (ms). */
  local(serverMs: number): number {
    return serverMs - this.#offset
  }
}

/**
 * Throws when `record` had already expired by its own `Date` (a stale cache, an absolute
 * `expire` in the past): not a new token, a failed refresh.
 *
 * @example
 * ```ts
 * assertUnexpired(await nextRecord(settings, current))
 * ```
 */
export function assertUnexpired(record: TokenRecord): void {
  const issuedAt = serverDateOf(record)
  if (issuedAt !== undefined && record.expires * 1000 <= issuedAt)
    throw new Error(`token backend answered an expired token (expires ${record.expires})`)
}
