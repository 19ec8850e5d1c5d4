/**
 * The seam between a token record and one CDN's URL format: a {@link CdnSigner} turns what a
 * viewer may watch into that CDN's signed URL pair. Today's MD5 `secure_link` scheme is the
 * default ({@link secureLinkSigner}); a CDN with another format gets a signer of its own.
 */
import { sparkMd5Digest, type TokenDigest } from './digest.ts'
import {
  checkedClientId,
  checkedDomain,
  checkedExpires,
  checkedVideo,
  playbackUrlOfChecked,
  type StreamType,
} from './playback-url.ts'
import { signToken } from './token.ts'

/** What every CDN signs for one token request, already validated and resolved. */
export interface CdnSignRequest {
  /** Video slug or stream ID (a safe path segment). */
  video: string
  type: StreamType
  /** Unix seconds at which the tokens expire (the same for every CDN of a record). */
  expires: number
  /** The viewer address the IP-bound token is locked to, normalised as the CDN prints it. */
  clientIp: string
}

/** One CDN's answer: its two tokens and the master playlist URLs on its two hosts. */
export interface SignedUrlPair {
  /** Plain token, valid from any address. */
  token: string
  /** Token bound to the viewer address. */
  token_ip: string
  /** Master playlist on the CDN's plain host, with `token`. */
  url: string
  /** Master playlist on the CDN's IP-bound host, with `token_ip`. */
  url_ip: string
}

/**
 * Signs playback URLs for one CDN, with that CDN's own secret only: the URLs it answers are on
 * its own hosts. May answer a promise (a format signed with WebCrypto, say).
 */
export interface CdnSigner {
  sign(request: CdnSignRequest): SignedUrlPair | Promise<SignedUrlPair>
}

/** One CDN of a configuration, validated: what its signer is made from. */
export interface CdnSigningConfig {
  /** Short name of the CDN (`primary`, `b`, `eu-west`): `[a-z0-9-]`. */
  id: string
  /** Lower is preferred. */
  priority: number
  /** Account ID (`CLIENT_ID`), shared by every CDN. */
  clientId: string
  /** This CDN's own secret; never another CDN's. */
  secretKey: string
  /** Host of plain-token URLs. */
  cdnDomain: string
  /** Host of IP-bound URLs. */
  cdnDomainIp: string
  scheme: 'https' | 'http'
}

/** Makes the signer of one CDN from its validated configuration, once per configuration. */
export type CdnSignerFactory = (cdn: CdnSigningConfig) => CdnSigner

/** The parts of a CDN that the `secure_link` scheme reads. */
export type SecureLinkCdn = Pick<
  CdnSigningConfig,
  'clientId' | 'secretKey' | 'cdnDomain' | 'cdnDomainIp'
> & {
  scheme?: 'https' | 'http' | undefined
}

/** A CDN's parts checked, each error naming its field: what `signSecureLink` signs into URLs. */
const checkCdn = (cdn: SecureLinkCdn): void => {
  checkedClientId(cdn.clientId)
  checkedDomain(cdn.cdnDomain, 'cdnDomain')
  checkedDomain(cdn.cdnDomainIp, 'cdnDomainIp')
}

/**
 * The MD5 `secure_link` URL pair of spec 4.14 for one CDN: the plain token on `cdnDomain`, the
 * bound one on `cdnDomainIp`, both signed with this CDN's `secretKey`. Nothing is signed for
 * parts that would put a URL elsewhere than the video's directory on the CDN's hosts.
 *
 * @throws {ConfigError} when `clientId` is not numeric or `cdnDomain`/`cdnDomainIp` is not a
 * host[:port]; `InvalidVideoError` when `video` is not a slug; a `RangeError` when `expires` is
 * not whole Unix seconds.
 * @example
 * ```ts
 * signSecureLink(
 *   { clientId: '12345', secretKey: 'k', cdnDomain: 'cdn.test', cdnDomainIp: 'cdn-ip.test' },
 *   { video: 'demo', type: 'vod', expires: 1767225600, clientIp: '203.0.113.7' },
 * ).url // 'https://cdn.test/videos/12345_demo/<token>/1767225600/master.m3u8'
 * ```
 */
export function signSecureLink(
  cdn: SecureLinkCdn,
  request: CdnSignRequest,
  digest: TokenDigest = sparkMd5Digest,
): SignedUrlPair {
  checkCdn(cdn)
  return signForCheckedCdn(cdn, request, digest)
}

/** {@link signSecureLink} for a CDN already checked: the request's parts checked, once. */
function signForCheckedCdn(
  cdn: SecureLinkCdn,
  { video, type, expires, clientIp }: CdnSignRequest,
  digest: TokenDigest,
): SignedUrlPair {
  checkedVideo(video)
  checkedExpires(expires)
  const { clientId, secretKey: secret, scheme } = cdn
  const token = signToken({ clientId, video, secret, expires }, digest)
  const tokenIp = signToken({ clientId, video, secret, expires, ip: clientIp }, digest)
  const url = (domain: string, signed: string) =>
    playbackUrlOfChecked({ domain, clientId, video, token: signed, expires, type, scheme })
  return {
    token,
    token_ip: tokenIp,
    url: url(cdn.cdnDomain, token),
    url_ip: url(cdn.cdnDomainIp, tokenIp),
  }
}

/**
 * The default {@link CdnSigner}: today's MD5 `secure_link` scheme ({@link signSecureLink}) with
 * this CDN's secret and hosts. `digest` as in `createTokenRecord` (same tokens either way). The
 * CDN is checked here already, so a bad configuration fails when the signer is made.
 *
 * @throws {ConfigError} as {@link signSecureLink}, for the CDN's parts.
 * @example
 * ```ts
 * const signer = secureLinkSigner({ clientId: '12345', secretKey: 'kb',
 *   cdnDomain: 'cdn-b.test', cdnDomainIp: 'cdn-b-ip.test', scheme: 'https' })
 * signer.sign({ video: 'demo', type: 'live', expires: 1767225600, clientIp: '0.0.0.0' })
 * ```
 */
export function secureLinkSigner(
  cdn: SecureLinkCdn,
  { digest }: { digest?: TokenDigest | undefined } = {},
): CdnSigner {
  checkCdn(cdn)
  const hash = digest ?? sparkMd5Digest
  return {
    sign(request) {
      return signForCheckedCdn(cdn, request, hash)
    },
  }
}
