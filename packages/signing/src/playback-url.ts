/**
 * The layout of every URL of a video (spec 4.14) and the checks of what goes into it: a part
 * that is not what it claims to be (`video: '../../etc'`, `expires: NaN`, `domain: 'evil.com/#'`)
 * would put the URL outside the video's directory or on another host, so it throws. Server side
 * only: the player entry (`@proj/signing/url`) never imports this module.
 */
import { ConfigError, type SettingRule, SIGNING_RULES } from './signing-config.ts'

/** A rule's words for an error: the configuration's own, so both forms say the same. */
const expectedOf = ({ expected }: SettingRule<unknown>): string =>
  typeof expected === 'function' ? expected((variable) => variable) : expected

/**
 * A video slug or stream ID that is safe to sign into a URL path: one segment of 1 to 128
 * characters from `A-Z a-z 0-9 _ -`. Rejects `a/b`, `..`, `a?b`, `%2F` and empty input.
 */
export const VIDEO_SLUG_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

/**
 * Whether `video` is a safe single path segment (see {@link VIDEO_SLUG_PATTERN}).
 *
 * @example
 * ```ts
 * isVideoSlug('demo-01') // true
 * isVideoSlug('../etc')  // false
 * ```
 */
export function isVideoSlug(video: string): boolean {
  return VIDEO_SLUG_PATTERN.test(video)
}

/** Thrown when `video` is not a safe path segment. */
export class InvalidVideoError extends TypeError {
  override readonly name = 'InvalidVideoError'
}

/**
 * `video` itself when it is a slug ({@link VIDEO_SLUG_PATTERN}).
 *
 * @throws {InvalidVideoError} otherwise.
 * @example
 * ```ts
 * checkedVideo('demo')   // 'demo'
 * checkedVideo('../etc') // throws InvalidVideoError
 * ```
 */
export function checkedVideo(video: string): string {
  if (!isVideoSlug(video))
    throw new InvalidVideoError('video must be 1 to 128 characters from A-Z, a-z, 0-9, _ and -')
  return video
}

/**
 * `clientId` itself when it is the numeric account ID (`CLIENT_ID`'s rule); `name` is the field
 * an error names.
 *
 * @throws {ConfigError} otherwise (never with the value).
 * @example
 * ```ts
 * checkedClientId('12345')   // '12345'
 * checkedClientId('1/../x') // throws ConfigError: clientId must be the numeric account ID
 * ```
 */
export function checkedClientId(clientId: string, name = 'clientId'): string {
  if (SIGNING_RULES.CLIENT_ID.value(clientId) === undefined)
    throw new ConfigError(name, expectedOf(SIGNING_RULES.CLIENT_ID))
  return clientId
}

/**
 * `domain` itself when it is a host, optionally with `:port` (`CDN_DOMAIN`'s rule); `name` is
 * the field an error names.
 *
 * @throws {ConfigError} otherwise: `evil.com/#`, `a@b`, a path or a scheme is no host.
 * @example
 * ```ts
 * checkedDomain('127.0.0.1:8080') // '127.0.0.1:8080'
 * checkedDomain('evil.com/#')     // throws ConfigError: domain must be a host name, optionally with :port
 * ```
 */
export function checkedDomain(domain: string, name = 'domain'): string {
  if (SIGNING_RULES.CDN_DOMAIN.value(domain) === undefined)
    throw new ConfigError(name, expectedOf(SIGNING_RULES.CDN_DOMAIN))
  return domain
}

/**
 * `expires` itself when it is whole Unix seconds: a safe integer, 0 or more.
 *
 * @throws {RangeError} otherwise (`NaN`, `Infinity`, `1e21`, `1.5`, `-1`).
 * @example
 * ```ts
 * checkedExpires(1767225600) // 1767225600
 * checkedExpires(Number.NaN) // throws RangeError
 * ```
 */
export function checkedExpires(expires: number): number {
  if (!(Number.isSafeInteger(expires) && expires >= 0))
    throw new RangeError(
      `expires must be whole Unix seconds (a safe integer, 0 or more), got ${String(expires)}`,
    )
  return expires
}

/** `vod` (exactly) selects `/videos/`; anything else, including missing, is live (`/cmaf/`). */
export type StreamType = 'vod' | 'live'

/**
 * Normalises the `type` parameter: only the exact text `vod` is on demand; `VOD`, `live`,
 * anything else and a missing value are live (spec 4.14).
 *
 * @example
 * ```ts
 * streamType('vod') // 'vod'
 * streamType('VOD') // 'live'
 * streamType(undefined) // 'live'
 * ```
 */
export function streamType(type: string | undefined | null): StreamType {
  return type === 'vod' ? 'vod' : 'live'
}

/**
 * The video's directory on the CDN, the part of every URL of the video before the
 * `{token}/{expires}` pair: `/videos/{client_id}_{video}/` for VOD, `/cmaf/…/` for live. The one
 * home of the URL layout (spec 4.14): playback URLs, session leaves and signers build on it.
 *
 * @throws {ConfigError} when `clientId` is not numeric; {@link InvalidVideoError} when `video`
 * is not a slug: either would name another directory (`1/../../x`, `../../etc`).
 * @example
 * ```ts
 * videoDirectory('12345', 'demo', 'vod')  // '/videos/12345_demo/'
 * videoDirectory('12345', 'demo', 'live') // '/cmaf/12345_demo/'
 * ```
 */
export function videoDirectory(clientId: string, video: string, type: string | undefined): string {
  return directoryOf(checkedClientId(clientId), checkedVideo(video), type)
}

/** {@link videoDirectory} of parts already checked: the layout alone. */
const directoryOf = (clientId: string, video: string, type: string | undefined): string =>
  `/${streamType(type) === 'vod' ? 'videos' : 'cmaf'}/${clientId}_${video}/`

/** Parts of a playback URL. */
export interface PlaybackUrlInput {
  /** CDN host, optionally with a port (`cdn.example.com`, `127.0.0.1:8080`). */
  domain: string
  clientId: string
  video: string
  /** base64url (what `signToken` answers). */
  token: string
  /** Whole Unix seconds. */
  expires: number
  type?: string | undefined
  /** `https` unless a local CDN emulator without TLS is used. */
  scheme?: 'https' | 'http' | undefined
}

/**
 * Builds the HLS master playlist URL:
 * `https://{domain}/videos/{client_id}_{video}/{token}/{expires}/master.m3u8` for VOD, `/cmaf/`
 * instead of `/videos/` for live. Every part is checked: the URL is on `domain`, in the video's
 * directory, with one pair.
 *
 * @throws {ConfigError} when `domain` is not a host[:port] or `clientId` not numeric;
 * {@link InvalidVideoError} when `video` is not a slug; a `TypeError` when `token` is not
 * base64url; a `RangeError` when `expires` is not whole Unix seconds ({@link checkedExpires}).
 * @example
 * ```ts
 * buildPlaybackUrl({ domain: 'cdn.example.com', clientId: '12345', video: 'demo',
 *   token: 'abcDEF123', expires: 1767225600, type: 'vod' })
 * // 'https://cdn.example.com/videos/12345_demo/abcDEF123/1767225600/master.m3u8'
 * ```
 */
export function buildPlaybackUrl(input: PlaybackUrlInput): string {
  const { token, scheme = 'https' } = input
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new TypeError('token must be base64url')
  if (scheme !== 'https' && scheme !== 'http') throw new TypeError('scheme must be https or http')
  return playbackUrlOfChecked({
    ...input,
    domain: checkedDomain(input.domain),
    clientId: checkedClientId(input.clientId),
    video: checkedVideo(input.video),
    expires: checkedExpires(input.expires),
  })
}

/**
 * {@link buildPlaybackUrl} of parts already checked (a signer that checked its CDN once and
 * its request's video and expiry once builds two URLs): the layout alone, no check again.
 * Not exported by the package.
 *
 * @example
 * ```ts
 * playbackUrlOfChecked({ domain: 'cdn.test', clientId: '12345', video: 'demo', token: 'abc',
 *   expires: 1767225600, type: 'vod' }) // 'https://cdn.test/videos/12345_demo/abc/1767225600/master.m3u8'
 * ```
 */
export function playbackUrlOfChecked({
  domain,
  clientId,
  video,
  token,
  expires,
  type,
  scheme = 'https',
}: PlaybackUrlInput): string {
  return `${scheme}://${domain}${directoryOf(clientId, video, type)}${token}/${expires}/master.m3u8`
}

/** The manifest a playback URL names: `hls` (`master.m3u8`, the default) or `dash` (`manifest.mpd`). */
export type ManifestFormat = 'hls' | 'dash'

/**
 * The manifest file of each format, in the video's directory beside each other: one token covers
 * both (spec 4.14 signs the directory, not the file).
 */
export const MANIFEST_FILES: Readonly<Record<ManifestFormat, string>> = {
  hls: 'master.m3u8',
  dash: 'manifest.mpd',
}

/**
 * The `format` parameter read strictly: `hls` or `dash` exactly, `undefined` (the default, HLS)
 * when absent; anything else is not a format (`null`), for the caller to refuse.
 *
 * @example
 * ```ts
 * manifestFormat('dash')    // 'dash'
 * manifestFormat(undefined) // 'hls'
 * manifestFormat('DASH')    // null
 * ```
 */
export function manifestFormat(value: string | undefined | null): ManifestFormat | null {
  if (value === undefined || value === null) return 'hls'
  return value === 'hls' || value === 'dash' ? value : null
}

/**
 * A signed manifest URL turned to another format: the last path segment (the signer's
 * `master.m3u8`) becomes that format's file, the query and fragment kept, so that signers of
 * other CDNs, whose URLs carry their token elsewhere, work unchanged. HLS is the URL as is.
 *
 * @example
 * ```ts
 * manifestUrl('https://cdn.test/videos/12345_demo/abc/1767225600/master.m3u8', 'dash')
 * // 'https://cdn.test/videos/12345_demo/abc/1767225600/manifest.mpd'
 * manifestUrl('https://cdn.test/v/master.m3u8?token=abc', 'dash') // 'https://cdn.test/v/manifest.mpd?token=abc'
 * ```
 * @throws {TypeError} when `format` is not `hls` or `dash` (read a request's parameter with
 * {@link manifestFormat} first).
 */
export function manifestUrl(url: string, format: ManifestFormat): string {
  if (format === 'hls') return url
  // `Object.hasOwn`: an unknown format must not name a file (`…/undefined`) nor an inherited one
  if (!Object.hasOwn(MANIFEST_FILES, format)) {
    throw new TypeError(`format must be "hls" or "dash", got ${JSON.stringify(format)}`)
  }
  const tail = url.search(/[?#]/)
  const path = tail === -1 ? url : url.slice(0, tail)
  return `${path.slice(0, path.lastIndexOf('/') + 1)}${MANIFEST_FILES[format]}${tail === -1 ? '' : url.slice(tail)}`
}
