import { describe, expect, it } from 'vitest'
import { secureLinkSigner, signSecureLink } from './cdn-signer.ts'
import { InvalidVideoError } from './playback-url.ts'
import { createTokenRecord, recordOf, resolveTokenRequest } from './record.ts'
import { ConfigError } from './signing-config.ts'
import { findTokenPair } from './url.ts'
import { verifyToken } from './verify.ts'

const NOW = 1_800_000_000
const a = {
  clientId: '12345',
  secretKey: 'secret-a',
  cdnDomain: 'a.test',
  cdnDomainIp: 'a-ip.test',
}
const b = {
  clientId: '12345',
  secretKey: 'secret-b',
  cdnDomain: 'b.test',
  cdnDomainIp: 'b-ip.test',
}
const params = { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' }

/** The CDN's own check of a signed URL: `ip` '' on the plain host, the viewer on the bound one. */
const verdict = (url: string, secret: string, ip: string) => {
  const pair = findTokenPair(url)
  const clientVideo = new URL(url).pathname.split('/')[2] ?? ''
  if (!pair) throw new Error(`no token pair in ${url}`)
  return verifyToken({
    clientVideo,
    token: pair.token,
    expires: String(pair.expires),
    secret,
    ip,
    nowSeconds: NOW,
  })
}

describe('the secure_link signer', () => {
  it('is createTokenRecord, field for field: the record of one CDN is unchanged', async () => {
    const request = resolveTokenRequest(a, params, NOW)
    expect(request).toEqual({
      video: 'demo',
      type: 'vod',
      expires: NOW + 600,
      clientIp: '203.0.113.7',
    })
    const record = recordOf(request, await secureLinkSigner(a).sign(request))
    expect(JSON.stringify(record)).toBe(
      JSON.stringify(createTokenRecord(a, params, { nowSeconds: NOW })),
    )
  })

  it("signs with the CDN's own secret, on its own hosts, valid there and refused by the other CDN", () => {
    const request = resolveTokenRequest(a, { ...params, type: undefined }, NOW)
    for (const [cdn, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const pair = signSecureLink(cdn, request)
      expect(new URL(pair.url).host).toBe(cdn.cdnDomain)
      expect(new URL(pair.url_ip).host).toBe(cdn.cdnDomainIp)
      expect(new URL(pair.url).pathname).toMatch(/^\/cmaf\/12345_demo\//)
      expect(verdict(pair.url, cdn.secretKey, '')).toBe(200)
      expect(verdict(pair.url_ip, cdn.secretKey, '203.0.113.7')).toBe(200)
      expect(verdict(pair.url, other.secretKey, '')).toBe(403)
      expect(verdict(pair.url_ip, other.secretKey, '203.0.113.7')).toBe(403)
    }
  })

  it('keeps the scheme of the CDN', () => {
    const request = resolveTokenRequest(a, params, NOW)
    expect(signSecureLink({ ...b, scheme: 'http' }, request).url).toMatch(/^http:\/\/b\.test\//)
  })

  it('signs nothing that would land outside the video or off the CDN (each part named)', () => {
    const request = resolveTokenRequest(a, params, NOW)
    expect(() => signSecureLink({ ...a, cdnDomain: 'evil.com/#' }, request)).toThrow(
      'cdnDomain must be a host name',
    )
    expect(() => signSecureLink({ ...a, cdnDomainIp: 'a@evil.com' }, request)).toThrow(
      'cdnDomainIp must be a host name',
    )
    expect(() => signSecureLink({ ...a, clientId: '1/../../x' }, request)).toThrow(ConfigError)
    // a request made by hand, not by resolveTokenRequest
    expect(() => signSecureLink(a, { ...request, video: '../../etc' })).toThrow(InvalidVideoError)
    expect(() => signSecureLink(a, { ...request, expires: Number.NaN })).toThrow(RangeError)
  })

  it('secureLinkSigner refuses a bad CDN when it is made, not at the first viewer', () => {
    expect(() => secureLinkSigner({ ...b, cdnDomainIp: 'b.test/x' })).toThrow(
      'cdnDomainIp must be a host name',
    )
  })
})
