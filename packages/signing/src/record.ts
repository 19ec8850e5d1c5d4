import { type CdnSignRequest, type SignedUrlPair, signSecureLink } from './cdn-signer.ts'
import { InvalidClientIpError, normalizeIp } from './client-ip.ts'
import type { TokenDigest } from './digest.ts'
import { resolveExpiry } from './expiry.ts'
import { checkedVideo, type ManifestFormat, manifestUrl, streamType } from './playback-url.ts'

export { InvalidVideoError } from './playback-url.ts'

/** Server-side configuration: what the token backend reads from its environment. */
export interface SigningConfig {
  /** Account ID (`CLIENT_ID`). */
  clientId: string
  /** CDN resource secret (`SECRET_KEY`). */
  secretKey: string
  /** Host for plain-token URLs (`CDN_DOMAIN`). */
  cdnDomain: string
  /** Host for IP-bound URLs (`CDN_DOMAIN_IP`). */
  cdnDomainIp: string
  /** URL scheme; `https` unless a local CDN emulator is used. */
  scheme?: 'https' | 'http' | undefined
  /** Optional cap on token lifetime in seconds (`MAX_EXPIRE_SECONDS`); off by default. */
  maxLifetimeSeconds?: number | undefined
}

/** What one viewer asked for. */
export interface TokenParams {
  /** Video slug or stream ID; must be a safe path segment. */
  video: string
  /** `vod` or anything else (live). */
  type?: string | undefined
  /** Raw `expire` parameter: a lifetime or an absolute timestamp. */
  expire?: string | number | undefined
  /** Viewer IP for the IP-bound token (see `detectClientIp`). */
  clientIp: string
  /** Which manifest the URLs name: `hls` (default, `master.m3u8`) or `dash` (`manifest.mpd`). */
  format?: ManifestFormat | undefined
}

/** The token backend's response (spec 2.11), field order as documented. */
export interface TokenRecord {
  /** Plain token, valid from any IP. */
  token: string
  /** IP-bound token, locked to `client_ip`. */
  token_ip: string
  /** Viewer IP as seen by the backend. */
  client_ip: string
  /** Unix timestamp (seconds) at which both tokens expire. */
  expires: number
  /** Master playlist URL with the plain token on `CDN_DOMAIN` (the MPD with `format: 'dash'`). */
  url: string
  /** Master playlist URL with the IP-bound token on `CDN_DOMAIN_IP` (the MPD with `format: 'dash'`). */
  url_ip: string
  /**
   * Only when several CDNs are configured: every CDN's own URL pair, preferred first (additive,
   * after the six fields; the six stay the primary CDN's).
   */
  cdns?: CdnUrls[]
}

/** One CDN's entry in {@link TokenRecord.cdns}: its tokens, signed with its own secret. */
export interface CdnUrls extends SignedUrlPair {
  /** The CDN's id (`CDN_ID`, or one listed in `CDNS`). */
  id: string
  /** Lower is preferred; the array is sorted by it. */
  priority: number
  /** The same `expires` as the record's. */
  expires: number
}

/** When a record is signed, and with which MD5. */
export interface RecordOptions {
  /** The signing clock, in Unix seconds. */
  nowSeconds: number
  /** The MD5 to sign with (default spark-md5; `nodeMd5Digest` on Node gives the same tokens). */
  digest?: TokenDigest | undefined
}

/**
 * Builds the whole token record of spec 2.11 from configuration and request parameters.
 *
 * @throws {InvalidVideoError} when `video` is not one safe path segment.
 * @throws {InvalidClientIpError} when `clientIp` is not an IP address.
 * @example
 * ```ts
 * const record = createTokenRecord(
 *   { clientId: '12345', secretKey: 'secret', cdnDomain: 'cdn.example.com', cdnDomainIp: 'cdn-ip.example.com' },
 *   { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' },
 *   { nowSeconds: Math.floor(Date.now() / 1000) },
 * )
 * record.url // 'https://cdn.example.com/videos/12345_demo/<token>/<expires>/master.m3u8'
 * // with { …, format: 'dash' }: '…/<token>/<expires>/manifest.mpd'
 * ```
 */
export function createTokenRecord(
  config: SigningConfig,
  params: TokenParams,
  { nowSeconds, digest }: RecordOptions,
): TokenRecord {
  const request = resolveTokenRequest(config, params, nowSeconds)
  const pair = signSecureLink(config, request, digest)
  return recordOf(request, formatPair(pair, params.format))
}

/**
 * A CDN's URL pair naming the manifest of `format` ({@link manifestUrl}): the same pair for HLS
 * (or no format), so that today's record stays byte for byte what it was.
 *
 * @example
 * ```ts
 * formatPair(await signer.sign(request), 'dash').url // '…/manifest.mpd'
 * ```
 */
export function formatPair<Pair extends SignedUrlPair>(
  pair: Pair,
  format: ManifestFormat | undefined,
): Pair {
  if (format === undefined || format === 'hls') return pair
  return { ...pair, url: manifestUrl(pair.url, format), url_ip: manifestUrl(pair.url_ip, format) }
}

/**
 * What every CDN signs for `params`: the video checked, the viewer address normalised, the
 * expiry resolved (capped by `config.maxLifetimeSeconds`). The first half of
 * {@link createTokenRecord}, for signers of other CDNs.
 *
 * @throws {InvalidVideoError} when `video` is not one safe path segment.
 * @throws {InvalidClientIpError} when `clientIp` is not an IP address.
 * @example
 * ```ts
 * const request = resolveTokenRequest(config, { video: 'demo', type: 'vod', clientIp: '::1' }, nowSeconds)
 * await signer.sign(request)
 * ```
 */
export function resolveTokenRequest(
  config: SigningConfig,
  params: TokenParams,
  nowSeconds: number,
): CdnSignRequest {
  const { type } = params
  const video = checkedVideo(params.video)
  const clientIp = normalizeIp(params.clientIp)
  if (clientIp === undefined)
    throw new InvalidClientIpError('client_ip is not a valid IPv4 or IPv6 address')
  const expires = resolveExpiry(params.expire, {
    nowSeconds,
    maxLifetimeSeconds: config.maxLifetimeSeconds,
  })
  return { video, type: streamType(type), expires, clientIp }
}

/**
 * The six fields of spec 2.11, in their documented order, from a request and the primary CDN's
 * URL pair.
 *
 * @example
 * ```ts
 * recordOf(request, await primarySigner.sign(request))
 * ```
 */
export function recordOf(request: CdnSignRequest, pair: SignedUrlPair): TokenRecord {
  return {
    token: pair.token,
    token_ip: pair.token_ip,
    client_ip: request.clientIp,
    expires: request.expires,
    url: pair.url,
    url_ip: pair.url_ip,
  }
}
