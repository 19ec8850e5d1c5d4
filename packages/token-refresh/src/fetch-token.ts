import { TokenFetchError } from './token-fetch-error.ts'
import { assertTokenRecord } from './token-record.ts'
import type { Clock, TokenContext, TokenRecord } from './types.ts'

export { TokenFetchError }

const serverDates = new WeakMap<TokenRecord, number>()

/** The server's clock reading (ms) at the moment `record` was issued, when known. */
export function serverDateOf(record: TokenRecord): number | undefined {
  return serverDates.get(record)
}

/**
 * Server clock minus client clock (ms) as `record`'s `Date` tells it; `previous` without one.
 *
 * @example
 * ```ts
 * offset = clockOffset(record, clock, offset)
 * ```
 */
export function clockOffset(record: TokenRecord, clock: Clock, previous: number): number {
  const serverDate = serverDateOf(record)
  return serverDate === undefined ? previous : serverDate - clock.now()
}

/**
 * Records what the server's clock said when `record` was issued, for records fetched without
 * {@link fetchToken} (e.g. through your own API client). Returns the record.
 *
 * @example
 * ```ts
 * getToken: async () => withServerDate(await api.token(video), Date.parse(api.lastDateHeader))
 * ```
 */
export function withServerDate(record: TokenRecord, serverMs: number): TokenRecord {
  if (Number.isFinite(serverMs)) serverDates.set(record, serverMs)
  return record
}

/**
 * Reads `Retry-After` (delay-seconds or an HTTP date, against the response's own `Date` when it
 * has one) as milliseconds from now; `undefined` when absent or unreadable.
 *
 * @example
 * ```ts
 * retryAfterMs(new Headers({ 'retry-after': '7' })) // 7000
 * ```
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+$/.test(value)) return Number(value) * 1000
  // an HTTP date names its day and month (Date.parse alone takes "-5" for a year)
  const at = /[a-z]{3}/i.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(at)) return undefined
  const date = Date.parse(headers.get('date') ?? '')
  return Math.max(0, at - (Number.isNaN(date) ? now : date))
}

/**
 * The wait a failed `getToken` asked for: the `retryAfterMs` of a {@link TokenFetchError} (or of
 * any error that carries one), `undefined` otherwise.
 *
 * @example
 * ```ts
 * retryAfterOf(new TokenFetchError(503, 'busy', 7000)) // 7000
 * ```
 */
export function retryAfterOf(error: unknown): number | undefined {
  const asked = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs
  return typeof asked === 'number' ? asked : undefined
}

/**
 * This tab's last stream of a token URL (`sessionStorage`: a reload of the tab resumes its
 * stream, another tab has its own); `id` given: remembers it (`''`: forgets). Storage may be
 * missing or throw (sandboxed frames, privacy modes, a full quota): then nothing is kept, and a
 * reload is a new stream, as without this.
 */
function tabStream(key: string, id?: string): string | null | undefined {
  try {
    if (id === undefined) return sessionStorage.getItem(key)
    sessionStorage.setItem(key, id)
  } catch {}
}

/** What {@link fetchToken} takes besides the URL: the refresher's context, and `fetch`'s own init. */
export interface TokenFetchInit extends RequestInit, TokenContext {}

/**
 * Fetches a token record and remembers the response's `Date` header, so the refresher can
 * schedule against the server's clock even when the viewer's clock is wrong. Cross-origin
 * backends must expose the header (`Access-Control-Expose-Headers: Date`; the token worker does).
 * Given the refresher's context (`getToken: (context) => fetchToken(url, context)`), it sends
 * the stream the last record named back as `stream=<id>`, so a backend with stream limits counts
 * the refreshes of one playback as one stream; for the first token, the stream this tab last
 * played from the same URL (kept in `sessionStorage`), else the refresher's proposal: a reload
 * of the tab, or a first request retried, resumes its stream instead of starting another.
 *
 * @throws StreamLimitError on a 409 refusing the stream (`code` `stream_limit`/`stream_ended`).
 * @throws TokenFetchError on any other non-2xx answer (its message is the backend's `error`
 * field, its `retryAfterMs` the `Retry-After` of a 429 or 503, which the refresher honours).
 * @example
 * ```ts
 * const refresher = await TokenRefresher.create({
 *   getToken: (context) =>
 *     fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300', context),
 *   refreshLeadSeconds: 60,
 * })
 * ```
 */
export async function fetchToken(
  url: string | URL,
  init: TokenFetchInit = {},
): Promise<TokenRecord> {
  let target = url
  let key = ''
  let resumed: string | false | null | undefined
  if (init.stream) {
    // relative to the page's URL, as fetch resolves it
    target = new URL(url, globalThis.location?.href)
    key = `token-refresh:stream ${target}`
    // the refresher's proposal (no record yet) gives way to the tab's stream of this URL; the
    // id is kept before it is sent: a first request whose answer is lost, made again after a
    // reload, names the same stream
    resumed = init.proposed && tabStream(key)
    const stream = resumed || init.stream
    tabStream(key, stream)
    target.searchParams.set('stream', stream)
  }
  // `stream` goes along in the init, where fetch ignores a member it does not know
  const response = await fetch(target, { cache: 'no-store', ...init })
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) {
    // a refused stream: its error class and parsing load with the first 409
    const refusal =
      response.status === 409 &&
      (await import('./stream-limit.ts')).streamRefusalOf(response.status, body)
    if (refusal && key && refusal.code === 'stream_ended') {
      // an ended stream stays ended: forgotten, and a tab resuming it starts its own stream
      tabStream(key, '')
      if (resumed) return fetchToken(url, { ...init, proposed: false })
    }
    if (refusal) throw refusal
    const detail = (body as { error?: unknown } | undefined)?.error
    throw new TokenFetchError(
      response.status,
      `token backend answered ${response.status}${typeof detail === 'string' ? `: ${detail}` : ''}`,
      retryAfterMs(response.headers),
    )
  }
  // 1-second resolution: the middle of the second is the best estimate.
  return withServerDate(
    assertTokenRecord(body),
    Date.parse(response.headers.get('date') ?? '') + 500,
  )
}
