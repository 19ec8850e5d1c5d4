import { describe, expect, it } from 'vitest'
import {
  relativeReference,
  sessionBase,
  sessionFile,
  sessionRequest,
  sessionUrl,
} from './session-path.ts'

describe('sessionFile', () => {
  it.each([
    ['master.m3u8', 'playlist'],
    ['v1/index.m3u8', 'playlist'],
    ['v1/seg_004.ts', 'leaf'],
    ['key.bin', 'leaf'],
    ['a/b/c/d/e/f/g/h.ts', 'leaf'],
    ['manifest.mpd', 'mpd'],
    ['dash/manifest.mpd', 'mpd'],
    ['dash/chunk-0-001.m4s', 'leaf'],
    // DASH packagers' $RepresentationID$ values
    ['video=100000/seg-12.m4s', 'leaf'],
    ['audio_eng=64000-12.mp4', 'leaf'],
    ['v1/init.webm', 'leaf'],
  ] as const)('%s is a %s', (rest, kind) => {
    expect(sessionFile(rest)).toEqual({ rest, kind })
  })

  it.each([
    '',
    '..',
    'v1/../key.bin',
    './key.bin',
    'v1//seg.ts',
    'v1/seg%2F.ts',
    '%2e%2e/x.ts',
    'seg.ts?x',
    'video%3D1/a.m4s',
    'a=b/..',
    'a&b=1.m4s',
    'seg\r\nx.ts',
    'a/b/c/d/e/f/g/h/i.ts',
    `${'a'.repeat(129)}.ts`,
  ])('%j is refused', (rest) => {
    expect(sessionFile(rest)).toBeUndefined()
  })
})

describe('the session URL: built and read back in one place', () => {
  const credential = 'eyJh.eyJj.c2ln'

  it('reads back what it builds, under a prefix or at the root', () => {
    for (const [base, prefix] of [
      ['https://site.test', ''],
      ['https://site.test/video', '/video'],
    ] as const) {
      const url = sessionUrl(base, 'demo', credential, 'v1/seg_004.ts')
      expect(sessionRequest(`${url}?_HLS_msn=3`, prefix)).toEqual({
        video: 'demo',
        credential,
        file: { rest: 'v1/seg_004.ts', kind: 'leaf' },
        search: '?_HLS_msn=3',
      })
    }
  })

  it.each([
    ['https://site.test/video/session', '/video', undefined, 'https://site.test/video'],
    [
      'https://internal.test/video/session',
      '/video',
      'https://public.test/edge',
      'https://public.test/edge/video',
    ],
    // a public base that already names the mount point is not doubled
    [
      'https://site.test/video/session',
      '/video',
      'https://site.test/video',
      'https://site.test/video',
    ],
    // under mount(), which hides its path from the app, the base names it
    ['https://site.test/session', '', '/tok', 'https://site.test/tok'],
    ['https://site.test/session', '', 'https://cdn-front.test/tok', 'https://cdn-front.test/tok'],
  ])('from %s under %j with base %j: %s', (request, prefix, baseUrl, base) => {
    expect(sessionBase(request, prefix, baseUrl)).toBe(base)
  })

  it('refuses what could leave the video (400) or is too long (414)', () => {
    expect(() => sessionRequest('https://site.test/s/demo/a.b.c/..%2Fx.ts', '')).toThrow(
      'a session path has no percent-escapes',
    )
    expect(() => sessionRequest('https://site.test/s/demo/not-a-credential/x.ts', '')).toThrow(
      'not a session file',
    )
    expect(() => sessionRequest(`https://site.test/s/${'a'.repeat(5000)}`, '')).toThrow(
      'session path too long',
    )
    // a leaf's query goes on to the CDN: a CMCD one passes, a query that would be a CDN cache
    // key per request does not
    const leaf = 'https://site.test/s/demo/a.b.c/v1/seg_000.ts'
    const cmcd = `?CMCD=${encodeURIComponent('bl=21300,br=3200,d=4004,ot=v,sid="6e2fb550-c457-11e9-bb97-0800200c9a66"')}`
    expect(sessionRequest(`${leaf}${cmcd}`, '').search).toBe(cmcd)
    const most = `?q=${'x'.repeat(2046)}` // 2048 characters after the `?`
    expect(sessionRequest(`${leaf}${most}`, '').search).toBe(most)
    expect(() => sessionRequest(`${leaf}${most}x`, '')).toThrow('session query too long')
  })
})

describe('relativeReference', () => {
  it.each([
    ['master.m3u8', 'v0/index.m3u8', 'v0/index.m3u8'],
    ['v1/index.m3u8', 'v1/seg_000.ts', 'seg_000.ts'],
    ['v1/index.m3u8', 'key.bin', '../key.bin'],
    ['v1/index.m3u8', 'v0/index.m3u8', '../v0/index.m3u8'],
    ['a/b/index.m3u8', 'a/c/seg.ts', '../c/seg.ts'],
    ['a/index.m3u8', 'a/b/seg.ts', 'b/seg.ts'],
  ])('from %s to %s is %s', (from, to, reference) => {
    expect(relativeReference(from, to)).toBe(reference)
    expect(new URL(reference, `https://x/s/v/c/${from}`).href).toBe(`https://x/s/v/c/${to}`)
  })
})
