import { assertTokenRecord } from './token-record.ts'
import type { TokenRecord } from './types.ts'

const serverDates = new WeakMap<TokenRecord, number>()

/** The server's clock reading (ms) at the moment `record` was issued, when known. */
export const serverDateOf = (record: TokenRecord): number | undefined => serverDates.get(record)

/**
 * Records what the server's clock said when `record` was issued, for records fetched without
 * {@link fetchToken} (e.g. through your own API client). Returns the record.
 *
 * @example
 * ```ts
 * getToken: async () => withServerDate(await api.token(video), Date.parse(api.lastDateHeader))
 * ```
 */
export const withServerDate = (record: TokenRecord, serverMs: number): TokenRecord => {
  if (Number.isFinite(serverMs)) serverDates.set(record, serverMs)
  return record
}

/** A token backend answered with something other than a 2xx status. */
export class TokenFetchError extends Error {
  override name = 'TokenFetchError'
  /** The backend's HTTP status. */
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/**
 * Fetches a token record and remembers the response's `Date` header, so the refresher can
 * schedule against the server's clock even when the viewer's clock is wrong. Cross-origin
 * backends must expose the header (`Access-Control-Expose-Headers: Date`; the token worker does).
 *
 * @throws TokenFetchError on a non-2xx answer (its message is the backend's `error` field).
 * @example
 * ```ts
 * const refresh = await createTokenRefresh({
 *   getToken: () => fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300'),
 *   refreshLeadSeconds: 60,
 * })
 * ```
 */
export const fetchToken = async (url: string | URL, init?: RequestInit): Promise<TokenRecord> => {
  const response = await fetch(url, { cache: 'no-store', ...init })
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) {
    const detail = (body as { error?: unknown } | undefined)?.error
    throw new TokenFetchError(
      response.status,
      `token backend answered ${response.status}${typeof detail === 'string' ? `: ${detail}` : ''}`,
    )
  }
  // 1-second resolution: the middle of the second is the best estimate.
  return withServerDate(
    assertTokenRecord(body),
    Date.parse(response.headers.get('date') ?? '') + 500,
  )
}
