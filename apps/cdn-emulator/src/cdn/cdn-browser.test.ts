// What a player on another origin needs of the CDN beyond the token check: CORS preflights that
// allow its Range header, the Range itself honoured end to end (CDN → origin), and errors that
// say what is wrong without giving away the secret or the expected token.
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
  const whole = async (file: string) =>
    new Uint8Array(await (await cdn().request(`${base}/${file}`)).arrayBuffer())
  const ranged = (file: string, range: string, extra: Record<string, string> = {}) =>
    cdn().request(`${base}/${file}`, { headers: { range, ...extra } })

  it('answers a byte range with 206, Content-Range and exactly those bytes', async () => {
    const all = await whole('v0/seg_000.ts')
    const res = await ranged('v0/seg_000.ts', 'bytes=100-199')
    expect(res.status).toBe(206)
    expect(res.headers.get('content-range')).toBe(`bytes 100-199/${all.byteLength}`)
    expect(res.headers.get('content-length')).toBe('100')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(all.slice(100, 200))
  })

  it('open and suffix ranges, and an end past the file clipped to it', async () => {
    const all = await whole('v1/key.bin')
    const open = await ranged('v1/key.bin', 'bytes=10-')
    expect(open.status).toBe(206)
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(all.slice(10))
    const suffix = await ranged('v1/key.bin', 'bytes=-4')
    expect(suffix.headers.get('content-range')).toBe('bytes 12-15/16')
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(all.slice(12))
    const clipped = await ranged('v1/key.bin', 'bytes=8-1000')
    expect(clipped.headers.get('content-range')).toBe('bytes 8-15/16')
  })

  it('416 with the size for a range past the end; 200 for what it does not read', async () => {
    for (const range of ['bytes=16-20', 'bytes=16-', 'bytes=99999-', 'bytes=-0']) {
      const past = await ranged('v1/key.bin', range)
      expect(past.status, range).toBe(416)
      expect(past.headers.get('content-range'), range).toBe('bytes */16')
    }
    // several ranges, another unit, a malformed one, an If-Range it cannot match: the whole file
    for (const range of ['bytes=0-1,4-5', 'items=0-1', 'bytes=5-2', 'bytes=abc']) {
      const res = await ranged('v1/key.bin', range)
      expect(res.status, range).toBe(200)
      expect((await res.arrayBuffer()).byteLength, range).toBe(16)
    }
    expect((await ranged('v1/key.bin', 'bytes=0-1', { 'if-range': '"x"' })).status).toBe(200)
  })

  it('says it takes ranges, and a token check still comes first', async () => {
    expect((await cdn().request(`${base}/v0/seg_000.ts`)).headers.get('accept-ranges')).toBe(
      'bytes',
    )
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
