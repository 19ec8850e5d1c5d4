import fc from 'fast-check'
import { sign } from 'hono/jwt'
import { describe, expect, it, vi } from 'vitest'
import { independentToken, NOW_MS, NOW_S, testEnv } from '../../test/helpers.ts'
import { playlistText } from '../../test/playlist-text.ts'
import { createTokenApp } from '../app.ts'
import { allow } from '../authorize.ts'
import { memorySessionStore } from './session-store.ts'

const SESSION_SECRET = 'test-session-secret-of-32-characters!'
const ADMIN = 'test-admin-token-of-32-characters-ok'

/** An app on a clock the test moves; its audit lines collected. */
const setup = (options: Parameters<typeof createTokenApp>[0] = {}, env = testEnv()) => {
  let clock = NOW_MS
  const lines: Record<string, unknown>[] = []
  const app = createTokenApp({
    now: () => clock,
    audit: (line) => lines.push(JSON.parse(line)),
    ...options,
  })
  const request = (path: string, init: RequestInit = {}) =>
    app.request(path.startsWith('http') ? path : `https://tokens.test${path}`, init, env)
  const from = (ip: string) => ({ headers: { 'x-real-ip': ip } })
  const issue = async (query = '?video=demo&type=vod', ip = '203.0.113.7') => {
    const res = await request(`/session${query}`, from(ip))
    expect(res.status).toBe(200)
    const body = await res.json<{ session_url: string; expires: number }>()
    return { ...body, path: new URL(body.session_url).pathname.replace(/master\.m3u8$/, '') }
  }
  return {
    app,
    lines,
    request,
    from,
    issue,
    advance: (ms: number) => {
      clock += ms
    },
  }
}

/** Follows a leaf's redirect to the CDN (the real token-checking emulator in vitest.config.ts). */
const viaCdn = (location: string) => fetch(location)

describe('GET /session', () => {
  it('answers {session_url, expires}: a session URL on this worker, six hours by default', async () => {
    const { request, from, lines } = setup()
    const res = await request('/session?video=demo&type=vod', from('203.0.113.7'))
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = await res.json<Record<string, unknown>>()
    expect(Object.keys(body)).toEqual(['session_url', 'expires'])
    expect(body.expires).toBe(NOW_S + 6 * 3600)
    expect(body.session_url).toMatch(
      /^https:\/\/tokens\.test\/s\/demo\/[\w-]+\.[\w-]+\.[\w-]+\/master\.m3u8$/,
    )
    // one audit line, which names the session but never carries the credential
    expect(lines).toEqual([
      expect.objectContaining({
        event: 'session_issued',
        video: 'demo',
        type: 'vod',
        binding: 'prefix',
        network: '203.0.113.0/24',
        client_ip: '203.0.113.7',
        expires: NOW_S + 6 * 3600,
      }),
    ])
    const credential = String(body.session_url).split('/')[5] ?? ''
    expect(JSON.stringify(lines)).not.toContain(credential.split('.')[2])
  })

  it('validates and authorises exactly like /token', async () => {
    const { request } = setup({
      authorize: () => ({ allow: false, status: 403, reason: 'members only' }),
    })
    expect(await (await request('/session')).json()).toEqual({ error: 'video is required' })
    expect((await request('/session?video=../x')).status).toBe(400)
    const denied = await request('/session?video=demo')
    expect(denied.status).toBe(403)
    expect(await denied.json()).toEqual({ error: 'members only' })
  })

  it('counts against the per-viewer rate limit of /token', async () => {
    const { request, from } = setup({}, testEnv({ RATE_LIMIT_REQUESTS: '2' }))
    expect((await request('/token?video=demo', from('198.51.100.4'))).status).toBe(200)
    expect((await request('/session?video=demo', from('198.51.100.4'))).status).toBe(200)
    const limited = await request('/session?video=demo', from('198.51.100.4'))
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
  })

  it('takes a shorter lifetime in expire, never a longer one than SESSION_LIFETIME', async () => {
    const { issue } = setup({}, testEnv({ SESSION_LIFETIME: '7200' }))
    expect((await issue('?video=demo&expire=600')).expires).toBe(NOW_S + 600)
    expect((await issue('?video=demo&expire=99999')).expires).toBe(NOW_S + 7200)
    expect((await issue(`?video=demo&expire=${NOW_S + 900}`)).expires).toBe(NOW_S + 900)
    // no usable expire (unparsable, ≤ 0): the session default, as /token falls back to its own
    for (const expire of ['-5', '0', '60s'])
      expect((await issue(`?video=demo&expire=${expire}`)).expires).toBe(NOW_S + 7200)
  })

  it('audits a refused issuance once per caller and reason', async () => {
    const { request, from, lines } = setup({
      authorize: () => ({ allow: false, status: 401, reason: 'sign in first' }),
    })
    for (let i = 0; i < 3; i++)
      expect((await request('/session?video=demo', from('198.51.100.7'))).status).toBe(401)
    expect(lines).toEqual([
      expect.objectContaining({
        event: 'session_refused',
        reason: 'not_authorized',
        video: 'demo',
        client_ip: '198.51.100.7',
      }),
    ])
  })

  it('is 501 with what to set when sessions are off', async () => {
    const { request } = setup({}, testEnv({ SESSION_SECRET: undefined }))
    const res = await request('/session?video=demo')
    expect(res.status).toBe(501)
    expect(await res.json()).toEqual({
      error: 'sessions are off: set SESSION_SECRET to turn them on',
    })
  })

  it('names SESSION_SECRET when it is weak or is the CDN secret', async () => {
    for (const secret of ['short', 'test-secret']) {
      const { request } = setup(
        {},
        testEnv({
          SESSION_SECRET: secret === 'short' ? secret : 'test-secret',
          SECRET_KEY: 'test-secret',
        }),
      )
      const body = await (await request('/session?video=demo')).json<{ error: string }>()
      expect(body.error).toMatch(/SESSION_SECRET (must|is)/)
      expect(body.error).not.toContain(secret === 'short' ? 'short' : 'test-secret"')
    }
  })
})

describe('/s/{video}/{session}/…', () => {
  it('serves the master and media playlists from the CDN, rewritten under the session', async () => {
    const { request, issue } = setup()
    const { path } = await issue()
    const master = await request(`${path}master.m3u8`)
    expect(master.status).toBe(200)
    expect(master.headers.get('content-type')).toBe('application/vnd.apple.mpegurl')
    expect(master.headers.get('access-control-allow-origin')).toBe('*')
    const text = await playlistText(master)
    expect(text).toMatch(/^#EXTM3U\n/)
    expect(text).toContain('\nv0/index.m3u8\n')
    expect(text).toContain('\nv1/index.m3u8\n')
    const media = await playlistText(await request(`${path}v1/index.m3u8`))
    expect(media).toContain('URI="key.bin"')
    expect(media).toContain('\nseg_039.ts\n')
    expect(media).not.toMatch(/videos|12345|Gone/)
  })

  it('redirects each segment and key to a CDN URL signed now for 30 s, which the CDN serves', async () => {
    const { request, issue, advance } = setup()
    const { path } = await issue()
    const expiries = new Set<string>()
    for (const file of ['v1/seg_000.ts', 'v1/key.bin', 'v0/seg_017.ts']) {
      const res = await request(`${path}${file}`)
      expect(res.status).toBe(302)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      const location = res.headers.get('location') ?? ''
      const url = new URL(location)
      const [, token, expires] =
        /^\/videos\/12345_demo\/([^/]+)\/(\d+)\/(.+)$/.exec(url.pathname) ?? []
      expect(url.origin).toBe('https://cdn.test')
      expect(url.pathname.endsWith(`/${file}`)).toBe(true)
      expect(Number(expires)).toBe(Math.floor((NOW_MS + expiries.size * 7000) / 1000) + 30)
      expect(token).toBe(await independentToken(`12345_demo_test-secret_${expires}_`))
      expect((await viaCdn(location)).status).toBe(200)
      expiries.add(String(expires))
      advance(7000)
    }
    expect(expiries.size).toBe(3)
  })

  it('never hands out a CDN URL that outlives the session', async () => {
    const { request, issue, advance } = setup()
    const { path, expires } = await issue('?video=demo&type=vod&expire=60')
    advance(50_000) // 10 s of the session left, the leaf lifetime is 30
    const location = (await request(`${path}v0/seg_000.ts`)).headers.get('location') ?? ''
    expect(Number(/\/(\d+)\/v0\/seg_000\.ts$/.exec(location)?.[1])).toBe(expires)
  })

  it('plays live from /cmaf/ the same way', async () => {
    const { request, issue } = setup()
    const { path } = await issue('?video=demo&type=live')
    const media = await playlistText(await request(`${path}v0/index.m3u8`))
    const segment = media.split('\n').find((line) => line.endsWith('.ts')) ?? ''
    expect(segment).toMatch(/^live_\d+\.ts$/)
    const res = await request(`${path}v0/${segment}`)
    expect(new URL(res.headers.get('location') ?? '').pathname).toMatch(/^\/cmaf\/12345_demo\//)
    expect((await viaCdn(res.headers.get('location') ?? '')).status).toBe(200)
  })

  it('refuses expired (410), tampered, foreign-video, foreign-account and unsigned sessions (403)', async () => {
    const { request, issue, advance, lines } = setup()
    const { path } = await issue()
    const [, , video, credential] = path.split('/')
    const [header, payload, signature] = (credential ?? '').split('.')
    const claims = JSON.parse(atob((payload ?? '').replace(/-/g, '+').replace(/_/g, '/')))
    const forged = await sign({ ...claims, video: 'other' }, 'not-the-session-secret')
    const otherAccount = await sign({ ...claims, cid: '999' }, SESSION_SECRET)
    const none = `${btoa('{"alg":"none","typ":"JWT"}').replace(/=+$/, '')}.${payload}.`
    const cases: [string, number, string][] = [
      [
        // two characters of the signature changed (never to what they were)
        `/s/${video}/${header}.${payload}.${signature?.slice(0, -2)}${signature?.endsWith('AA') ? 'BB' : 'AA'}/master.m3u8`,
        403,
        'session is not valid',
      ],
      [`/s/other/${credential}/master.m3u8`, 403, 'session is for another video'],
      [`/s/other/${forged}/master.m3u8`, 403, 'session is not valid'],
      [`/s/${video}/${otherAccount}/master.m3u8`, 403, 'session is for another account'],
      [`/s/${video}/${none}/master.m3u8`, 403, 'session is not valid'],
    ]
    for (const [url, status, error] of cases) {
      const res = await request(url)
      expect(res.status, url).toBe(status)
      expect(await res.json()).toEqual({ error })
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
    }
    advance(6 * 3600 * 1000)
    const expired = await request(`${path}v0/seg_000.ts`)
    expect(expired.status).toBe(410)
    expect(await expired.json()).toEqual({ error: 'session expired' })
    expect(
      lines.filter((line) => line.event === 'session_refused').map((line) => line.reason),
    ).toEqual(['invalid', 'foreign_video', 'foreign_account', 'expired'])
  })

  it('binds to the /24: a second network is admitted, a third refused, once each in the audit log', async () => {
    const { request, issue, from, lines } = setup()
    const { path } = await issue('?video=demo&type=vod', '203.0.113.7')
    const leaf = (ip: string) => request(`${path}v0/seg_000.ts`, from(ip))
    expect((await leaf('203.0.113.200')).status).toBe(302) // same /24
    expect((await leaf('198.51.100.9')).status).toBe(302) // the second network
    expect((await leaf('198.51.100.10')).status).toBe(302)
    const third = await leaf('192.0.2.1')
    expect(third.status).toBe(403)
    expect(await third.json()).toEqual({ error: 'session is already used from 2 networks' })
    expect((await leaf('192.0.2.1')).status).toBe(403)
    expect((await leaf('198.51.100.9')).status).toBe(302)
    expect(lines.filter((line) => line.event === 'session_refused')).toEqual([
      expect.objectContaining({ reason: 'network', client_ip: '192.0.2.1' }),
    ])
  })

  it('binds to the exact address with SESSION_BINDING=ip, and not at all with none', async () => {
    const exact = setup({}, testEnv({ SESSION_BINDING: 'ip', SESSION_MAX_NETWORKS: '1' }))
    const bound = await exact.issue('?video=demo&type=vod', '2001:db8:1:2::7')
    expect(
      (await exact.request(`${bound.path}v0/seg_000.ts`, exact.from('2001:DB8:1:2:0::7'))).status,
    ).toBe(302)
    expect(
      (await exact.request(`${bound.path}v0/seg_000.ts`, exact.from('2001:db8:1:2::8'))).status,
    ).toBe(403)
    const open = setup({}, testEnv({ SESSION_BINDING: 'none' }))
    const free = await open.issue()
    for (const ip of ['192.0.2.1', '198.51.100.1', '2001:db8::1'])
      expect((await open.request(`${free.path}v0/seg_000.ts`, open.from(ip))).status).toBe(302)
  })

  it.each([
    ['in memory', () => memorySessionStore()],
    ['in the SessionRegistry Durable Object', () => undefined],
  ])('revokes one session, and every session of a viewer, %s', async (_, store) => {
    let sub = 'viewer-1'
    const sessions = store()
    const { request, issue, advance } = setup({
      ...(sessions && { sessions }),
      authorize: (c) => {
        c.set('jwtPayload', { sub })
        return allow
      },
    })
    const one = await issue()
    const two = await issue()
    sub = 'viewer-2'
    const other = await issue()
    const revoke = (body: unknown, token = ADMIN) =>
      request('/sessions/revoke', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const leaf = (session: { path: string }) => request(`${session.path}v0/seg_001.ts`)
    const sid = (session: { session_url: string }) =>
      JSON.parse(
        atob(
          (session.session_url.split('/')[5] ?? '')
            .split('.')[1]
            ?.replace(/-/g, '+')
            .replace(/_/g, '/') ?? '',
        ),
      ).sid

    expect(
      (await revoke({ session_id: sid(one) }, 'wrong-token-of-32-characters-long!!')).status,
    ).toBe(401)
    expect((await revoke({ nothing: 1 })).status).toBe(400)
    const revoked = await revoke({ session_id: sid(one) })
    expect(revoked.status).toBe(200)
    expect(await revoked.json()).toEqual({
      revoked: { session_id: sid(one) },
      effective_within_seconds: 31,
    })
    expect((await leaf(one)).status).toBe(403)
    expect((await leaf(two)).status).toBe(302)
    advance(2000)
    // issued in the second of the viewer's revocation, before it and after it: told apart
    sub = 'viewer-1'
    const before = await issue()
    advance(400)
    expect((await revoke({ sub: 'viewer-1' })).status).toBe(200)
    advance(10)
    const after = await issue()
    advance(2000)
    expect(await (await leaf(two)).json()).toEqual({ error: 'session revoked' })
    expect(await (await leaf(before)).json()).toEqual({ error: 'session revoked' })
    expect((await leaf(other)).status).toBe(302)
    // a session issued after the viewer's revocation plays, in the same second too
    expect((await leaf(after)).status).toBe(302)
    advance(1000)
    expect((await leaf(await issue())).status).toBe(302)
  })

  it('keeps a revocation as long as any session may live, SESSION_LIFETIME lowered since', async () => {
    // a store (Redis, the Durable Object) forgets a revocation at the time it is given: a
    // session issued for 6 h before SESSION_LIFETIME was lowered to 1 h must stay revoked 6 h
    const sessions = memorySessionStore()
    const kept: number[] = []
    const store = {
      ...sessions,
      revokeSession: (sid: string, until: number) => {
        kept.push(until)
        return sessions.revokeSession(sid, until)
      },
      revokeViewer: (sub: string, at: number, until: number) => {
        kept.push(until)
        return sessions.revokeViewer(sub, at, until)
      },
    }
    const { request } = setup({ sessions: store }, testEnv({ SESSION_LIFETIME: '3600' }))
    for (const body of [{ session_id: 'any-session' }, { sub: 'any-viewer' }]) {
      const revoked = await request('/sessions/revoke', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(revoked.status).toBe(200)
    }
    expect(kept).toEqual([NOW_S + 24 * 3600, NOW_S + 24 * 3600])
  })

  it('protects revocation: 401 without the admin token, 501 when none is configured', async () => {
    const { request } = setup()
    const res = await request('/sessions/revoke', { method: 'POST', body: '{"sub":"x"}' })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
    const off = setup({}, testEnv({ SESSION_ADMIN_TOKEN: undefined }))
    expect((await off.request('/sessions/revoke', { method: 'POST', body: '{}' })).status).toBe(501)
  })

  it("refuses an operator's body that is not JSON (415) or too large (413), before reading it whole", async () => {
    const { request } = setup()
    const post = (body: BodyInit, type?: string, headers: Record<string, string> = {}) =>
      request('/sessions/revoke', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN}`,
          ...(type !== undefined && { 'content-type': type }),
          ...headers,
        },
        body,
      })
    const text = await post('{"sub":"x"}', 'text/plain')
    expect(text.status).toBe(415)
    expect(await text.json()).toEqual({
      error: 'body must be JSON, sent with Content-Type: application/json (not "text/plain")',
    })
    expect((await post('sub=x', 'application/x-www-form-urlencoded')).status).toBe(415)
    expect((await post('{"sub":"x"}')).status).toBe(415)
    const padded = `{"sub":"x"${' '.repeat(20_000)}}`
    const large = await post(padded, 'application/json')
    expect(large.status).toBe(413)
    expect(await large.json()).toEqual({ error: expect.stringContaining('body over 16384 bytes') })
    // streamed, without a length: cut at the limit too
    const stream = new Blob([padded]).stream()
    const streamed = await request('/sessions/revoke', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(streamed.status).toBe(413)
    // JSON with a charset, small: as before
    expect((await post('{"sub":"x"}', 'application/json; charset=utf-8')).status).toBe(200)
    expect((await post('{"sub":"x"}', 'application/merge-patch+json')).status).toBe(200)
    // no token: 401 first, the body not looked at
    const anonymous = await request('/sessions/revoke', { method: 'POST', body: padded })
    expect(anonymous.status).toBe(401)
  })

  it('answers a CORS preflight and refuses other methods with 405', async () => {
    const { request, issue } = setup()
    const { path } = await issue()
    const preflight = await request(`${path}v0/seg_000.ts`, { method: 'OPTIONS' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Range')
    const post = await request(`${path}v0/seg_000.ts`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })

  it('404s a playlist the CDN does not have, and 502s when the CDN refuses the worker', async () => {
    const { request, issue } = setup()
    const { path } = await issue()
    const missing = await request(`${path}v7/index.m3u8`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: 'no such playlist: v7/index.m3u8' })
    const misconfigured = setup({}, testEnv({ SECRET_KEY: 'not-the-cdn-secret' }))
    // another video: playlists are cached by path, and this one must reach the CDN
    const session = await misconfigured.issue('?video=misconfigured&type=vod')
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const refused = await misconfigured.request(`${session.path}master.m3u8`)
    expect(refused.status).toBe(502)
    expect(await refused.json()).toEqual({
      error: 'the CDN refused the playlist URL signed by this worker (403)',
    })
    expect(error).toHaveBeenCalled()
    error.mockRestore()
  })

  it('fuzz: any path under a session is a 4xx or a redirect into the video directory, never a 5xx', async () => {
    const { request, issue } = setup()
    const { path } = await issue()
    const pieces = fc.oneof(
      fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2F',
        '%2f',
        '%00',
        '%0d%0a',
        '//',
        'v0',
        'seg_000.ts',
        'key.bin',
        '\\',
        '..;',
        '?',
        '#',
        'index.m3u8',
        '%252e',
      ),
      fc.string({ maxLength: 12 }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { maxLength: 10 }), fc.boolean(), async (parts, huge) => {
        const tail = parts.join('/') + (huge ? 'a'.repeat(5000) : '')
        const res = await request(`${path}${tail}`)
        expect(res.status).toBeLessThan(500)
        if (res.status === 302) {
          const url = new URL(res.headers.get('location') ?? '')
          expect(url.origin).toBe('https://cdn.test')
          // `=` since issue 32: DASH packagers' names (video=100000/…), a plain path character
          expect(url.pathname).toMatch(
            /^\/videos\/12345_demo\/[\w-]+\/\d+\/(?:[\w.=-]+\/)*[\w.=-]+$/,
          )
          expect(url.pathname.split('/')).not.toContain('..')
        }
        await res.body?.cancel()
      }),
      { numRuns: 300 },
    )
  })
})
