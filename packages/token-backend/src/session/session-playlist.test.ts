import * as HLS from 'hls-parser'
import { describe, expect, it } from 'vitest'
import { rewritePlaylist } from './playlist-rewriter.ts'
import { sessionPlaylist } from './session-playlist.ts'

// hls-parser (an independent parser) is the oracle: it finds the URIs of each playlist; the
// test resolves the rewritten ones under the session URL and checks each names the file the
// upstream one named, on the session.
type Playlist = ReturnType<typeof HLS.parse>
// it finds the URIs all the same; its remarks on the test playlists' EXT-X-VERSION are not checked
HLS.setOptions({ silent: true })

const urisOf = (playlist: Playlist): string[] => {
  const uris: (string | undefined)[] = []
  if (playlist.isMasterPlaylist) {
    const master = playlist as HLS.types.MasterPlaylist
    for (const variant of master.variants) {
      uris.push(variant.uri)
      for (const rendition of [
        ...variant.audio,
        ...variant.video,
        ...variant.subtitles,
        ...variant.closedCaptions,
      ])
        uris.push(rendition.uri)
    }
    for (const key of master.sessionKeyList) uris.push(key.uri)
    for (const data of master.sessionDataList) uris.push(data.uri)
  } else {
    const media = playlist as HLS.types.MediaPlaylist
    for (const segment of media.segments) {
      uris.push(segment.uri, segment.key?.uri, segment.map?.uri)
      for (const part of segment.parts) uris.push(part.uri)
    }
    for (const hint of media.prefetchSegments) uris.push(hint.uri)
    for (const report of media.renditionReports) uris.push(report.uri)
  }
  // a rendition shared by variants is listed once per variant: compare the sets
  return [...new Set(uris.filter((uri): uri is string => uri !== undefined && uri !== ''))]
}

const UPSTREAM_BASE = 'https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/'
const SESSION_BASE = 'https://tokens.example.com/s/demo/eyJ.abc.def/'
const origin = (rest: string) => ({
  upstream: `${UPSTREAM_BASE}${rest}`,
  cdnHosts: ['cdn.example.com', 'cdn-ip.example.com'],
  directory: '/videos/12345_demo/',
  rest,
})

/** What a URI of the upstream playlist at `rest` must become on the session (resolved). */
const expected = (uri: string, rest: string): string => {
  const url = new URL(uri, `${UPSTREAM_BASE}${rest}`)
  const inside = /^\/videos\/12345_demo\/(?:[A-Za-z0-9_-]{6,}\/[1-9]\d{9,}\/)?(.+)$/.exec(
    url.pathname,
  )
  if (!['cdn.example.com', 'cdn-ip.example.com'].includes(url.host) || !inside?.[1])
    return new URL(uri, `${SESSION_BASE}${rest}`).href
  return `${SESSION_BASE}${inside[1]}${url.search}`
}

const checkAgainstOracle = (text: string, rest: string) => {
  const rewritten = sessionPlaylist(text, origin(rest))
  const before = urisOf(HLS.parse(text))
  const after = urisOf(HLS.parse(rewritten))
  expect(after).toHaveLength(before.length)
  expect(before.length).toBeGreaterThan(0)
  after.forEach((uri, index) => {
    expect(new URL(uri, `${SESSION_BASE}${rest}`).href).toBe(expected(before[index] ?? '', rest))
  })
  return rewritten
}

const MASTER = `#EXTM3U
#EXT-X-VERSION:7
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="keys/session.key",KEYFORMAT="identity"
#EXT-X-SESSION-DATA:DATA-ID="com.example.title",URI="meta/title.json"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en/index.m3u8"
#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="en",DEFAULT=NO,AUTOSELECT=YES,LANGUAGE="en",URI="/videos/12345_demo/subs/en.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=110000,RESOLUTION=256x144,CODECS="avc1.42c01e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
v0/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=190000,RESOLUTION=426x240,CODECS="avc1.42c01e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999/v1/index.m3u8
#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=40000,CODECS="avc1.42c01e",URI="v0/iframes.m3u8"
`

const MEDIA = `#EXTM3U
#EXT-X-VERSION:9
#EXT-X-TARGETDURATION:2
#EXT-X-PART-INF:PART-TARGET=0.5
#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5
#EXT-X-MEDIA-SEQUENCE:100
#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
#EXT-X-KEY:METHOD=AES-128,URI="../key.bin",IV=0x000102030405060708090a0b0c0d0e0f
#EXTINF:2.000,
seg_100.m4s
#EXTINF:2.000,
/videos/12345_demo/v1/seg_101.m4s?part=full
#EXT-X-PART:DURATION=0.5,URI="seg_102.part0.m4s",INDEPENDENT=YES
#EXT-X-PART:DURATION=0.5,URI="seg_102.part1.m4s"
#EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg_102.part2.m4s"
#EXT-X-RENDITION-REPORT:URI="../v0/index.m3u8",LAST-MSN=101,LAST-PART=1
`

describe('sessionPlaylist (checked with hls-parser)', () => {
  it('rewrites every URI of a master playlist: variants, media, i-frames, session keys and data', () => {
    const rewritten = checkAgainstOracle(MASTER, 'master.m3u8')
    expect(rewritten).toContain('\nv1/index.m3u8\n')
    expect(rewritten).toContain('URI="subs/en.m3u8"')
    expect(rewritten).not.toContain('Upstr3am')
  })

  it('rewrites every URI of a media playlist: segments, map, key, parts, preload hint, rendition report', () => {
    const rewritten = checkAgainstOracle(MEDIA, 'v1/index.m3u8')
    expect(rewritten).toContain('URI="../key.bin"')
    expect(rewritten).toContain('\nseg_101.m4s?part=full\n')
    expect(rewritten).toContain('#EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg_102.part2.m4s"')
    expect(rewritten).toContain('#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"')
  })

  it('never writes its own token: a reference that climbs into the upstream URL’s pair is kept as written', () => {
    // on the CDN `../v1/seg_000.ts` from the top folder is `…/Tok3n_x/v1/seg_000.ts`: no file
    // of the video, and naming it on the session would put the CDN's token in the answer
    const top = sessionPlaylist('#EXTM3U\n#EXTINF:2.000,\n../v1/seg_000.ts\n', origin('climb.m3u8'))
    expect(top).toBe('#EXTM3U\n#EXTINF:2.000,\n../v1/seg_000.ts\n')
    const below = sessionPlaylist(
      '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="../../key.bin"\n#EXTINF:2.000,\n../../seg_000.ts\n#EXTINF:2.000,\n../seg_001.ts\n',
      origin('v1/climb.m3u8'),
    )
    expect(below).not.toContain('Tok3n_x')
    expect(below).toContain('URI="../../key.bin"')
    expect(below).toContain('\n../../seg_000.ts\n')
    // one folder up stays inside the pair: the video's own file, served by the session
    expect(below).toContain('\n../seg_001.ts\n')
  })

  it('keeps what is not the session video’s: other hosts and videos, data: and skd: URIs, escapes', () => {
    const text = `#EXTM3U
#EXT-X-TARGETDURATION:2
#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://fairplay-key-1",KEYFORMAT="com.apple.streamingkeydelivery"
#EXT-X-MAP:URI="data:application/octet-stream;base64,AAAA"
#EXTINF:2.000,
https://ads.example.net/ad_1.ts
#EXTINF:2.000,
https://cdn.example.com/videos/12345_other/Tok3n_x/1800000030/seg_1.ts
#EXTINF:2.000,
../../../../etc/passwd.ts
#EXTINF:2.000,
seg%2F..%2F..%2Fx.ts
#EXTINF:2.000,
http://cdn.example.com/videos/12345_demo/seg_downgraded.ts
`
    const rewritten = checkAgainstOracle(text, 'v0/index.m3u8')
    expect(rewritten).toContain('URI="skd://fairplay-key-1"')
    expect(rewritten).toContain('URI="data:application/octet-stream;base64,AAAA"')
    expect(rewritten).toContain('\nhttps://ads.example.net/ad_1.ts\n')
    expect(rewritten).toContain(
      '\nhttps://cdn.example.com/videos/12345_other/Tok3n_x/1800000030/seg_1.ts\n',
    )
    // kept as written: under the session URL it resolves to no file of the session (403/400)
    expect(rewritten).toContain('\n../../../../etc/passwd.ts\n')
    expect(rewritten).toContain('\nseg%2F..%2F..%2Fx.ts\n')
    // the CDN's own host over http: still the session's file (the session picks the scheme)
    expect(rewritten).toContain('\n../seg_downgraded.ts\n')
  })

  it('keeps comments, blank lines, attributes and CRLF playlists intact', () => {
    const text =
      '#EXTM3U\r\n# a comment with URI="x"\r\n\r\n#EXT-X-TARGETDURATION:2\r\n#EXTINF:2.0,title\r\n  seg_0.ts  \r\n'
    expect(rewritePlaylist(text, (uri) => `[${uri}]`)).toBe(
      '#EXTM3U\n# a comment with URI="x"\n\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,title\n[seg_0.ts]\n',
    )
  })

  it('rewrites URI= only as an attribute of its own, not SERVER-URI or values that mention it', () => {
    const text =
      '#EXTM3U\n#EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="a"\n#EXT-X-SESSION-DATA:DATA-ID="x",VALUE="URI=y",LANGUAGE="en"\n'
    expect(rewritePlaylist(text, (uri) => `[${uri}]`)).toBe(text)
  })
})
