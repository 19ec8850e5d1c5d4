// `format=dash` on GET /token and GET /session (issue 32): additive only, the record of spec
// 2.11 byte for byte what it was when DASH is not asked for.
import type { CdnSigner, CdnUrls, TokenRecord } from '@proj/signing'
import { describe, expect, it } from 'vitest'
import { NOW_MS, NOW_S, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'

const app = createTokenApp({ now: () => NOW_MS, audit: () => undefined })
const IP = { 'x-real-ip': '203.0.113.7' }
const TWO_CDNS = {
  CDNS: 'b',
  CDN_B_DOMAIN: 'cdn-b.test',
  CDN_B_DOMAIN_IP: 'cdn-b-ip.test',
  SECRET_KEY_B: 'cdn-b-secret-7f3a',
}
const get = (path: string, env = testEnv()) =>
  app.request(`https://tokens.test${path}`, { headers: IP }, env)
const text = async (path: string, env = testEnv()) => {
  const res = await get(path, env)
  expect(res.status, path).toBe(200)
  return res.text()
}
const toMpd = (url: string) => url.replace(/\/master\.m3u8$/, '/manifest.mpd')

describe('GET /token?format=', () => {
  const query = '/token?video=demo&type=vod&expire=600'

  it('answers the same six fields, in order, its URLs naming manifest.mpd under the same tokens', async () => {
    const hls = JSON.parse(await text(query)) as TokenRecord
    const dash = JSON.parse(await text(`${query}&format=dash`)) as TokenRecord
    expect(Object.keys(dash)).toEqual([
      'token',
      'token_ip',
      'client_ip',
      'expires',
      'url',
      'url_ip',
    ])
    expect(dash).toEqual({ ...hls, url: toMpd(hls.url), url_ip: toMpd(hls.url_ip) })
    expect(dash.url).toMatch(
      /^https:\/\/cdn\.test\/videos\/12345_demo\/[\w-]+\/\d+\/manifest\.mpd$/,
    )
    expect(dash.expires).toBe(NOW_S + 600)
  })

  it('keeps the record byte for byte with format=hls or without format', async () => {
    expect(await text(`${query}&format=hls`)).toBe(await text(query))
  })

  it('names manifest.mpd in every entry of cdns too, each CDN its own token', async () => {
    const env = testEnv(TWO_CDNS)
    const hls = JSON.parse(await text(query, env)) as TokenRecord
    const dash = JSON.parse(await text(`${query}&format=dash`, env)) as TokenRecord
    const cdns = dash.cdns as CdnUrls[]
    expect(cdns.map((cdn) => new URL(cdn.url).host)).toEqual(['cdn.test', 'cdn-b.test'])
    expect(cdns).toEqual(
      (hls.cdns as CdnUrls[]).map((cdn) => ({
        ...cdn,
        url: toMpd(cdn.url),
        url_ip: toMpd(cdn.url_ip),
      })),
    )
    expect(await text(`${query}&format=hls`, env)).toBe(await text(query, env))
  })

  it.each([
    ['&format=DASH', 'format must be hls or dash'],
    ['&format=mpd', 'format must be hls or dash'],
    ['&format=', 'format must be hls or dash'],
    ['&format=dash&format=hls', 'format must be given once'],
  ])('%s → 400 %s', async (extra, error) => {
    const res = await get(`${query}${extra}`)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error })
  })

  it("turns a custom signer's URL by its last path segment, its query kept", async () => {
    const querySigner = (): CdnSigner => ({
      sign: ({ video, expires }) => ({
        token: 't',
        token_ip: 'u',
        url: `https://other.test/play/${video}/master.m3u8?sig=t&exp=${expires}`,
        url_ip: `https://other-ip.test/play/${video}/master.m3u8?sig=u&exp=${expires}`,
      }),
    })
    const custom = createTokenApp({
      now: () => NOW_MS,
      audit: () => undefined,
      config: {
        signing: {
          clientId: '12345',
          secretKey: 'test-secret',
          cdnDomain: 'cdn.test',
          cdnDomainIp: 'cdn-ip.test',
        },
        auth: { mode: 'none' },
        primaryCdn: { signer: querySigner },
      },
    })
    const res = await custom.request(`${query}&format=dash`, { headers: IP })
    const record = await res.json<TokenRecord>()
    expect(record.url).toBe(`https://other.test/play/demo/manifest.mpd?sig=t&exp=${NOW_S + 600}`)
    expect(record.url_ip).toBe(
      `https://other-ip.test/play/demo/manifest.mpd?sig=u&exp=${NOW_S + 600}`,
    )
  })
})

describe('GET /session?format=', () => {
  it('hands out the session MPD with format=dash, the master playlist otherwise', async () => {
    const url = async (extra: string) =>
      (JSON.parse(await text(`/session?video=demo&type=vod${extra}`)) as { session_url: string })
        .session_url
    expect(await url('&format=dash')).toMatch(
      /^https:\/\/tokens\.test\/s\/demo\/[\w-]+\.[\w-]+\.[\w-]+\/manifest\.mpd$/,
    )
    expect(await url('&format=hls')).toMatch(/\/master\.m3u8$/)
    expect(await url('')).toMatch(/\/master\.m3u8$/)
    const res = await get('/session?video=demo&format=smooth')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'format must be hls or dash' })
  })
})
