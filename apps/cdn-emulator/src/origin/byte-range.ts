/**
 * Range requests (RFC 9110 §14), as a CDN or nginx's static files answer them: a player asking
 * for `bytes=…` of a segment (`#EXT-X-BYTERANGE`, a DASH `SegmentBase` index, a `<video>` seeking
 * in an MP4) gets those bytes with 206, not the whole file; a range past the end is a 416.
 */

/** One satisfiable range: the first and last byte (inclusive), as `Content-Range` writes them. */
export interface ByteSpan {
  first: number
  last: number
}

/**
 * What a `Range` header asks of a representation of `size` bytes: one {@link ByteSpan},
 * `'unsatisfiable'` (answer 416), or `undefined` for "send it all" (no header, another unit, a
 * malformed spec, or several ranges). Ignoring what it cannot read is what RFC 9110 allows a
 * server; several ranges would need `multipart/byteranges`, which no player of this project asks
 * for, so they get the whole file (200) rather than a half-made multipart answer.
 *
 * @example
 * ```ts
 * byteSpan('bytes=0-99', 1000)  // { first: 0, last: 99 }
 * byteSpan('bytes=-100', 1000)  // { first: 900, last: 999 }
 * byteSpan('bytes=1000-', 1000) // 'unsatisfiable'
 * byteSpan('bytes=0-1,5-9', 1000) // undefined
 * ```
 */
export function byteSpan(
  header: string | null | undefined,
  size: number,
): ByteSpan | 'unsatisfiable' | undefined {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header ?? '')
  if (!match) return undefined
  const [, from = '', to = ''] = match
  if (from === '' && to === '') return undefined
  if (from === '') {
    // a suffix: the last `to` bytes; `-0` asks for nothing, which no byte satisfies
    const length = Number(to)
    if (length === 0 || size === 0) return 'unsatisfiable'
    return { first: Math.max(0, size - length), last: size - 1 }
  }
  const first = Number(from)
  // first > last is an invalid spec, ignored like a malformed header (RFC 9110 §14.1.1)
  if (to !== '' && Number(to) < first) return undefined
  // checked before the end is clipped: `bytes=16-` of 16 bytes starts past the end (416)
  if (first >= size) return 'unsatisfiable'
  return { first, last: to === '' ? size - 1 : Math.min(Number(to), size - 1) }
}

/**
 * A 200 answer with a known body, cut to the request's `Range`: 206 with `Content-Range`, or 416
 * with `bytes *\/{size}`; otherwise the answer as it was. Every 200 says `Accept-Ranges: bytes`.
 * An `If-Range` is never matched (the origin sends no `ETag` or `Last-Modified` to match it), and
 * an unmatched `If-Range` means "send it all" (RFC 9110 §13.1.5).
 *
 * @example
 * ```ts
 * withRange(new Headers({ range: 'bytes=0-9' }), bytes, { 'content-type': 'video/mp2t' })
 * ```
 */
export function withRange(
  request: Headers,
  body: Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
): Response {
  const size = body.byteLength
  const span = request.has('if-range') ? undefined : byteSpan(request.get('range'), size)
  const common = { ...headers, 'accept-ranges': 'bytes' }
  if (span === undefined)
    return new Response(body, { headers: { ...common, 'content-length': String(size) } })
  if (span === 'unsatisfiable')
    return new Response(null, {
      status: 416,
      headers: { 'accept-ranges': 'bytes', 'content-range': `bytes */${size}` },
    })
  const part = body.slice(span.first, span.last + 1)
  return new Response(part, {
    status: 206,
    headers: {
      ...common,
      'content-range': `bytes ${span.first}-${span.last}/${size}`,
      'content-length': String(part.byteLength),
    },
  })
}
