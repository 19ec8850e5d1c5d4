import { findTokenPair, type TokenRecord, verifyToken } from '@proj/signing'
import { describe, expect, it } from 'vitest'
import { configFromEnv } from './config.ts'
import { createNodeTokenApp } from './node.ts'

const NOW_S = 1_800_000_000

describe('several CDNs on Node', () => {
  it("signs every CDN with Node's MD5 and that CDN's own secret", async () => {
    const config = configFromEnv({
      CLIENT_ID: '12345',
      SECRET_KEY: 'node-secret-a',
      CDN_DOMAIN: 'a.test',
      CDN_DOMAIN_IP: 'a-ip.test',
      AUTH_MODE: 'none',
      CDNS: 'b',
      CDN_B_DOMAIN: 'b.test',
      CDN_B_DOMAIN_IP: 'b-ip.test',
      CDN_B_PRIORITY: '0',
      CDN_PRIORITY: '1',
      SECRET_KEY_B: 'node-secret-b',
    })
    const app = createNodeTokenApp({ config, now: () => NOW_S * 1000, audit: () => undefined })
    const res = await app.request('/token?video=demo&client_ip=2001:db8::1')
    const record = await res.json<TokenRecord>()
    expect(record.cdns?.map((cdn) => cdn.id)).toEqual(['b', 'primary'])
    const secrets = { primary: 'node-secret-a', b: 'node-secret-b' }
    for (const cdn of record.cdns ?? [])
      for (const [id, secret] of Object.entries(secrets))
        for (const [url, ip] of [
          [cdn.url, ''],
          [cdn.url_ip, '2001:db8::1'],
        ] as const) {
          const pair = findTokenPair(url)
          const verdict = verifyToken({
            clientVideo: '12345_demo',
            token: pair?.token ?? '',
            expires: String(pair?.expires),
            secret,
            ip,
            nowSeconds: NOW_S,
          })
          expect(verdict, `${cdn.id} ${url} with ${id}'s secret`).toBe(id === cdn.id ? 200 : 403)
        }
  })
})
