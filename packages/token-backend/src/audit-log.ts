import type { TokenRecord } from '@proj/signing'

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
export function issuedToken(
  record: TokenRecord,
  {
    video,
    type,
    sub,
    requestId,
    nowMs,
  }: { video: string; type: 'vod' | 'live'; sub: unknown; requestId: string; nowMs: number },
): IssuedToken {
  // the URL is ours (scheme://host/path/{token}/…): no URL parse needed to cut it
  const { url } = record
  const pathStart = url.indexOf('/', url.indexOf('://') + 3)
  return {
    event: 'token_issued',
    time: new Date(nowMs).toISOString(),
    video,
    type,
    expires: record.expires,
    path: url.slice(pathStart, url.indexOf(`/${record.token}/`, pathStart) + 1),
    client_ip: record.client_ip,
    ...(typeof sub === 'string' && { sub }),
    request_id: requestId,
  }
}

/** Where audit lines go: one call per issued token, the line without a newline. */
export type AuditSink = (line: string) => void

/**
 * A sink for a byte stream (Node's `process.stdout`) that writes the lines of one event-loop
 * turn in one `write()`: stdout to a file or pipe is a synchronous system call per write, which
 * cost a quarter of the Node server's time with one write per token (BENCHMARKS.md). Lines still
 * buffered when the process exits are written then.
 *
 * @example
 * ```ts
 * const app = createTokenApp({ audit: batchedLines(process.stdout) })
 * ```
 */
export function batchedLines(
  stream: { write(text: string): unknown },
  schedule: (flush: () => void) => void = (flush) => setImmediate(flush),
): AuditSink & { flush(): void } {
  let pending = ''
  const flush = () => {
    if (pending === '') return
    const text = pending
    pending = ''
    stream.write(text)
  }
  const sink = (line: string) => {
    if (pending === '') schedule(flush)
    pending += `${line}\n`
  }
  return Object.assign(sink, { flush })
}
