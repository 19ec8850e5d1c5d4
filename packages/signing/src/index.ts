export {
  CDN_FAILURES,
  type CdnFailure,
  cdnFailureOf,
  isTokenRefusal,
} from './cdn-failure.ts'
export {
  type CdnSigner,
  type CdnSignerFactory,
  type CdnSigningConfig,
  type CdnSignRequest,
  type SecureLinkCdn,
  type SignedUrlPair,
  secureLinkSigner,
  signSecureLink,
} from './cdn-signer.ts'
export {
  type ClientIpOptions,
  DEFAULT_IP_HEADERS,
  detectClientIp,
  FALLBACK_CLIENT_IP,
  forwardedClientIp,
  type HeaderSource,
  InvalidClientIpError,
  normalizeIp,
  unmappedIp,
  viewerNetwork,
} from './client-ip.ts'
export { hexToBase64Url, sparkMd5Digest, type TokenDigest } from './digest.ts'
export {
  ABSOLUTE_EXPIRY_THRESHOLD,
  DEFAULT_LIFETIME_SECONDS,
  type ExpiryOptions,
  MAX_NOW_SECONDS,
  parseExpire,
  resolveExpiry,
} from './expiry.ts'
export { type IpRanges, parseIpRanges } from './ip-range.ts'
export {
  buildPlaybackUrl,
  InvalidVideoError,
  isVideoSlug,
  MANIFEST_FILES,
  type ManifestFormat,
  manifestFormat,
  manifestUrl,
  type PlaybackUrlInput,
  type StreamType,
  streamType,
  VIDEO_SLUG_PATTERN,
  videoDirectory,
} from './playback-url.ts'
export {
  type CdnUrls,
  createTokenRecord,
  formatPair,
  type RecordOptions,
  recordOf,
  resolveTokenRequest,
  type SigningConfig,
  type TokenParams,
  type TokenRecord,
} from './record.ts'
export { signedText, signToken, type TokenInput, toBase64Url } from './token.ts'
export {
  findTokenPair,
  hasTokenPair,
  replaceTokenPair,
  TOKEN_PAIR_PATTERN,
  type TokenPair,
  type VideoScope,
  videoScopeOf,
} from './url.ts'
export { type TokenCheck, type TokenVerdict, verifyToken } from './verify.ts'
