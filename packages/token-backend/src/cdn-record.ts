import {
  type CdnSigner,
  type CdnSigningConfig,
  type CdnSignRequest,
  type CdnUrls,
  formatPair,
  type ManifestFormat,
  recordOf,
  type SignedUrlPair,
  secureLinkSigner,
  type TokenDigest,
  type TokenRecord,
} from '@proj/signing'
import { DEFAULT_CDN_ID } from '@proj/signing/config'
import type { TokenBackendConfig } from './config.ts'

/** One CDN ready to sign: what it is, and its signer (made once per configuration). */
interface SigningCdn {
  cdn: CdnSigningConfig
  signer: CdnSigner
}

/** Every CDN of a configuration, ready to sign: the primary, and all of them preferred first. */
export interface CdnSigners {
  primary: SigningCdn
  /** Sorted by priority, the primary among them. */
  byPriority: readonly SigningCdn[]
}

/**
 * The signers of a configuration: each CDN gets its own, made from its own secret and hosts only
 * (the object form's `signer`, else `secure_link` with `digest`). One CDN is a list of one.
 *
 * @example
 * ```ts
 * const signers = cdnSigners(c.get('tokenConfig'), digest)
 * const record = await signForCdns(signers, resolveTokenRequest(signing, params, nowSeconds))
 * ```
 */
export function cdnSigners(
  { signing, primaryCdn, cdns = [] }: TokenBackendConfig,
  digest?: TokenDigest,
): CdnSigners {
  const { clientId } = signing
  const primary = signerOf(
    {
      id: primaryCdn?.id ?? DEFAULT_CDN_ID,
      priority: primaryCdn?.priority ?? 0,
      clientId,
      secretKey: signing.secretKey,
      cdnDomain: signing.cdnDomain,
      cdnDomainIp: signing.cdnDomainIp,
      scheme: signing.scheme ?? 'https',
    },
    primaryCdn?.signer,
    digest,
  )
  const others = cdns.map(({ signer, ...cdn }) => signerOf({ ...cdn, clientId }, signer, digest))
  return {
    primary,
    byPriority: [primary, ...others].sort((a, b) => a.cdn.priority - b.cdn.priority),
  }
}

const signerOf = (
  cdn: CdnSigningConfig,
  factory: ((cdn: CdnSigningConfig) => CdnSigner) | undefined,
  digest: TokenDigest | undefined,
): SigningCdn => ({ cdn, signer: factory ? factory(cdn) : secureLinkSigner(cdn, { digest }) })

/**
 * The record of spec 2.11: the six fields are the primary CDN's; with more than one CDN, `cdns`
 * follows: every CDN's own URL pair, preferred first. With `format: 'dash'` every URL names the
 * MPD instead of the master playlist (each signer's URL, last path segment replaced). Signers
 * that answer at once (the default `secure_link`) are not awaited: one CDN costs what
 * `createTokenRecord` does.
 *
 * @example
 * ```ts
 * const record = await signForCdns(signers, resolveTokenRequest(signing, params, nowSeconds))
 * record.cdns?.map((cdn) => cdn.id) // ['primary', 'b']
 * ```
 */
export function signForCdns(
  { primary, byPriority }: CdnSigners,
  request: CdnSignRequest,
  format?: ManifestFormat,
): TokenRecord | Promise<TokenRecord> {
  const signed = byPriority.map(({ signer }) => signer.sign(request))
  const recordFrom = (signedPairs: readonly SignedUrlPair[]) => {
    const pairs = signedPairs.map((pair) => formatPair(pair, format))
    const primaryPair = pairs[byPriority.indexOf(primary)]
    if (primaryPair === undefined) throw new Error('the primary CDN has no signer')
    const record = recordOf(request, primaryPair)
    if (byPriority.length === 1) return record
    record.cdns = byPriority.map(({ cdn }, index): CdnUrls => {
      const pair = pairs[index] as SignedUrlPair
      return {
        id: cdn.id,
        priority: cdn.priority,
        token: pair.token,
        token_ip: pair.token_ip,
        expires: request.expires,
        url: pair.url,
        url_ip: pair.url_ip,
      }
    })
    return record
  }
  return signed.some((pair) => pair instanceof Promise)
    ? Promise.all(signed).then(recordFrom)
    : recordFrom(signed as SignedUrlPair[])
}
