import { describe, expect, it } from 'vitest'
import {
  buildPlaybackUrl,
  InvalidVideoError,
  isVideoSlug,
  MANIFEST_FILES,
  type ManifestFormat,
  manifestFormat,
  manifestUrl,
  streamType,
  videoDirectory,
} from './playback-url.ts'
import { ConfigError } from './signing-config.ts'

const base = {
  domain: 'cdn.example.com',
  clientId: '12345',
  video: 'demo',
  token: 'abcDEF_-12',
  expires: 1767225600,
}

describe('buildPlaybackUrl', () => {
  it('uses /videos/ only for type exactly "vod"', () => {
    expect(buildPlaybackUrl({ ...base, type: 'vod' })).toBe(
      'https://cdn.example.com/videos/12345_demo/abcDEF_-12/1767225600/master.m3u8',
    )
  })

  it.each([undefined, 'live', 'VOD', 'Vod', '', 'vod '])('uses /cmaf/ for type %j', (type) => {
    expect(buildPlaybackUrl({ ...base, type })).toBe(
      'https://cdn.example.com/cmaf/12345_demo/abcDEF_-12/1767225600/master.m3u8',
    )
  })

  it('supports a port and http for a local CDN emulator', () => {
    expect(
      buildPlaybackUrl({ ...base, domain: '127.0.0.1:8080', scheme: 'http', type: 'vod' }),
    ).toBe('http://127.0.0.1:8080/videos/12345_demo/abcDEF_-12/1767225600/master.m3u8')
  })
})

describe('buildPlaybackUrl and videoDirectory on hostile parts', () => {
  it.each([
    ['a video climbing out of its directory', { video: '../../etc' }, InvalidVideoError],
    ['a video with a slash', { video: 'a/b' }, InvalidVideoError],
    ['a client ID with a path', { clientId: '1/../../x' }, ConfigError],
    ['an empty client ID', { clientId: '' }, ConfigError],
    ['a domain with a fragment', { domain: 'evil.com/#' }, ConfigError],
    ['a domain with user info', { domain: 'cdn.example.com@evil.com' }, ConfigError],
    ['a domain with a path', { domain: 'evil.com/videos' }, ConfigError],
    ['a domain with a scheme', { domain: 'https://evil.com' }, ConfigError],
    ['expires NaN', { expires: Number.NaN }, RangeError],
    ['expires Infinity', { expires: Number.POSITIVE_INFINITY }, RangeError],
    ['expires 1e21', { expires: 1e21 }, RangeError],
    ['a fractional expires', { expires: 1767225600.5 }, RangeError],
    ['a negative expires', { expires: -1 }, RangeError],
    ['a token with a slash', { token: 'abc/../x' }, TypeError],
    ['an empty token', { token: '' }, TypeError],
  ] as const)('refuses %s', (_, part, error) => {
    expect(() => buildPlaybackUrl({ ...base, ...part })).toThrow(error)
  })

  it('names the part in the error, never a URL outside the video', () => {
    expect(() => buildPlaybackUrl({ ...base, expires: Number.NaN })).toThrow(/^expires must be/)
    expect(() => buildPlaybackUrl({ ...base, domain: 'evil.com/#' })).toThrow(
      'domain must be a host name, optionally with :port',
    )
    expect(() => buildPlaybackUrl({ ...base, clientId: 'x' })).toThrow(
      'clientId must be the numeric account ID',
    )
    expect(() =>
      // a JavaScript caller's scheme
      buildPlaybackUrl({ ...base, scheme: 'javascript' as 'https' }),
    ).toThrow(TypeError)
  })

  it('accepts every host form a configuration accepts, and expiry 0', () => {
    for (const domain of ['[::1]:8080', 'localhost', 'cdn-1.example.com:8443'])
      expect(new URL(buildPlaybackUrl({ ...base, domain })).host).toBe(domain)
    expect(buildPlaybackUrl({ ...base, expires: 0 })).toContain('/abcDEF_-12/0/master.m3u8')
  })

  it('videoDirectory refuses what would name another directory', () => {
    expect(videoDirectory('12345', 'demo', 'vod')).toBe('/videos/12345_demo/')
    expect(() => videoDirectory('12345', '../../etc', 'vod')).toThrow(InvalidVideoError)
    expect(() => videoDirectory('1/../../x', 'demo', 'vod')).toThrow(ConfigError)
  })
})

describe('isVideoSlug / streamType', () => {
  it.each(['demo', 'a', 'Demo_01-x', 'x'.repeat(128)])('accepts %j', (video) => {
    expect(isVideoSlug(video)).toBe(true)
  })

  it.each(['', 'a/b', '..', 'a?b', 'a#b', 'a b', '%2F', 'a.b', 'x'.repeat(129), 'vidéo'])(
    'rejects %j',
    (video) => {
      expect(isVideoSlug(video)).toBe(false)
    },
  )

  it('normalises type', () => {
    expect(streamType('vod')).toBe('vod')
    expect(streamType('live')).toBe('live')
    expect(streamType('VOD')).toBe('live')
    expect(streamType(null)).toBe('live')
  })
})

describe('manifestFormat / manifestUrl', () => {
  it('reads the format strictly: hls by default, nothing but hls or dash', () => {
    expect(manifestFormat(undefined)).toBe('hls')
    expect(manifestFormat('hls')).toBe('hls')
    expect(manifestFormat('dash')).toBe('dash')
    for (const other of ['', 'DASH', 'mpd', 'dash ', 'hls,dash'])
      expect(manifestFormat(other)).toBeNull()
  })

  it('names the MPD beside the master playlist, under the same token', () => {
    const url = 'https://cdn.test/videos/12345_demo/abc/1767225600/master.m3u8'
    expect(manifestUrl(url, 'dash')).toBe(
      'https://cdn.test/videos/12345_demo/abc/1767225600/manifest.mpd',
    )
    expect(manifestUrl(url, 'hls')).toBe(url)
    expect(manifestUrl('https://cdn.test/v/master.m3u8?a=/b', 'dash')).toBe(
      'https://cdn.test/v/manifest.mpd?a=/b',
    )
    expect(MANIFEST_FILES).toEqual({ hls: 'master.m3u8', dash: 'manifest.mpd' })
  })

  it('refuses a format it does not know rather than naming a file …/undefined', () => {
    const url = 'https://cdn.test/videos/12345_demo/abc/1767225600/master.m3u8'
    for (const other of ['bogus', 'toString', '__proto__', 'DASH']) {
      expect(() => manifestUrl(url, other as ManifestFormat)).toThrow(
        /format must be "hls" or "dash"/,
      )
    }
  })
})
