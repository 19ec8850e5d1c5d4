import { describe, expect, it } from 'vitest'
import { buildPlaybackUrl, isVideoSlug, streamType } from './playback-url.ts'

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
