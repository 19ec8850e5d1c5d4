import ipaddr from 'ipaddr.js'

/** Headers consulted for the viewer IP, in order, when none is configured (spec 4.14). */
export const DEFAULT_IP_HEADERS: readonly string[] = ['x-real-ip', 'x-forwarded-for']

/** The IP used when no header yields one (spec 4.14, rule 3). */
export const FALLBACK_CLIENT_IP = '0.0.0.0'

/**
 * Parses one IP address strictly and returns it in the form a CDN sees as the remote address,
 * or `undefined` when the text is not an IP address.
 *
 * IPv4 must be four decimal parts without leading zeros (`1.2.3`, `01.2.3.4` and `0x7f.0.0.1`
 * are rejected). IPv6 is returned in RFC 5952 form (lower case, shortest), IPv4-mapped IPv6
 * keeps its dotted tail, and zone IDs (`fe80::1%eth0`) are rejected: an IP-bound token must sign
 * the text that nginx's `$remote_addr` will print, or it never validates.
 *
 * @example
 * ```ts
 * normalizeIp('203.0.113.7')     // '203.0.113.7'
 * normalizeIp('2001:DB8:0::1')   // '2001:db8::1'
 * normalizeIp('::ffff:1.2.3.4')  // '::ffff:1.2.3.4'
 * normalizeIp('not-an-ip')       // undefined
 * ```
 */
export const normalizeIp = (text: string): string | undefined => {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return text
  if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return undefined
  const address = ipaddr.IPv6.parse(text)
  return address.isIPv4MappedAddress()
    ? `::ffff:${address.toIPv4Address().toString()}`
    : address.toRFC5952String()
}

/** Anything with a `get(name)` like the Fetch API's `Headers`. */
export interface HeaderSource {
  get(name: string): string | null | undefined
}

/** Options for {@link detectClientIp}. */
export interface ClientIpOptions {
  /** An explicit IP (the `client_ip` parameter); wins over headers when given. */
  explicit?: string | undefined
  /** Header names to consult in order; default `x-real-ip`, then `x-forwarded-for`. */
  headerNames?: readonly string[] | undefined
}

/** Thrown by {@link detectClientIp} when an explicit IP is not a valid address. */
export class InvalidClientIpError extends TypeError {
  override readonly name = 'InvalidClientIpError'
}

/**
 * Finds the viewer IP: an explicit IP wins (and must be valid, or this throws
 * {@link InvalidClientIpError}); otherwise the first comma-separated entry (trimmed) of each
 * header in order, skipping headers whose entry is not a valid IP; otherwise `0.0.0.0`.
 *
 * @example
 * ```ts
 * const headers = new Headers({ 'x-forwarded-for': '198.51.100.4, 10.0.0.1' })
 * detectClientIp(headers)                                      // '198.51.100.4'
 * detectClientIp(headers, { explicit: '203.0.113.9' })        // '203.0.113.9'
 * detectClientIp(headers, { headerNames: ['cf-connecting-ip'] }) // '0.0.0.0'
 * ```
 */
export const detectClientIp = (
  headers: HeaderSource,
  { explicit, headerNames = DEFAULT_IP_HEADERS }: ClientIpOptions = {},
): string => {
  if (explicit !== undefined) {
    const ip = normalizeIp(explicit)
    if (ip === undefined)
      throw new InvalidClientIpError('client_ip is not a valid IPv4 or IPv6 address')
    return ip
  }
  for (const name of headerNames) {
    const first = headers.get(name)?.split(',')[0]?.trim()
    const ip = first ? normalizeIp(first) : undefined
    if (ip !== undefined) return ip
  }
  return FALLBACK_CLIENT_IP
}
