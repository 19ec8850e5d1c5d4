import {
  type CdnSigner,
  type CdnSigningConfig,
  type CdnSignRequest,
  type CdnUrls,
  recordOf,
  secureLinkSigner,
  type TokenDigest,
  type TokenRecord,
} from '@proj/signing'
import { DEFAULT_CDN_ID } from '@proj/signing/config'
import type { TokenWorkerConfig } from './config.ts'

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
 * The signers of a configuration, or `undefined` when its record is today's (one CDN signed with
 * `secure_link`: `createTokenRecord` signs it directly, as before). Each CDN gets its own signer,
 * made from its own secret and hosts only: the object form's `signer`, else `secure_link` with
 * `digest`.
 *
 * @example
 * ```ts
 * const signers = cdnSigners(c.get('tokenConfig'), digest)
 * const record = signers ? await signForCdns(signers, request) : createTokenRecord(…)
 * ```
 */
export function cdnSigners(
  { signing, primaryCdn, cdns = [] }: TokenWorkerConfig,
  digest?: TokenDigest,
): CdnSigners | undefined {
  if (cdns.length === 0 && primaryCdn?.signer === undefined) return undefined
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
 * The record of spec 2.11 for several CDNs: the six fields are the primary CDN's, exactly as
 * with one; with more than one CDN, `cdns` follows: every CDN's own URL pair, preferred first.
 *
 * @example
 * ```ts
 * const record = await signForCdns(signers, resolveTokenRequest(signing, params, nowSeconds))
 * record.cdns?.map((cdn) => cdn.id) // ['primary', 'b']
 * ```
 */
export async function signForCdns(
  { primary, byPriority }: CdnSigners,
  request: CdnSignRequest,
): Promise<TokenRecord> {
  const pairs = await Promise.all(byPriority.map(({ signer }) => signer.sign(request)))
  const primaryPair = pairs[byPriority.indexOf(primary)]
  if (primaryPair === undefined) throw new Error('the primary CDN has no signer')
  const record = recordOf(request, primaryPair)
  if (byPriority.length === 1) return record
  record.cdns = byPriority.map(({ cdn }, index): CdnUrls => {
    const pair = pairs[index] as (typeof pairs)[number]
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
