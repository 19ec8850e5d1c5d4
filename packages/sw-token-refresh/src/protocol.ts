// The messages between pages and the service worker. Shared by both sides, so a message shape
// has one definition; nothing here touches `window` or `self`.
import type { TokenRecord } from '@proj/token-refresh'

/** What a page tells the worker about one video it protects. */
export interface RecordEntry {
  record: TokenRecord
  ipBound: boolean
  /** When the token enters its lead window, on the shared machine clock (ms). */
  staleAt: number
  /**
   * When the token expires, on the same clock (ms): past it, requests wait for the next record
   * instead of leaving with a pair the CDN refuses. Absent in records saved by older versions.
   */
  expiresAt?: number
  /**
   * With several CDNs (`record.cdns`): the page's time to first byte after which the worker
   * gives up an attempt and sends it to the next CDN (ms; `refresher.cdnTimeoutMs`).
   */
  cdnTimeoutMs?: number | undefined
}

/** Page → worker. */
export type PageMessage =
  | { kind: 'token-refresh:record'; entry: RecordEntry }
  | { kind: 'token-refresh:forget'; url: string }
  | { kind: 'token-refresh:seen'; url: string }
  | { kind: 'token-refresh:claim' }

/** Worker → page: each expects an {@link Answer} on the transferred port. */
export type WorkerQuestion =
  | { kind: 'token-refresh:records' }
  | { kind: 'token-refresh:prepare'; url: string }
  | { kind: 'token-refresh:recover'; url: string; status?: number }

/** A page's answer: the entries it holds (`records`), or the owner's entry (`prepare`/`recover`). */
export interface Answer {
  entries: RecordEntry[]
  /** `recover` only: whether a retry can succeed (the core's `recover`). */
  retry?: boolean
}

/** The worker's answer to `seen`: requests it moved onto a pair, by kind. */
export interface Seen {
  playlists: number
  media: number
  /**
   * Media requests (not playlists) a media element made itself (`destination` audio, video or
   * track): the evidence that the browser shows a native player's segments to the worker.
   */
  element: number
}

/** Anything that takes a message and ports: a `Client`, a `ServiceWorker`, a `MessagePort`. */
export interface MessageTarget {
  postMessage(message: unknown, transfer: Transferable[]): void
}

export function isPlaylist(url: string): boolean {
  return new URL(url).pathname.endsWith('.m3u8')
}

/**
 * Posts `message` with a reply port and resolves with the first reply, or `undefined` after
 * `timeoutMs` (a frozen page or a worker that was stopped must not hold a request forever).
 *
 * @example
 * ```ts
 * const answer = await ask<Answer>(client, { kind: 'token-refresh:records' }, 1000)
 * ```
 */
export function ask<T>(
  target: MessageTarget,
  message: PageMessage | WorkerQuestion,
  timeoutMs: number,
): Promise<T | undefined> {
  const channel = new MessageChannel()
  return new Promise<T | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs)
    channel.port1.onmessage = (event: MessageEvent<T>) => {
      clearTimeout(timer)
      resolve(event.data)
    }
    try {
      target.postMessage(message, [channel.port2])
    } catch {
      clearTimeout(timer)
      resolve(undefined)
    }
  }).finally(() => channel.port1.close())
}

/** Whether `data` is one of this protocol's messages (other code may talk to the same worker). */
export function isProtocolMessage(data: unknown): data is PageMessage | WorkerQuestion {
  // a primitive has no `kind` either (a string's is `undefined`): no type check needed
  return String((data as { kind?: unknown } | null)?.kind).startsWith('token-refresh:')
}
