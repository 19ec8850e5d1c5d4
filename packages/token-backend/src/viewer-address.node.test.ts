import type { Server } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { closeAddresses, fetchFrom } from '../test/from-address.ts'
import type { TokenConfigInput } from './config.ts'
import { type ServeTokenAppOptions, serveTokenApp } from './node.ts'

// The viewer's address on Node, through real sockets from several loopback addresses (all of
// 127.0.0.0/8 is this machine's): what a caller writes in headers must change nothing unless the
// operator trusts a proxy (TRUSTED_PROXIES) or names headers (IP_HEADERS).
afterAll(closeAddresses)

const signing = {
  clientId: '777',
  secretKey: 'viewer-address-secret',
  cdnDomain: 'cdn.viewer.test',
  cdnDomainIp: 'cdn-ip.viewer.test',
}
const base: TokenConfigInput = { signing, auth: { mode: 'none' } }
const FORGED = [
  { 'x-real-ip': '198.51.100.1' },
  { 'x-forwarded-for': '198.51.100.2' },
  { 'x-forwarded-for': '198.51.100.3, 127.0.0.31' },
  { 'x-real-ip': '198.51.100.4', 'x-forwarded-for': '198.51.100.5' },
  { 'cf-connecting-ip': '198.51.100.6' },
  { forwarded: 'for=198.51.100.7' },
]

async function serve(options: ServeTokenAppOptions) {
  const logged: string[] = []
  let server: Server | undefined
  const url = await new Promise<string>((resolve, reject) => {
    server = serveTokenApp(
      {
        port: 0,
        signals: false,
        audit: () => undefined,
        log: (line) => logged.push(line),
        ...options,
      },
      (info) => resolve(info.url),
    ) as Server
    server.once('error', reject)
  })
  const stop = () =>
    new Promise((resolve) => {
      server?.closeAllConnections()
      server?.close(resolve)
    })
  return { url, logged, stop }
}

describe('the viewer address on Node, by default: the socket’s peer', () => {
  it('forged headers from one socket: one viewer for the rate limit (RATE_LIMIT_REQUESTS=2)', async () => {
    const { url, stop } = await serve({ config: { ...base, rateLimit: { requests: 2 } } })
    try {
      const statuses = []
      for (const headers of FORGED)
        statuses.push((await fetchFrom('127.0.0.31', `${url}token?video=demo`, { headers })).status)
      expect(statuses).toEqual([200, 200, 429, 429, 429, 429])
      // another socket address is another viewer
      expect((await fetchFrom('127.0.0.32', `${url}token?video=demo`)).status).toBe(200)
    } finally {
      await stop()
    }
  })

  it('the IP-bound token is signed for the socket’s address, whatever the headers say', async () => {
    const { url, stop } = await serve({ config: base })
    try {
      for (const headers of FORGED) {
        const res = await fetchFrom('127.0.0.33', `${url}token?video=demo`, { headers })
        const record = (await res.json()) as { client_ip: string; url_ip: string }
        expect(record.client_ip).toBe('127.0.0.33')
      }
    } finally {
      await stop()
    }
  })

  it('a leaked session’s network binding holds: its net copied into X-Forwarded-For from a third network is refused', async () => {
    const config: TokenConfigInput = {
      ...base,
      session: { secret: 'viewer-address-session-secret-32ch', maxNetworks: 2, binding: 'prefix' },
    }
    const { url, stop } = await serve({ config })
    try {
      const issued = await fetchFrom('127.0.0.34', `${url}session?video=demo&type=vod`)
      const { session_url: sessionUrl } = (await issued.json()) as { session_url: string }
      const claims = JSON.parse(
        Buffer.from(sessionUrl.split('/')[5]?.split('.')[1] ?? '', 'base64url').toString(),
      ) as { net: string }
      expect(claims.net).toBe('127.0.0.0/24')
      const leaf = sessionUrl.replace(/master\.m3u8$/, 'v0/seg_001.ts')
      const from = (address: string, headers: Record<string, string> = {}) =>
        fetchFrom(address, leaf, { redirect: 'manual', headers })
      // the second network is admitted (maxNetworks 2), a third one refused, forged or not
      expect((await from('127.1.0.5')).status).toBe(302)
      const forged = { 'x-forwarded-for': '127.0.0.34', 'x-real-ip': '127.0.0.34' }
      const third = await from('127.2.0.5', forged)
      expect(third.status).toBe(403)
      expect(await third.json()).toEqual({ error: 'session is already used from 2 networks' })
      expect((await from('127.0.0.99')).status).toBe(302)
    } finally {
      await stop()
    }
  })
})

describe('behind proxies named in TRUSTED_PROXIES', () => {
  const config: TokenConfigInput = {
    ...base,
    trustedProxies: ['127.0.0.40/30'],
    rateLimit: { requests: 1 },
  }

  it('from a trusted proxy: the right-most X-Forwarded-For entry that is not a proxy', async () => {
    const { url, stop } = await serve({ config })
    try {
      const viaProxy = (forwardedFor: string) =>
        fetchFrom('127.0.0.41', `${url}token?video=demo`, {
          headers: { 'x-forwarded-for': forwardedFor },
        })
      const record = async (res: Response) =>
        ((await res.json()) as { client_ip: string }).client_ip
      // what the viewer wrote stays left of what the proxy appended
      expect(await record(await viaProxy('6.6.6.6, 198.51.100.20'))).toBe('198.51.100.20')
      expect(await record(await viaProxy('198.51.100.21, 127.0.0.42'))).toBe('198.51.100.21')
      // one viewer each for the rate limit: the next token of 198.51.100.20 is over the limit
      expect((await viaProxy('7.7.7.7, 198.51.100.20')).status).toBe(429)
    } finally {
      await stop()
    }
  })

  it('from anyone else: the socket’s peer, its header ignored', async () => {
    const { url, stop } = await serve({ config })
    try {
      const res = await fetchFrom('127.0.0.50', `${url}token?video=demo`, {
        headers: { 'x-forwarded-for': '198.51.100.22' },
      })
      expect(await res.json()).toMatchObject({ client_ip: '127.0.0.50' })
    } finally {
      await stop()
    }
  })
})

describe('trusting headers from anyone', () => {
  it('IP_HEADERS, the spec’s header order, is an explicit choice', async () => {
    const { url, stop } = await serve({
      config: { ...base, ipHeaders: ['x-real-ip', 'x-forwarded-for'] },
    })
    try {
      const res = await fetchFrom('127.0.0.60', `${url}token?video=demo`, {
        headers: { 'x-forwarded-for': '198.51.100.30, 10.0.0.1' },
      })
      expect(await res.json()).toMatchObject({ client_ip: '198.51.100.30' })
    } finally {
      await stop()
    }
  })

  it('listening beyond loopback while trusting headers is warned about at start', async () => {
    const open = await serve({ config: { ...base, ipHeaders: ['x-real-ip'] }, hostname: '0.0.0.0' })
    const proxies = await serve({
      config: { ...base, trustedProxies: ['0.0.0.0/0'] },
      hostname: '0.0.0.0',
    })
    const local = await serve({ config: { ...base, ipHeaders: ['x-real-ip'] } })
    const safe = await serve({
      config: { ...base, trustedProxies: ['10.0.0.0/8'] },
      hostname: '0.0.0.0',
    })
    try {
      expect(open.logged.join('\n')).toContain(
        'listening on 0.0.0.0 while trusting x-real-ip (IP_HEADERS) from anyone',
      )
      expect(proxies.logged.join('\n')).toContain('TRUSTED_PROXIES has a /0')
      expect(local.logged).toEqual([])
      expect(safe.logged).toEqual([])
    } finally {
      await Promise.all([open.stop(), proxies.stop(), local.stop(), safe.stop()])
    }
  })
})
