import { fileURLToPath } from 'node:url'
import { signToken } from '@proj/signing'
import { describe, expect, it } from 'vitest'
import { createOrigin } from '../origin/origin-app.ts'
import { createCdn } from './cdn-app.ts'

const secret = 'test-secret'
const nowMs = 1_800_000_000_000
const expires = nowMs / 1000 + 20
const origin = createOrigin({
  mediaDir: fileURLToPath(new URL('../../media/vod', import.meta.url)),
  now: () => nowMs,
  liveEpochMs: nowMs - 60_000,
})
const fromOrigin = (path: string, init?: { headers: Headers }) =>
  origin.fetch(new Request(`http://origin${path}`, init))
const cdn = (ipBound: boolean, ip = '127.0.0.1', now = nowMs) =>
  createCdn({ secret, ipBound, origin: fromOrigin, now: () => now, clientIp: () => ip })
const plainToken = signToken({ clientId: '12345', video: 'demo', secret, expires })

describe('createCdn', () => {
  it('serves the VOD master with the pair stripped, with CORS headers', async () => {
    const res = await cdn(false).request(`/videos/12345_demo/${plainToken}/${expires}/master.m3u8`)
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(await res.text()).toContain('v1/index.m3u8')
  })

  it('serves segments and keys of both renditions', async () => {
    const base = `/videos/12345_demo/${plainToken}/${expires}`
    const segment = await cdn(false).request(`${base}/v0/seg_000.ts`)
    expect(segment.headers.get('content-type')).toBe('video/mp2t')
    expect((await segment.arrayBuffer()).byteLength).toBeGreaterThan(1000)
    expect((await (await cdn(false).request(`${base}/v1/key.bin`)).arrayBuffer()).byteLength).toBe(
      16,
    )
  })

  it('serves the live window under /cmaf/', async () => {
    const res = await cdn(false).request(`/cmaf/12345_demo/${plainToken}/${expires}/v0/index.m3u8`)
    const text = await res.text()
    expect(text).toContain('#EXT-X-MEDIA-SEQUENCE:25')
    const segment = text.match(/live_\d+\.ts/)?.[0]
    const media = await cdn(false).request(
      `/cmaf/12345_demo/${plainToken}/${expires}/v0/${segment}`,
    )
    expect(media.status).toBe(200)
  })

  it('answers 403 for a bad token and 410 for an expired one, before touching the origin', async () => {
    const app = createCdn({
      secret,
      ipBound: false,
      origin: () => {
        throw new Error('origin must not be asked')
      },
      now: () => (expires + 1) * 1000,
      clientIp: () => '127.0.0.1',
    })
    expect(
      (await app.request(`/videos/12345_demo/${plainToken}/${expires}/master.m3u8`)).status,
    ).toBe(410)
    const bad = await app.request(
      `/videos/12345_demo/AAAAAAAAAAAAAAAAAAAAAA/${expires}/master.m3u8`,
    )
    expect(bad.status).toBe(403)
    expect(bad.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('binds tokens to the viewer address on the IP-bound host only', async () => {
    const bound = signToken({ clientId: '12345', video: 'demo', secret, expires, ip: '127.0.0.1' })
    const path = (token: string) => `/videos/12345_demo/${token}/${expires}/master.m3u8`
    expect((await cdn(true).request(path(bound))).status).toBe(200)
    expect((await cdn(true, '::ffff:127.0.0.1').request(path(bound))).status).toBe(200)
    expect((await cdn(true, '10.0.0.1').request(path(bound))).status).toBe(403)
    expect((await cdn(true).request(path(plainToken))).status).toBe(403)
    expect((await cdn(false).request(path(bound))).status).toBe(403)
  })

  it('during a rotation accepts the previous secret too (403/410 as nginx), never a third one', async () => {
    const rotating = createCdn({
      secret: 'new-secret',
      previousSecret: secret,
      ipBound: false,
      origin: fromOrigin,
      now: () => nowMs,
      clientIp: () => '127.0.0.1',
    })
    const sign = (key: string, at = expires) =>
      `/videos/12345_demo/${signToken({ clientId: '12345', video: 'demo', secret: key, expires: at })}/${at}/master.m3u8`
    expect((await rotating.request(sign('new-secret'))).status).toBe(200)
    expect((await rotating.request(sign(secret))).status).toBe(200)
    expect((await rotating.request(sign(secret, expires - 60))).status).toBe(410)
    expect((await rotating.request(sign('third-secret'))).status).toBe(403)
    expect((await cdn(false).request(sign('new-secret'))).status).toBe(403) // not rotating
  })

  it('answers 404 for paths without a pair and never leaves the media directory', async () => {
    expect((await cdn(false).request('/videos/12345_demo/master.m3u8')).status).toBe(404)
    const traversal = `/videos/12345_demo/${plainToken}/${expires}/..%2F..%2Fpackage.json`
    expect((await cdn(false).request(traversal)).status).toBe(404)
  })
})

describe('paths, as an attacker writes them', () => {
  // a file the test plants outside the media directory
  const planted = async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join, relative } = await import('node:path')
    const dir = await mkdtemp(join(tmpdir(), 'cdn-escape-'))
    await writeFile(join(dir, 'index.m3u8'), '#EXTM3U\n#SECRET-OUTSIDE-MEDIA\n')
    const mediaDir = fileURLToPath(new URL('../../media/vod', import.meta.url))
    return relative(mediaDir, dir)
  }

  it('a signed live playlist path cannot read outside the media directory (double-encoded ..)', async () => {
    const escaped = (await planted()).replaceAll('/', '%252f')
    const res = await cdn(false).request(
      `/cmaf/12345_demo/${plainToken}/${expires}/${escaped}/index.m3u8`,
    )
    expect(res.status).toBe(404)
    expect(await res.text()).not.toContain('SECRET-OUTSIDE-MEDIA')
  })

  it('nor without a token on the origin', async () => {
    const escaped = (await planted()).replaceAll('/', '%2f')
    for (const path of [
      `/live/12345_demo/${escaped}/index.m3u8`,
      `/vod/12345_demo/${escaped}/index.m3u8`,
    ]) {
      const res = await origin.request(path)
      expect(res.status).toBe(404)
      expect(await res.text()).not.toContain('SECRET-OUTSIDE-MEDIA')
    }
  })

  it('a signed path cannot escape its video: matched after decoding, like nginx (404)', async () => {
    const base = `/videos/12345_demo/${plainToken}/${expires}`
    expect((await cdn(false).request(`${base}/..%2fother%2fmaster.m3u8`)).status).toBe(404)
    expect((await cdn(false).request(`${base}/v0/..%2fmaster.m3u8`)).status).toBe(200)
    expect((await cdn(false).request(`${base}/%zz/master.m3u8`)).status).toBe(400)
    expect((await cdn(false).request(`${base}/v0//seg_000.ts`)).status).toBe(200)
  })

  it("a token for one video never reads another's through the origin (tab, backslash, %252e)", async () => {
    const base = `/videos/12345_demo/${plainToken}/${expires}`
    for (const attack of [
      '.%09./.%09./live/99999_secretvideo/v0/index.m3u8',
      '.%0d%0a./.%0a./live/99999_secretvideo/v0/index.m3u8',
      '..%5c..%5clive%5c99999_secretvideo%5cv0%5cindex.m3u8',
      '%252e%252e/%252e%252e/live/99999_secretvideo/v0/index.m3u8',
      '..%2f..%2flive%2f99999_secretvideo%2fv0%2findex.m3u8',
    ]) {
      const res = await cdn(false).request(`${base}/${attack}`)
      expect([400, 404], attack).toContain(res.status)
      expect(await res.text(), attack).not.toContain('#EXTM3U')
    }
    // what the same token may read still plays
    expect((await cdn(false).request(`${base}/v0/index.m3u8`)).status).toBe(200)
    expect((await cdn(false).request(`${base}/v0/seg_000.ts`)).status).toBe(200)
    const live = `/cmaf/12345_demo/${plainToken}/${expires}/v0/index.m3u8`
    expect(await (await cdn(false).request(live)).text()).toContain('#EXT-X-MEDIA-SEQUENCE')
  })

  it('answers HEAD with the headers of GET, its Content-Length included', async () => {
    const base = `/videos/12345_demo/${plainToken}/${expires}`
    for (const file of ['v0/seg_000.ts', 'master.m3u8', 'v1/key.bin']) {
      const get = await cdn(false).request(`${base}/${file}`)
      const head = await cdn(false).request(`${base}/${file}`, { method: 'HEAD' })
      const length = (await get.arrayBuffer()).byteLength
      expect(head.status, file).toBe(200)
      expect(get.headers.get('content-length'), file).toBe(String(length))
      expect(head.headers.get('content-length'), file).toBe(String(length))
      expect(head.headers.get('content-type'), file).toBe(get.headers.get('content-type'))
    }
    const live = `/cmaf/12345_demo/${plainToken}/${expires}/v0/index.m3u8`
    const playlist = await cdn(false).request(live, { method: 'HEAD' })
    expect(Number(playlist.headers.get('content-length'))).toBeGreaterThan(0)
  })

  it('the playlist cache does not grow with aliases of one rendition', async () => {
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 2000; i++) {
      const alias = `${'.%2f'.repeat(1 + (i % 50))}v0${'%2f.'.repeat(Math.floor(i / 50))}`
      const res = await origin.request(`/live/12345_demo/${alias}/index.m3u8`)
      expect(res.status).toBe(404)
    }
    // 2,000 aliases: a cache keyed by them held a parsed playlist each (≈ 11 KB)
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(15_000_000)
  })
})

describe('nginxUri', () => {
  it('decodes, resolves dot segments and merges slashes; 400 cases are undefined', async () => {
    const { nginxUri } = await import('./cdn-app.ts')
    expect(nginxUri('/a/b/..%2fc')).toBe('/a/c')
    expect(nginxUri('/a//b/./c/')).toBe('/a/b/c/')
    expect(nginxUri('/a/%252f')).toBe('/a/%2f')
    expect(nginxUri('/..')).toBeUndefined()
    expect(nginxUri('/a/%2')).toBeUndefined()
    // nginx refuses a decoded NUL (400); %2500 is the text %00
    expect(nginxUri('/a/%00b')).toBeUndefined()
    expect(nginxUri('/a/%2500')).toBe('/a/%00')
  })
})

// What a player on another origin needs beyond the token check: CORS preflights that allow its
// Range header, and errors that say what is wrong without the secret or the expected token.
const token = plainToken
const base = `/videos/12345_demo/${token}/${expires}`
const VIEWER = '203.0.113.7'

describe('CORS, as nginx (e2e/nginx/token.conf.template) answers it', () => {
  it('a preflight for a Range request is allowed (Range in Access-Control-Allow-Headers)', async () => {
    const res = await cdn(false, VIEWER).request(`${base}/v0/seg_000.ts`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'range',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('range')
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS')
  })

  it('every answer, errors included, carries the same CORS and Timing-Allow-Origin headers', async () => {
    for (const path of [`${base}/master.m3u8`, `/videos/12345_demo/AAAA/${expires}/master.m3u8`]) {
      const res = await cdn(false, VIEWER).request(path)
      expect(res.headers.get('access-control-allow-headers'), path).toBe('Range')
      expect(res.headers.get('access-control-allow-methods'), path).toBe('GET, HEAD, OPTIONS')
      expect(res.headers.get('timing-allow-origin'), path).toBe('*')
    }
  })
})

describe('Range requests through the CDN', () => {
  it('reach the origin as nginx forwards them, which answers the whole file (200)', async () => {
    const res = await cdn(false, VIEWER).request(`${base}/v1/key.bin`, {
      headers: { range: 'bytes=0-' },
    })
    expect(res.status).toBe(200)
    expect((await res.arrayBuffer()).byteLength).toBe(16)
    const expired = await cdn(false, VIEWER, (expires + 1) * 1000).request(
      `${base}/v0/seg_000.ts`,
      {
        headers: { range: 'bytes=0-9' },
      },
    )
    expect(expired.status).toBe(410)
  })
})

describe('error bodies', () => {
  it('a 403 says what the token must match, never the secret or the expected token', async () => {
    const res = await cdn(true, VIEWER).request(
      `/videos/12345_demo/${token}/${expires}/master.m3u8`,
    )
    expect(res.status).toBe(403)
    const text = await res.text()
    expect(text).toMatch(/^403 Forbidden: /)
    expect(text).toContain('203.0.113.7') // the address an IP-bound token must be signed for
    const expected = signToken({
      clientId: '12345',
      video: 'demo',
      secret,
      expires,
      ip: '203.0.113.7',
    })
    expect(text).not.toContain(expected)
    expect(text).not.toContain(secret)
  })

  it('a 410 says when it expired and what time the CDN reads', async () => {
    const res = await cdn(false, VIEWER, (expires + 5) * 1000).request(`${base}/master.m3u8`)
    expect(res.status).toBe(410)
    expect(await res.text()).toMatch(
      new RegExp(
        `^410 Gone: the token expired at ${expires} \\(.*\\); the CDN's clock reads ${expires + 5}`,
      ),
    )
  })
})
