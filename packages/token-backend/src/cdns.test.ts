import {
  type CdnSigner,
  type CdnSigningConfig,
  type CdnUrls,
  findTokenPair,
  type TokenRecord,
  verifyToken,
} from '@proj/signing'
import { describe, expect, it, vi } from 'vitest'
import { NOW_MS, NOW_S, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'
import { ConfigError, configFromEnv, type TokenConfigInput, tokenConfig } from './config.ts'

const app = createTokenApp({ now: () => NOW_MS, audit: () => undefined })
const SECRET_A = 'test-secret'
const SECRET_B = 'cdn-b-secret-7f3a'
const SECRET_C = 'cdn-c-secret-91d2'
/** The test bindings plus CDN b and CDN c, each with its own secret and hosts. */
const twoMore = {
  CDNS: 'b,c',
  CDN_B_DOMAIN: 'cdn-b.test',
  CDN_B_DOMAIN_IP: 'cdn-b-ip.test',
  SECRET_KEY_B: SECRET_B,
  CDN_C_DOMAIN: 'cdn-c.test:8443',
  CDN_C_DOMAIN_IP: 'cdn-c-ip.test',
  CDN_C_SCHEME: 'http',
  SECRET_KEY_C: SECRET_C,
}
// what the Workers platform sets (the test bindings also trust x-real-ip: IP_HEADERS)
const IP = { 'x-real-ip': '203.0.113.7', 'cf-connecting-ip': '203.0.113.7' }
const QUERY = '/token?video=demo&type=vod&expire=600'

const token = async (env: Record<string, string | undefined>, query = QUERY) => {
  const res = await app.request(query, { headers: IP }, testEnv(env))
  expect(res.status).toBe(200)
  return res.json<TokenRecord>()
}

/** The CDN's own check of one URL (`ip` '' on the plain host, the viewer's on the bound one). */
const verdict = (url: string, secret: string, ip: string) => {
  const pair = findTokenPair(url)
  if (!pair) throw new Error(`no token pair in ${url}`)
  const clientVideo = new URL(url).pathname.split('/')[2] ?? ''
  return verifyToken({
    clientVideo,
    token: pair.token,
    expires: String(pair.expires),
    secret,
    ip,
    nowSeconds: NOW_S,
  })
}

describe('GET /token with several CDNs', () => {
  it('keeps the six fields of 2.11 byte for byte, and adds every CDN after them, preferred first', async () => {
    const single = await app.request(QUERY, { headers: IP }, testEnv())
    const several = await app.request(QUERY, { headers: IP }, testEnv(twoMore))
    const singleText = await single.text()
    const severalText = await several.text()
    // the same text up to the closing brace, then `,"cdns":[…]}`
    expect(severalText.startsWith(`${singleText.slice(0, -1)},"cdns":[`)).toBe(true)
    const record = JSON.parse(severalText) as TokenRecord
    expect(Object.keys(record)).toEqual([
      'token',
      'token_ip',
      'client_ip',
      'expires',
      'url',
      'url_ip',
      'cdns',
    ])
    const cdns = record.cdns as CdnUrls[]
    expect(cdns.map(({ id, priority }) => [id, priority])).toEqual([
      ['primary', 0],
      ['b', 1],
      ['c', 2],
    ])
    for (const cdn of cdns) {
      expect(Object.keys(cdn)).toEqual([
        'id',
        'priority',
        'token',
        'token_ip',
        'expires',
        'url',
        'url_ip',
      ])
      expect(cdn.expires).toBe(NOW_S + 600)
    }
    // the primary's entry is the top-level record
    expect(cdns[0]).toMatchObject({ token: record.token, url: record.url, url_ip: record.url_ip })
    expect(cdns.map((cdn) => [new URL(cdn.url).origin, new URL(cdn.url_ip).origin])).toEqual([
      ['https://cdn.test', 'https://cdn-ip.test'],
      ['https://cdn-b.test', 'https://cdn-b-ip.test'],
      ['http://cdn-c.test:8443', 'http://cdn-c-ip.test'],
    ])
  })

  it("signs each CDN's URLs with its own secret only: valid at that CDN, refused by every other", async () => {
    const { cdns = [] } = await token(twoMore)
    const secrets: Record<string, string> = { primary: SECRET_A, b: SECRET_B, c: SECRET_C }
    expect(new Set(cdns.map((cdn) => cdn.token)).size).toBe(3)
    for (const cdn of cdns) {
      for (const [id, secret] of Object.entries(secrets)) {
        const expected = id === cdn.id ? 200 : 403
        expect(verdict(cdn.url, secret, ''), `${cdn.id}'s url with ${id}'s secret`).toBe(expected)
        expect(verdict(cdn.url_ip, secret, '203.0.113.7')).toBe(expected)
      }
    }
  })

  it("rotating one CDN's secret changes that CDN's tokens only", async () => {
    const before = await token(twoMore)
    const rotated = await token({ ...twoMore, SECRET_KEY: 'test-secret-rotated' })
    const byId = (record: TokenRecord) =>
      Object.fromEntries((record.cdns ?? []).map((cdn) => [cdn.id, cdn]))
    expect(byId(rotated).b).toEqual(byId(before).b)
    expect(byId(rotated).c).toEqual(byId(before).c)
    expect(byId(rotated).primary?.token).not.toBe(byId(before).primary?.token)
    expect(verdict(rotated.url, 'test-secret-rotated', '')).toBe(200)
  })

  it('orders by priority, lower first, and the six fields stay the primary CDN', async () => {
    const record = await token({
      ...twoMore,
      CDN_ID: 'main',
      CDN_PRIORITY: '20',
      CDN_B_PRIORITY: '30',
      CDN_C_PRIORITY: '10',
    })
    expect(record.cdns?.map(({ id, priority }) => `${id}:${priority}`)).toEqual([
      'c:10',
      'main:20',
      'b:30',
    ])
    expect(new URL(record.url).host).toBe('cdn.test')
    expect(record.cdns?.[1]?.token).toBe(record.token)
  })

  it('answers exactly the six fields when only the primary is configured, named or not', async () => {
    const plain = await app.request(QUERY, { headers: IP }, testEnv())
    const named = await app.request(
      QUERY,
      { headers: IP },
      testEnv({ CDN_ID: 'edge-1', CDN_PRIORITY: '3', CDNS: ' ' }),
    )
    expect(await named.text()).toBe(await plain.text())
  })
})

describe('the CDN list in the variables: a ConfigError naming the variable, never a secret', () => {
  it.each([
    [{ CDNS: 'b,B' }, 'CDNS lists "B", which is not a CDN id'],
    [{ CDNS: 'b,c,b' }, 'CDNS lists "b" twice'],
    [{ CDN_ID: 'b' }, 'CDNS lists "b" twice (CDN_ID names it too)'],
    [{ SECRET_KEY_C: undefined }, 'SECRET_KEY_C is required'],
    [{ SECRET_KEY_C: SECRET_A }, 'SECRET_KEY_C must differ from SECRET_KEY: each CDN has its own'],
    [{ SECRET_KEY_C: SECRET_B }, 'SECRET_KEY_C must differ from SECRET_KEY_B'],
    [{ CDN_B_DOMAIN: 'cdn-b.example.com' }, 'CDN_B_DOMAIN is still the placeholder'],
    [{ CDN_C_DOMAIN_IP: 'media.example' }, 'CDN_C_DOMAIN_IP is still the placeholder'],
    [{ CDN_C_DOMAIN: 'CDN-B.test' }, 'CDN_C_DOMAIN is also CDN_B_DOMAIN'],
    [{ CDN_B_PRIORITY: 'first' }, 'CDN_B_PRIORITY must be a whole number from 0 to 999'],
    [{ CDN_C_PRIORITY: '1' }, 'CDN_C_PRIORITY must differ from CDN_B_PRIORITY (1)'],
  ])('%j → 500 %s', async (overrides, message) => {
    const env = { ...twoMore, ...overrides }
    expect(() => configFromEnv(testEnv(env))).toThrow(ConfigError)
    const res = await app.request('/token?video=demo', {}, testEnv(env))
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text).error).toContain(`server misconfigured: ${message}`)
    for (const secret of [SECRET_A, SECRET_B, SECRET_C, env.SECRET_KEY_C])
      if (secret) expect(text).not.toContain(secret)
  })

  it('refuses a session secret that is a CDN secret', () => {
    const shared = 'c'.repeat(32)
    expect(() =>
      configFromEnv(testEnv({ ...twoMore, SECRET_KEY_C: shared, SESSION_SECRET: shared })),
    ).toThrow('SESSION_SECRET must differ from SECRET_KEY_C (a session is not a CDN token)')
  })

  it("never logs or answers a further CDN's secret", async () => {
    const logged: unknown[] = []
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => logged.push(...args))
    const logging = createTokenApp({ now: () => NOW_MS })
    const answers = [
      await logging.request(QUERY, {}, testEnv(twoMore)),
      await logging.request(QUERY, {}, testEnv({ ...twoMore, CDN_B_PRIORITY: SECRET_B })),
      await logging.request(QUERY, {}, testEnv({ ...twoMore, CDN_C_SCHEME: SECRET_C })),
      await logging.request(QUERY, {}, testEnv({ ...twoMore, SECRET_KEY_C: SECRET_B })),
    ]
    vi.restoreAllMocks()
    for (const res of answers) {
      const text = await res.text()
      for (const secret of [SECRET_B, SECRET_C]) expect(text).not.toContain(secret)
    }
    expect(logged.length).toBeGreaterThan(0)
    for (const entry of logged)
      for (const secret of [SECRET_B, SECRET_C])
        expect(String(entry instanceof Error ? entry.stack : entry)).not.toContain(secret)
  })
})

describe('the CDN list as an object: createTokenApp({ config })', () => {
  const signing = {
    clientId: '12345',
    secretKey: SECRET_A,
    cdnDomain: 'cdn.test',
    cdnDomainIp: 'cdn-ip.test',
  }
  const b = { id: 'b', secretKey: SECRET_B, cdnDomain: 'cdn-b.test', cdnDomainIp: 'cdn-b-ip.test' }
  const input: TokenConfigInput = { signing, auth: { mode: 'none' }, cdns: [b] }

  it('reads the same as the variables, and a validated configuration reads as itself', () => {
    const fromEnv = configFromEnv({
      CLIENT_ID: '12345',
      SECRET_KEY: SECRET_A,
      CDN_DOMAIN: 'cdn.test',
      CDN_DOMAIN_IP: 'cdn-ip.test',
      AUTH_MODE: 'none',
      CDNS: 'b',
      CDN_B_DOMAIN: 'cdn-b.test',
      CDN_B_DOMAIN_IP: 'cdn-b-ip.test',
      SECRET_KEY_B: SECRET_B,
    })
    expect(tokenConfig(input)).toEqual(fromEnv)
    expect(fromEnv.primaryCdn).toEqual({ id: 'primary', priority: 0 })
    expect(fromEnv.cdns).toEqual([{ ...b, priority: 1, scheme: 'https' }])
    expect(tokenConfig(fromEnv)).toEqual(fromEnv)
  })

  it.each([
    [{ cdns: [{ ...b, id: 'B,c' }] }, 'config.cdns[0].id must be 1 to 32 characters'],
    [{ cdns: [b, b] }, 'config.cdns lists "b" twice'],
    [{ cdns: [{ ...b, secretKey: '' }] }, 'config.cdns[0].secretKey is required: it must be set'],
    [
      { cdns: [{ ...b, secretKey: SECRET_A }] },
      'config.cdns[0].secretKey must differ from config.signing.secretKey',
    ],
    [
      { cdns: [{ ...b, cdnDomain: 'cdn.test' }] },
      'config.cdns[0].cdnDomain is also config.signing.cdnDomain',
    ],
    [{ cdns: [{ ...b, priority: 1.5 }] }, 'config.cdns[0].priority must be a whole number'],
    [{ primaryCdn: { priority: 1 }, cdns: [b] }, 'config.cdns[0].priority is unset, so 1'],
    [{ primaryCdn: { id: 'Main' } }, 'config.primaryCdn.id must be 1 to 32 characters'],
  ] as const)('%j → ConfigError: %s', (extra, message) => {
    expect(() => tokenConfig({ ...input, ...extra } as TokenConfigInput)).toThrow(
      `server misconfigured: ${message}`,
    )
    try {
      tokenConfig({ ...input, ...extra } as TokenConfigInput)
    } catch (error) {
      expect((error as Error).message).not.toContain(SECRET_A)
      expect((error as Error).message).not.toContain('(wrangler secret put')
    }
  })

  it("signs a CDN with the signer given for it, made once from that CDN's validated configuration", async () => {
    const made: CdnSigningConfig[] = []
    // another URL format: the token in the query, signed with WebCrypto (a promise)
    const querySigner = (cdn: CdnSigningConfig): CdnSigner => {
      made.push(cdn)
      const key = crypto.subtle.importKey(
        'raw',
        new TextEncoder().encode(cdn.secretKey),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      )
      const hmac = async (text: string) =>
        btoa(
          String.fromCharCode(
            ...new Uint8Array(
              await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(text)),
            ),
          ),
        ).replace(/[+/=]/g, '')
      return {
        async sign({ video, expires, clientIp }) {
          const tokenPlain = await hmac(`${video}:${expires}:`)
          const tokenIp = await hmac(`${video}:${expires}:${clientIp}`)
          const at = (host: string, signed: string) =>
            `${cdn.scheme}://${host}/hls/${video}.m3u8?exp=${expires}&sig=${signed}`
          return {
            token: tokenPlain,
            token_ip: tokenIp,
            url: at(cdn.cdnDomain, tokenPlain),
            url_ip: at(cdn.cdnDomainIp, tokenIp),
          }
        },
      }
    }
    const custom = createTokenApp({
      config: {
        ...input,
        cdns: [{ ...b, scheme: 'http', priority: 5, signer: querySigner }],
      },
      now: () => NOW_MS,
      audit: () => undefined,
    })
    for (let i = 0; i < 2; i++) {
      const res = await custom.request(QUERY, { headers: IP })
      expect(res.status).toBe(200)
      const record = await res.json<TokenRecord>()
      expect(record.url).toMatch(/^https:\/\/cdn\.test\/videos\/12345_demo\//)
      expect(verdict(record.url, SECRET_A, '')).toBe(200)
      const other = record.cdns?.[1]
      expect(other).toMatchObject({ id: 'b', priority: 5, expires: NOW_S + 600 })
      expect(other?.url).toBe(
        `http://cdn-b.test/hls/demo.m3u8?exp=${NOW_S + 600}&sig=${other?.token}`,
      )
      expect(other?.url_ip).toContain('http://cdn-b-ip.test/')
      expect(other?.token).not.toBe(other?.token_ip)
    }
    expect(made).toEqual([
      {
        id: 'b',
        priority: 5,
        clientId: '12345',
        secretKey: SECRET_B,
        cdnDomain: 'cdn-b.test',
        cdnDomainIp: 'cdn-b-ip.test',
        scheme: 'http',
      },
    ])
  })

  it('signs the primary with its own signer too, the record keeping its six fields', async () => {
    const fixed: CdnSigner = {
      sign: ({ video, expires, clientIp }) => ({
        token: 't',
        token_ip: 'ti',
        url: `https://cdn.test/own/${video}/${expires}`,
        url_ip: `https://cdn-ip.test/own/${video}/${expires}/${clientIp}`,
      }),
    }
    const custom = createTokenApp({
      config: { signing, auth: { mode: 'none' }, primaryCdn: { signer: () => fixed } },
      now: () => NOW_MS,
      audit: () => undefined,
    })
    const res = await custom.request(QUERY, { headers: IP })
    expect(await res.json()).toEqual({
      token: 't',
      token_ip: 'ti',
      client_ip: '203.0.113.7',
      expires: NOW_S + 600,
      url: `https://cdn.test/own/demo/${NOW_S + 600}`,
      url_ip: `https://cdn-ip.test/own/demo/${NOW_S + 600}/203.0.113.7`,
    })
  })
})
