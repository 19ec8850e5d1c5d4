import type { TokenRejectedError } from './recovery.ts'
import type { CdnChange, TokenRecord } from './types.ts'

/**
 * The events of a `TokenRefresher`, for typed listeners:
 * `refresher.addEventListener('tokenrefreshed', (event) => event.detail.expires)`.
 */
export interface TokenRefresherEventMap {
  /** A new record is in (a refresh, or a peer's record); `detail` is the record. */
  tokenrefreshed: CustomEvent<TokenRecord>
  /**
   * A refresh failed (playback goes on while the token is valid), or the CDN refused every new
   * token ({@link TokenRejectedError}); `detail` is the error.
   */
  error: CustomEvent<Error>
  /** Playback moved to another CDN (records with `cdns` only); `detail` says from, to and why. */
  cdnchange: CustomEvent<CdnChange>
}

/**
 * `EventTarget` with `addEventListener`/`removeEventListener` typed for the events of `Events`
 * (the DOM's pattern; `this` in a listener is the target): types only, EventTarget's own
 * methods run.
 */
export interface TypedEventTarget<Events> extends EventTarget {
  addEventListener<K extends keyof Events>(
    type: K,
    listener: (this: this, event: Events[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void
  removeEventListener<K extends keyof Events>(
    type: K,
    listener: (this: this, event: Events[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void
}

/**
 * The base class of `TokenRefresher`: `EventTarget` itself, typed for its events, so that
 * `refresher.addEventListener('tokenrefreshed', (event) => event.detail.expires)` compiles.
 *
 * @example
 * ```ts
 * class TokenRefresher extends RefresherEventTarget {}
 * ```
 */
export const RefresherEventTarget =
  EventTarget as unknown as new () => TypedEventTarget<TokenRefresherEventMap>

/**
 * Tells `onError` (the console without one) and the `error` listeners of `target` of `error`.
 *
 * @example
 * ```ts
 * reportError(refresher, settings.onError, new TokenRejectedError(3))
 * ```
 */
export function reportError(
  target: EventTarget,
  onError: ((error: unknown) => void) | undefined,
  error: unknown,
): void {
  safely(() => (onError ? onError(error) : console.warn('[token-refresh] refresh failed', error)))
  // getToken may reject with anything; the event's detail is always an Error (the map says so)
  const detail = error instanceof Error ? error : new Error(String(error), { cause: error })
  target.dispatchEvent(new CustomEvent('error', { detail }))
}

/**
 * Tells `onTokenRefreshed` and the `tokenrefreshed` listeners of `target` of `record`.
 *
 * @example
 * ```ts
 * announceRecord(refresher, settings.onTokenRefreshed, record)
 * ```
 */
export function announceRecord(
  target: EventTarget,
  onTokenRefreshed: ((record: TokenRecord) => void) | undefined,
  record: TokenRecord,
): void {
  safely(() => onTokenRefreshed?.(record))
  target.dispatchEvent(new CustomEvent('tokenrefreshed', { detail: record }))
}

/**
 * Calls a page's callback (`onError`, `onTokenRefreshed`): one that throws is logged, and the
 * refresher goes on (a record is not turned into a failed refresh, a retry is not lost).
 */
function safely(callback: () => void): void {
  try {
    callback()
  } catch (error) {
    console.error('[token-refresh] a page callback threw', error)
  }
}
