import { describe, expect, it } from 'vitest'
import { livePlaylist, liveSegmentIndex, parseVodPlaylist } from './live-playlist.ts'

const vod = parseVodPlaylist(
  `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin"\n${[
    0, 1, 2, 3,
  ]
    .map((i) => `#EXTINF:2.000000,\nseg_00${i}.ts`)
    .join('\n')}\n#EXT-X-ENDLIST\n`,
)
const at = (seconds: number) =>
  livePlaylist(vod, { epochMs: 0, nowMs: seconds * 1000, segmentSeconds: 2, windowSize: 3 })

describe('livePlaylist', () => {
  it('keeps the VOD header (key included) but not its type, sequence or end', () => {
    const text = at(10)
    expect(text).toContain('#EXT-X-KEY:METHOD=AES-128,URI="key.bin"')
    expect(text).not.toMatch(/PLAYLIST-TYPE|ENDLIST|MEDIA-SEQUENCE:0/)
  })

  it('slides with the clock, one segment per target duration', () => {
    expect(at(10)).toContain('#EXT-X-MEDIA-SEQUENCE:3\n')
    expect(at(10).match(/live_\d+\.ts/g)).toEqual(['live_3.ts', 'live_4.ts', 'live_5.ts'])
    expect(at(12).match(/live_\d+\.ts/g)).toEqual(['live_4.ts', 'live_5.ts', 'live_6.ts'])
    expect(at(1).match(/live_\d+\.ts/g)).toEqual(['live_0.ts'])
  })

  it('marks each loop over the VOD as a discontinuity and counts the ones that slid out', () => {
    expect(at(10)).toMatch(/live_3\.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000000,\nlive_4\.ts/)
    expect(at(10)).toContain('#EXT-X-DISCONTINUITY-SEQUENCE:0')
    expect(at(18)).toContain('#EXT-X-DISCONTINUITY-SEQUENCE:1') // window 7–9, boundary at 4 gone
    expect(at(16)).toContain('#EXT-X-MEDIA-SEQUENCE:6\n#EXT-X-DISCONTINUITY-SEQUENCE:1')
  })

  it('maps live segments back onto the VOD files', () => {
    expect(liveSegmentIndex('live_9.ts', 4)).toBe(1)
    expect(liveSegmentIndex('seg_001.ts', 4)).toBeUndefined()
  })
})
