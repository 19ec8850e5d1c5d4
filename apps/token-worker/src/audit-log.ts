import { TOKEN_PAIR_PATTERN, type TokenRecord } from '@proj/signing'

/** One line of the issuance audit log (JSON). Never the secret, the tokens or the signed URLs. */
export interface IssuedToken {
  event: 'token_issued'
  /** When it was signed (ISO 8601). */
  time: string
  video: string
  type: 'vod' | 'live'
  /** The `{expires}` the CDN log shows in the path. */
  expires: number
  /** The playback path before the pair (`/videos/12345_demo/`): the other half of the join. */
  path: string
  client_ip: string
  /** The viewer JWT's `sub`, when the request was authenticated. */
  sub?: string
  request_id: string
}

/**
 * The audit line for an issued record: join it with CDN access logs on `expires` and the path
 * prefix (the CDN sees `{path}{token}/{expires}/…`). Tokens and URLs are left out: with them the
 * log itself would grant playback.
 *
 * @example
 * ```ts
 * console.log(JSON.stringify(issuedToken(record, { video, type, sub, requestId, nowMs })))
 * ```
 */
export const issuedToken = (
  record: TokenRecord,
  {
    video,
    type,
    sub,
    requestId,
    nowMs,
  }: { video: string; type: 'vod' | 'live'; sub: unknown; requestId: string; nowMs: number },
): IssuedToken => {
  const pathname = new URL(record.url).pathname
  return {
    event: 'token_issued',
    time: new Date(nowMs).toISOString(),
    video,
    type,
    expires: record.expires,
    path: pathname.slice(0, pathname.search(TOKEN_PAIR_PATTERN)),
    client_ip: record.client_ip,
    ...(typeof sub === 'string' && { sub }),
    request_id: requestId,
  }
}
