import { IPV4, ipv6Words } from './client-ip.ts'

/**
 * An address as eight 16-bit words; IPv4 as its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`), so an
 * IPv4 range also matches the mapped address a dual-stack socket reports for the same peer.
 */
function wordsOf(text: string): number[] | undefined {
  if (!IPV4.test(text)) return ipv6Words(text)
  const [a = 0, b = 0, c = 0, d = 0] = text.split('.').map(Number)
  return [0, 0, 0, 0, 0, 0xffff, (a << 8) | b, (c << 8) | d]
}

/** A parsed range: its first address's words and how many leading bits must match. */
interface IpRange {
  words: number[]
  bits: number
  /** A /0 of its family: every IPv4 or every IPv6 address. */
  open: boolean
}

/**
 * A set of address ranges (`10.0.0.0/8`, `2001:db8::/32`, or single addresses) and the one
 * question asked of it: does it hold this address?
 */
export interface IpRanges {
  /** Whether `ip` (any textual IPv4 or IPv6 form) lies in one of the ranges; `false` for non-addresses. */
  has(ip: string): boolean
  /** Whether one range is a whole address family (`0.0.0.0/0`, `::/0`): anyone at all. */
  readonly open: boolean
}

function parseRange(text: string): IpRange | undefined {
  const [address = '', prefix, extra] = text.split('/')
  if (extra !== undefined) return undefined
  const words = wordsOf(address)
  if (words === undefined) return undefined
  const v4 = IPV4.test(address)
  const max = v4 ? 32 : 128
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined
  const length = prefix === undefined ? max : Number(prefix)
  if (length > max) return undefined
  return { words, bits: v4 ? 96 + length : length, open: length === 0 }
}

function contains({ words, bits }: IpRange, address: number[]): boolean {
  for (let index = 0; index < 8 && bits > index * 16; index++) {
    const take = Math.min(16, bits - index * 16)
    const mask = (0xffff << (16 - take)) & 0xffff
    if (((words[index] ?? 0) & mask) !== ((address[index] ?? 0) & mask)) return false
  }
  return true
}

/**
 * Parses a list of address ranges in CIDR form (`127.0.0.1/32`, `10.0.0.0/8`, `fd00::/8`; an
 * address alone is its own range). IPv4 ranges also hold the IPv4-mapped IPv6 forms of their
 * addresses (`::ffff:10.1.2.3`).
 *
 * @returns the ranges, or the first entry that is not a range (to name it in an error).
 * @example
 * ```ts
 * const trusted = parseIpRanges(['10.0.0.0/8', '::1'])
 * if ('ranges' in trusted) trusted.ranges.has('10.4.5.6') // true
 * parseIpRanges(['10.0.0.0/33']) // { invalid: '10.0.0.0/33' }
 * ```
 */
export function parseIpRanges(
  entries: readonly string[],
): { ranges: IpRanges } | { invalid: string } {
  const parsed: IpRange[] = []
  for (const entry of entries) {
    const range = parseRange(entry.trim())
    if (range === undefined) return { invalid: entry }
    parsed.push(range)
  }
  return {
    ranges: {
      has(ip) {
        const address = wordsOf(ip)
        return address !== undefined && parsed.some((range) => contains(range, address))
      },
      open: parsed.some((range) => range.open),
    },
  }
}
