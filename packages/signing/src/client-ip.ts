/** Headers consulted for the viewer IP, in order, when none is configured (spec 4.14). */
export const DEFAULT_IP_HEADERS: readonly string[] = ['x-real-ip', 'x-forwarded-for']

/** The IP used when no header yields one (spec 4.14, rule 3). */
export const FALLBACK_CLIENT_IP = '0.0.0.0'

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
/** Four decimal parts without leading zeros: what nginx prints, and nothing ambiguous. */
export const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`)

/** The eight 16-bit words of an IPv6 text, or `undefined` (strict: no zone, no brackets). */
export const ipv6Words = (text: string): number[] | undefined => {
  let hex = text
  const dotted = /(?<=:)[^:]*\.[^:]*$/.exec(text)?.[0]
  if (dotted !== undefined) {
    // an embedded IPv4 tail is the last 32 bits, held to the IPv4 rules
    if (!IPV4.test(dotted)) return undefined
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number)
    hex = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  if (!/^[0-9A-Fa-f:]+$/.test(hex)) return undefined
  const halves = hex.split('::')
  if (halves.length > 2) return undefined
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')))
  const count = groups.reduce((sum, group) => sum + group.length, 0)
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined
  if (!groups.flat().every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return undefined
  const [left = [], right = []] = groups
  const words = [...left, ...Array<string>(8 - count).fill('0'), ...right]
  return words.map((group) => Number.parseInt(group, 16))
}

/**
 * How nginx prints an IPv6 address (`ngx_inet6_ntop` in src/core/ngx_inet.c, i.e.
 * `$remote_addr`), step for step: lower-case hex without leading zeros, the first longest run of
 * two or more zero words as `::`; and when that run starts the address, the last 32 bits dotted
 * for an IPv4-mapped address (5 zero words, then `ffff`) and for an IPv4-compatible one (6 zero
 * words; or 7, unless the last word's high byte is 0 or its low byte is 1, so `::1` stays `::1`).
 * An IP-bound token signs this text, so it must be nginx's to the byte.
 */
const printIpv6 = (words: readonly number[]): string => {
  let zero = -1
  let longest = 1
  let start = 0
  let run = 0
  for (let index = 0; index < 8; index++) {
    if (words[index] !== 0) {
      if (run > longest) [zero, longest] = [start, run]
      run = 0
    } else if (run++ === 0) start = index
  }
  if (run > longest) [zero, longest] = [start, run]
  const [high = 0, low = 0] = words.slice(6)
  const dotted =
    zero === 0 &&
    ((longest === 5 && words[5] === 0xffff) ||
      longest === 6 ||
      (longest === 7 && low >> 8 !== 0 && (low & 255) !== 1))
  let text = zero === 0 ? ':' : ''
  for (let index = 0; index < (dotted ? 6 : 8); index++) {
    if (index === zero) {
      text += ':'
      index += longest - 1
      continue
    }
    text += `${(words[index] ?? 0).toString(16)}${index < 7 ? ':' : ''}`
  }
  return dotted ? `${text}${high >> 8}.${high & 255}.${low >> 8}.${low & 255}` : text
}

/**
 * Parses one IP address strictly and returns it exactly as the CDN will see it as the remote
 * address (nginx's `$remote_addr`), or `undefined` when the text is not an IP address: an
 * IP-bound token must sign that text, or it never validates.
 *
 * IPv4 must be four decimal parts without leading zeros (`1.2.3`, `01.2.3.4`, `0x7f.0.0.1` are
 * rejected), also as the tail of an IPv6 address. IPv6 is printed as nginx prints it
 * (`ngx_inet6_ntop`): RFC 5952 (lower case, shortest), with a dotted tail for IPv4-mapped
 * (`::ffff:1.2.3.4`) and IPv4-compatible addresses (`::1.2.3.4`, and `::102` as `::0.0.1.2`;
 * but `::1` and `::101` stay hex). Zone IDs (`fe80::1%eth0`) are rejected.
 *
 * @example
 * ```ts
 * normalizeIp('203.0.113.7')     // '203.0.113.7'
 * normalizeIp('2001:DB8:0::1')   // '2001:db8::1'
 * normalizeIp('::FFFF:102:304')  // '::ffff:1.2.3.4'
 * normalizeIp('::102:304')       // '::1.2.3.4'
 * normalizeIp('::102')           // '::0.0.1.2'
 * normalizeIp('not-an-ip')       // undefined
 * ```
 */
export function normalizeIp(text: string): string | undefined {
  // a JavaScript caller's number or null is no address either (not a TypeError deep inside)
  if (typeof text !== 'string') return undefined
  if (IPV4.test(text)) return text
  const words = ipv6Words(text)
  return words && printIpv6(words)
}

/**
 * The network a viewer's address stands for, to count requests per viewer: an IPv4 address
 * itself (an IPv4-mapped IPv6 address counts as its IPv4), an IPv6 address as its /64, since one
 * subscriber line or host usually holds a whole /64 and can pick any address inside it.
 *
 * @returns `undefined` when `ip` is not an IP address.
 * @example
 * ```ts
 * viewerNetwork('203.0.113.7')              // '203.0.113.7'
 * viewerNetwork('2001:db8:1:2:aaaa::1')     // '2001:db8:1:2::/64'
 * viewerNetwork('::ffff:203.0.113.7')       // '203.0.113.7'
 * ```
 */
export function viewerNetwork(ip: string): string | undefined {
  if (typeof ip !== 'string') return undefined
  if (IPV4.test(ip)) return ip
  const words = ipv6Words(ip)
  if (!words) return undefined
  const printed = printIpv6(words)
  if (printed.startsWith('::ffff:') && printed.includes('.')) return printed.slice(7)
  return `${printIpv6([...words.slice(0, 4), 0, 0, 0, 0])}/64`
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
export function detectClientIp(
  headers: HeaderSource,
  { explicit, headerNames = DEFAULT_IP_HEADERS }: ClientIpOptions = {},
): string {
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

/**
 * The viewer behind a chain of proxies you trust, the way nginx's `real_ip_recursive on` and
 * Express's `trust proxy` read it: the peer of the connection when it is not one of `trusted`,
 * else the right-most `X-Forwarded-For` entry that is not one of `trusted` (every proxy appends
 * the address it saw, so the entries left of the last untrusted one are whatever the caller
 * wrote). When every entry is trusted, the left-most; a malformed entry ends the walk there (it
 * is no proxy's, so nothing left of it can be vouched for).
 *
 * @returns the address normalised like {@link normalizeIp}, or `undefined` when `peer` is not an
 * address.
 * @example
 * ```ts
 * const { ranges } = parseIpRanges(['10.0.0.0/8']) as { ranges: IpRanges }
 * forwardedClientIp('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.1', ranges) // '198.51.100.7'
 * forwardedClientIp('203.0.113.9', '6.6.6.6', ranges)                    // '203.0.113.9'
 * ```
 */
export function forwardedClientIp(
  peer: string,
  forwardedFor: string | null | undefined,
  trusted: { has(ip: string): boolean },
): string | undefined {
  let viewer = normalizeIp(peer)
  if (viewer === undefined || !trusted.has(viewer) || !forwardedFor) return viewer
  const hops = forwardedFor.split(',')
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = normalizeIp(hops[index]?.trim() ?? '')
    if (hop === undefined) return viewer
    viewer = hop
    if (!trusted.has(hop)) return hop
  }
  return viewer
}

/**
 * An address as a viewer has it: an IPv4-mapped IPv6 address (what a dual-stack socket reports
 * for an IPv4 peer, `::ffff:203.0.113.7`) as its IPv4 address, anything else as
 * {@link normalizeIp} prints it.
 *
 * @example
 * ```ts
 * unmappedIp('::ffff:203.0.113.7') // '203.0.113.7'
 * unmappedIp('2001:DB8::1')        // '2001:db8::1'
 * ```
 */
export function unmappedIp(text: string): string | undefined {
  const ip = normalizeIp(text)
  return ip?.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip
}
