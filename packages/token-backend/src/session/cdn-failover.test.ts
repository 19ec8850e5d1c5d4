import { findTokenPair, verifyToken } from '@proj/signing'
import { describe, expect, it, vi } from 'vitest'
import { NOW_MS, NOW_S, testEnv } from '../../test/helpers.ts'
import { playlistText } from '../../test/playlist-text.ts'
import { createTokenApp } from '../app.ts'
import { CDN_HEALTH_DEFAULTS, type CdnHealthEntry } from './cdn-health.ts'
import { memoryPlaylists } from './playlist-cache.ts'

const ADMIN = 'test-admin-token-of-32-characters-ok'
const SECRETS: Record<string, string> = { 'cdn.test': 'test-secret', 'cdn-b.test': 'cdn-b-secret' }
const TWO_CDNS = {
  CDNS: 'b',
  CDN_B_DOMAIN: 'cdn-b.test',
  CDN_B_DOMAIN_IP: 'cdn-b-ip.test',
  SECRET_KEY_B: 'cdn-b-secret',
  SESSION_ADMIN_TOKEN: ADMIN,
}
const PLAYLIST = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg_0.ts\n#EXT-X-ENDLIST\n'
const MPD =
  '<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT2S"><Period><AdaptationSet><Representation id="0" bandwidth="1"><SegmentTemplate media="dash/c-$Number$.m4s" duration="2" startNumber="0"/></Representation></AdaptationSet></Period></MPD>\n'
/** `html`: a 200 whose body is an error page, not the document asked for; `doctype`: an MPD the rewriter refuses. */
type Fault = 'none' | '403' | '503' | 'hang' | 'html' | 'doctype'

/**
 * Two CDNs, each checking tokens with its own secret only, each with a fault the test switches.
 * Every request is logged with the CDN's verdict on its token.
 */
const twoCdns = () => {
  const faults: Record<string, Fault> = { 'cdn.test': 'none', 'cdn-b.test': 'none' }
  const log: { host: string; method: string; path: string; verdict: number }[] = []
  const fetcher: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const secret = SECRETS[url.host]
    if (secret === undefined) throw new TypeError(`no CDN at ${url.host}`)
    const pair = findTokenPair(url.href)
    const verdict = pair
      ? verifyToken({
          clientVideo: url.pathname.split('/')[2] ?? '',
          token: pair.token,
          expires: String(pair.expires),
          secret,
          ip: '',
          nowSeconds: NOW_S,
        })
      : 403
    log.push({ host: url.host, method: init?.method ?? 'GET', path: url.pathname, verdict })
    const fault = faults[url.host]
    if (fault === 'hang')
      return new Promise((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      )
    if (fault === '403' || fault === '503') return new Response('', { status: Number(fault) })
    if (verdict !== 200) return new Response('', { status: verdict })
    if (fault === 'html') return new Response('<html><body>busy</body></html>')
    if (url.pathname.endsWith('.mpd'))
      return new Response(fault === 'doctype' ? `<!DOCTYPE MPD [<!ENTITY x "y">]>${MPD}` : MPD)
    return new Response(url.pathname.endsWith('.m3u8') ? PLAYLIST : 'media')
  }
  return { faults, log, fetcher }
}

const setup = (env = testEnv(TWO_CDNS)) => {
  let clock = NOW_MS
  const cdn = twoCdns()
  const app = createTokenApp({
    now: () => clock,
    audit: () => undefined,
    fetcher: cdn.fetcher,
    // each test its own playlists (the Cache API is shared by the isolate)
    playlists: memoryPlaylists(),
    cdnHealth: { timeoutMs: 100 },
  })
  const request = (path: string, init: RequestInit = {}) =>
    app.request(`https://tokens.test${path}`, init, env)
  const admin = (path: string, body?: unknown, token = ADMIN) =>
    request(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
  const session = async () => {
    const res = await request('/session?video=demo&type=vod', {
      headers: { 'x-real-ip': '203.0.113.7' },
    })
    expect(res.status).toBe(200)
    const { session_url } = await res.json<{ session_url: string }>()
    return new URL(session_url).pathname.replace(/master\.m3u8$/, '')
  }
  /** The CDN host a leaf is sent to. */
  const leafHost = async (path: string) => {
    const res = await request(`${path}v0/seg_0.ts`)
    expect(res.status).toBe(302)
    return new URL(res.headers.get('location') ?? '').host
  }
  const serving = async () => (await (await admin('/cdns')).json<{ serving: string }>()).serving
  return {
    ...cdn,
    request,
    admin,
    session,
    leafHost,
    serving,
    advance: (ms: number) => {
      clock += ms
    },
  }
}

/** Every request a CDN received carried a token signed with that CDN's own secret. */
const ownTokensOnly = (log: ReturnType<typeof twoCdns>['log']) =>
  expect(log.filter((entry) => entry.verdict !== 200)).toEqual([])

describe('sessions with several CDNs', () => {
  for (const fault of ['403', '503', 'hang'] as const)
    it(`moves a session to the next CDN when the serving one fails (${fault}), and back after its cooldown`, async () => {
      const { faults, log, session, leafHost, serving, advance, admin } = setup()
      const path = await session()
      expect(await leafHost(path)).toBe('cdn.test')
      faults['cdn.test'] = fault
      advance(CDN_HEALTH_DEFAULTS.probeIntervalMs)
      // the leaf that finds A failing (its probe is waited for) already goes to B
      expect(await leafHost(path)).toBe('cdn-b.test')
      expect(await serving()).toBe('b')
      // the operator's view says why, in the words the player core uses, and the status
      const view = await (await admin('/cdns')).json<{ cdns: CdnHealthEntry[] }>()
      expect(view.cdns[0]).toEqual({
        id: 'primary',
        state: 'failed',
        ...{
          '403': { failure: 'refused', status: 403 },
          '503': { failure: 'server-error', status: 503 },
          hang: { failure: 'timeout' },
        }[fault],
        failed_at: expect.any(Number),
      })
      // A keeps failing: probes while sessions play do not bring it back
      const probesOfA = () => log.filter((entry) => entry.host === 'cdn.test').length
      for (let second = 0; second < 15; second++) {
        advance(1000)
        const before = probesOfA()
        expect(await leafHost(path)).toBe('cdn-b.test')
        await vi.waitFor(() => expect(probesOfA()).toBe(before + 1))
        // a hung probe ends by its timeout
        if (fault === 'hang') await new Promise((resolve) => setTimeout(resolve, 150))
      }
      faults['cdn.test'] = 'none'
      const hosts: string[] = []
      for (let second = 0; second < 15; second++) {
        advance(1000)
        hosts.push(await leafHost(path))
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      // back on A after the cooldown and two good probes, and it stays there: two switches
      const switches = hosts.filter((host, index) => index > 0 && host !== hosts[index - 1])
      expect(switches, hosts.join(' ')).toEqual(['cdn.test'])
      expect(hosts.at(-1)).toBe('cdn.test')
      if (fault !== '403') ownTokensOnly(log)
      else ownTokensOnly(log.filter((entry) => entry.host === 'cdn-b.test'))
    })

  it('holds every leaf that comes while the serving CDN is being probed, and sends none to it when it hangs', async () => {
    const { faults, session, leafHost, advance } = setup()
    const path = await session()
    expect(await leafHost(path)).toBe('cdn.test')
    faults['cdn.test'] = 'hang'
    advance(CDN_HEALTH_DEFAULTS.probeIntervalMs)
    // the first leaf starts the probe; the others come while it runs
    const hosts = await Promise.all([leafHost(path), leafHost(path), leafHost(path)])
    expect(hosts).toEqual(['cdn-b.test', 'cdn-b.test', 'cdn-b.test'])
  })

  it('holds a session that runs through failed segments (ffmpeg on DASH) for a fresh probe: one segment lost, not the rest', async () => {
    const { faults, request, session, leafHost, advance } = setup()
    const path = await session()
    const hostOf = async (file: string) => {
      const res = await request(`${path}${file}`)
      expect(res.status).toBe(302)
      return new URL(res.headers.get('location') ?? '').host
    }
    expect(await leafHost(path)).toBe('cdn.test')
    // A fails between two probes: the next segment goes there blind, as before
    faults['cdn.test'] = '503'
    advance(300)
    const hosts = [
      await hostOf('dash/chunk-0-011.m4s'),
      // another track at once is no burst (audio beside video): blind too
      await hostOf('dash/chunk-2-011.m4s'),
      // the same track's next segment at once: faster than it plays, so the serving CDN is
      // probed first, the failure found, and this segment and the rest go to B
      await hostOf('dash/chunk-0-012.m4s'),
      await hostOf('dash/chunk-0-013.m4s'),
    ]
    expect(hosts).toEqual(['cdn.test', 'cdn.test', 'cdn-b.test', 'cdn-b.test'])
  })

  it('answers a playlist from the next CDN when the serving one fails to give it, at once', async () => {
    const { faults, log, request, session, serving } = setup()
    const path = await session()
    faults['cdn.test'] = '403'
    const res = await request(`${path}v0/index.m3u8`)
    expect(res.status).toBe(200)
    expect(await playlistText(res)).toContain('seg_0.ts')
    expect(log.map((entry) => entry.host)).toEqual(['cdn.test', 'cdn-b.test'])
    expect(await serving()).toBe('b')
  })

  for (const fault of ['503', 'hang', 'html'] as const)
    it(`answers a DASH MPD from the next CDN when the serving one fails it (${fault}), in the same request`, async () => {
      const { faults, log, request, session, serving } = setup()
      const path = await session()
      faults['cdn.test'] = fault
      const res = await request(`${path}manifest.mpd`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/dash+xml')
      expect(await playlistText(res)).toContain('media="dash/c-$Number$.m4s"')
      expect(log.map((entry) => entry.host)).toEqual(['cdn.test', 'cdn-b.test'])
      expect(await serving()).toBe('b')
      ownTokensOnly(log)
    })

  it('refuses an MPD the rewriter cannot serve (502) without blaming the CDN that answered it', async () => {
    const { faults, request, session, serving, admin } = setup()
    const path = await session()
    faults['cdn.test'] = 'doctype'
    const res = await request(`${path}manifest.mpd`)
    expect(res.status).toBe(502)
    expect((await res.json<{ error: string }>()).error).toMatch(/^the CDN's MPD cannot be served: /)
    expect(await serving()).toBe('primary')
    const view = await (await admin('/cdns')).json<{ cdns: CdnHealthEntry[] }>()
    expect(view.cdns[0]?.state).toBe('healthy')
  })

  it('answers the last CDN failure when every CDN fails a playlist', async () => {
    const { faults, request, session } = setup()
    const path = await session()
    faults['cdn.test'] = 'hang'
    faults['cdn-b.test'] = '503'
    const res = await request(`${path}v0/index.m3u8`)
    expect(res.status).toBe(502)
    expect(await res.json()).toEqual({ error: 'the CDN answered 503 for the playlist' })
  })

  it('drains and undrains a CDN on the operator’s word, with the admin token only', async () => {
    const { admin, session, leafHost } = setup()
    const path = await session()
    expect((await admin('/cdns', undefined, 'wrong-token')).status).toBe(401)
    const drained = await admin('/cdns/drain', { cdn: 'primary' })
    expect(drained.status).toBe(200)
    expect(await drained.json()).toEqual({
      serving: 'b',
      cdns: [
        { id: 'primary', state: 'drained' },
        { id: 'b', state: 'healthy' },
      ],
    })
    expect(await leafHost(path)).toBe('cdn-b.test')
    expect((await admin('/cdns/undrain', { cdn: 'primary' })).status).toBe(200)
    expect(await leafHost(path)).toBe('cdn.test')
    const unknown = await admin('/cdns/drain', { cdn: 'nope' })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ error: 'no CDN nope: the CDNs are primary, b' })
    const bad = await admin('/cdns/drain', { id: 'primary' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ error: 'body must be {"cdn": "<id>"}' })
  })

  it('says there is nothing to switch with one CDN, and is off without an admin token', async () => {
    const single = setup(testEnv({ SESSION_ADMIN_TOKEN: ADMIN }))
    const res = await single.admin('/cdns/drain', { cdn: 'primary' })
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({
      error: 'one CDN is configured: there is nothing to switch to (set CDNS to add one)',
    })
    const off = setup(testEnv({ ...TWO_CDNS, SESSION_ADMIN_TOKEN: undefined }))
    const offRes = await off.admin('/cdns')
    expect(offRes.status).toBe(501)
    expect(await offRes.json()).toEqual({
      error: 'the CDN switch is off: set SESSION_ADMIN_TOKEN to turn it on',
    })
  })
})
