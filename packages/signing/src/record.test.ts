import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { InvalidClientIpError } from './client-ip.ts'
import { createTokenRecord, formatPair, InvalidVideoError } from './record.ts'
import { ConfigError } from './signing-config.ts'

const md5url = (text: string) => createHash('md5').update(text).digest('base64url')
const config = {
  clientId: '12345',
  secretKey: 's3cr3t',
  cdnDomain: 'cdn.example.com',
  cdnDomainIp: 'cdn-ip.example.com',
}
const nowSeconds = 1_800_000_000

describe('createTokenRecord', () => {
  it('builds exactly the six fields of spec 2.11, in order', () => {
    const record = createTokenRecord(
      config,
      { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' },
      { nowSeconds },
    )
    const expires = nowSeconds + 600
    const token = md5url(`12345_demo_s3cr3t_${expires}_`)
    const tokenIp = md5url(`12345_demo_s3cr3t_${expires}_203.0.113.7`)
    expect(Object.keys(record)).toEqual([
      'token',
      'token_ip',
      'client_ip',
      'expires',
      'url',
      'url_ip',
    ])
    expect(record).toEqual({
      token,
      token_ip: tokenIp,
      client_ip: '203.0.113.7',
      expires,
      url: `https://cdn.example.com/videos/12345_demo/${token}/${expires}/master.m3u8`,
      url_ip: `https://cdn-ip.example.com/videos/12345_demo/${tokenIp}/${expires}/master.m3u8`,
    })
  })

  it('defaults to live and a one-hour lifetime', () => {
    const record = createTokenRecord(
      config,
      { video: 'stream1', clientIp: '0.0.0.0' },
      { nowSeconds },
    )
    expect(record.expires).toBe(nowSeconds + 3600)
    expect(record.url).toMatch(/^https:\/\/cdn\.example\.com\/cmaf\/12345_stream1\//)
    expect(record.url_ip).toMatch(/^https:\/\/cdn-ip\.example\.com\/cmaf\/12345_stream1\//)
  })

  it('signs the normalised IP that the CDN will see', () => {
    const record = createTokenRecord(
      config,
      { video: 'demo', clientIp: '2001:DB8::1' },
      { nowSeconds },
    )
    expect(record.client_ip).toBe('2001:db8::1')
    expect(record.token_ip).toBe(md5url(`12345_demo_s3cr3t_${record.expires}_2001:db8::1`))
  })

  it('honours the scheme and the lifetime cap', () => {
    const record = createTokenRecord(
      { ...config, scheme: 'http', maxLifetimeSeconds: 120 },
      { video: 'demo', expire: '600', clientIp: '0.0.0.0' },
      { nowSeconds },
    )
    expect(record.expires).toBe(nowSeconds + 120)
    expect(record.url.startsWith('http://cdn.example.com/cmaf/')).toBe(true)
  })

  it('refuses to sign an unsafe video or an invalid IP', () => {
    expect(() =>
      createTokenRecord(config, { video: '../x', clientIp: '0.0.0.0' }, { nowSeconds }),
    ).toThrow(InvalidVideoError)
    expect(() =>
      createTokenRecord(config, { video: 'demo', clientIp: 'x' }, { nowSeconds }),
    ).toThrow(InvalidClientIpError)
  })
})

describe('createTokenRecord on hostile input', () => {
  const params = { video: 'demo', type: 'vod', expire: '600', clientIp: '0.0.0.0' }

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['1e21', 1e21],
  ])('refuses the clock %s (no /NaN/, /Infinity/ or /1e+21/ URL)', (_, now) => {
    expect(() => createTokenRecord(config, params, { nowSeconds: now })).toThrow(RangeError)
    expect(() => createTokenRecord(config, params, { nowSeconds: now })).toThrow(/nowSeconds/)
  })

  it('refuses a lifetime cap that is not whole seconds', () => {
    expect(() =>
      createTokenRecord({ ...config, maxLifetimeSeconds: Number.NaN }, params, { nowSeconds }),
    ).toThrow(/maxLifetimeSeconds/)
  })

  it('refuses a client ID or a domain that would move the URLs', () => {
    expect(() =>
      createTokenRecord({ ...config, clientId: '1/../../x' }, params, { nowSeconds }),
    ).toThrow(ConfigError)
    expect(() =>
      createTokenRecord({ ...config, cdnDomain: 'evil.com/#' }, params, { nowSeconds }),
    ).toThrow('cdnDomain must be a host name')
  })
})

describe('the DASH format (issue 32)', () => {
  const params = { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' }
  it('names manifest.mpd in both URLs, every other field the same, the same six in order', () => {
    const hls = createTokenRecord(config, params, { nowSeconds })
    const dash = createTokenRecord(config, { ...params, format: 'dash' }, { nowSeconds })
    expect(Object.keys(dash)).toEqual(Object.keys(hls))
    expect(dash).toEqual({
      ...hls,
      url: hls.url.replace(/master\.m3u8$/, 'manifest.mpd'),
      url_ip: hls.url_ip.replace(/master\.m3u8$/, 'manifest.mpd'),
    })
  })

  it('keeps the record byte for byte when HLS is asked for, or nothing', () => {
    const none = JSON.stringify(createTokenRecord(config, params, { nowSeconds }))
    expect(
      JSON.stringify(createTokenRecord(config, { ...params, format: 'hls' }, { nowSeconds })),
    ).toBe(none)
    expect(
      JSON.stringify(createTokenRecord(config, { ...params, format: undefined }, { nowSeconds })),
    ).toBe(none)
  })

  it('turns a custom signer’s URLs by their last path segment, query kept', () => {
    const pair = {
      token: 't',
      token_ip: 'u',
      url: 'https://other.test/play/master.m3u8?sig=t&exp=1',
      url_ip: 'https://other.test/play/index.m3u8#x',
    }
    expect(formatPair(pair, 'dash')).toEqual({
      ...pair,
      url: 'https://other.test/play/manifest.mpd?sig=t&exp=1',
      url_ip: 'https://other.test/play/manifest.mpd#x',
    })
    expect(formatPair(pair, 'hls')).toBe(pair)
  })
})
