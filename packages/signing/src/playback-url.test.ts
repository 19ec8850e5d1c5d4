import { describe, expect, it } from 'vitest'
import {
  buildPlaybackUrl,
  isVideoSlug,
  MANIFEST_FILES,
  manifestFormat,
  manifestUrl,
  streamType,
} from './playback-url.ts'

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
})
