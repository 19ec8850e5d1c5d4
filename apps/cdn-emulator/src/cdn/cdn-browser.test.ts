// What a player on another origin needs of the CDN beyond the token check: CORS preflights that
// allow its Range header, and errors that say what is wrong without giving away the secret or the
// expected token.
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
const cdn = (ipBound = false, now = nowMs) =>
  createCdn({
    secret,
    ipBound,
    origin: (path, init) => origin.fetch(new Request(`http://origin${path}`, init)),
    now: () => now,
    clientIp: () => '203.0.113.7',
  })
const token = signToken({ clientId: '12345', video: 'demo', secret, expires })
const base = `/videos/12345_demo/${token}/${expires}`

describe('CORS, as nginx (e2e/nginx/token.conf.template) answers it', () => {
  it('a preflight for a Range request is allowed (Range in Access-Control-Allow-Headers)', async () => {
    const res = await cdn().request(`${base}/v0/seg_000.ts`, {
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
      const res = await cdn().request(path)
      expect(res.headers.get('access-control-allow-headers'), path).toBe('Range')
      expect(res.headers.get('access-control-allow-methods'), path).toBe('GET, HEAD, OPTIONS')
      expect(res.headers.get('timing-allow-origin'), path).toBe('*')
    }
  })
})

describe('Range requests through the CDN', () => {
  it('reach the origin as nginx forwards them, which answers the whole file (200)', async () => {
    const res = await cdn().request(`${base}/v1/key.bin`, { headers: { range: 'bytes=0-' } })
    expect(res.status).toBe(200)
    expect((await res.arrayBuffer()).byteLength).toBe(16)
    const expired = await cdn(false, (expires + 1) * 1000).request(`${base}/v0/seg_000.ts`, {
      headers: { range: 'bytes=0-9' },
    })
    expect(expired.status).toBe(410)
  })
})

describe('error bodies', () => {
  it('a 403 says what the token must match, never the secret or the expected token', async () => {
    const res = await cdn(true).request(`/videos/12345_demo/${token}/${expires}/master.m3u8`)
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
    const res = await cdn(false, (expires + 5) * 1000).request(`${base}/master.m3u8`)
    expect(res.status).toBe(410)
    expect(await res.text()).toMatch(
      new RegExp(
        `^410 Gone: the token expired at ${expires} \\(.*\\); the CDN's clock reads ${expires + 5}`,
      ),
    )
  })
})
