import { describe, expect, it } from 'vitest'
import liveMpd from '../../../test/mpd/ffmpeg-live.mpd?raw'
import vodMpd from '../../../test/mpd/ffmpeg-vod.mpd?raw'
import { resolvedUrls, withoutUrls } from '../../../test/mpd-oracle.ts'
import { sessionMpd } from './session-mpd.ts'

// mpd-parser (VHS's MPD parser) is the oracle: it lists the URLs a player requests from the MPD
// before (loaded from the CDN) and after (loaded from the session); each must name the same
// file, on the session when it is the video's. @xmldom/xmldom checks everything else is intact.
const UPSTREAM_BASE = 'https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/'
const SESSION_BASE = 'https://tokens.example.com/s/demo/eyJ.abc.def/'
const origin = (rest: string) => ({
  upstream: `${UPSTREAM_BASE}${rest}`,
  cdnHosts: ['cdn.example.com', 'cdn-ip.example.com'],
  directory: '/videos/12345_demo/',
  rest,
})

/** What a URL the upstream MPD names must be under the session. */
const expected = (url: string): string => {
  const parsed = new URL(url)
  const inside = /^\/videos\/12345_demo\/(?:[A-Za-z0-9_-]{6,}\/[1-9]\d{9,}\/)?(.*)$/.exec(
    parsed.pathname,
  )
  if (!['cdn.example.com', 'cdn-ip.example.com'].includes(parsed.host) || inside?.[1] === undefined)
    return url
  return `${SESSION_BASE}${inside[1]}${parsed.search}`
}

const checked = (text: string, rest = 'dash/manifest.mpd', session?: string) => {
  const rewritten = sessionMpd(text, { ...origin(rest), ...(session && { session }) })
  const before = resolvedUrls(text, `${UPSTREAM_BASE}${rest}`).map(({ url }) => url)
  expect(before.length).toBeGreaterThan(0)
  const after = resolvedUrls(rewritten, `${SESSION_BASE}${rest}`).map(({ url }) => url)
  expect(after).toEqual(before.map(expected))
  expect(withoutUrls(rewritten)).toBe(withoutUrls(text))
  return rewritten
}

describe('sessionMpd on what ffmpeg writes (checked with mpd-parser)', () => {
  it('keeps the VOD MPD byte for byte: its relative URLs already resolve under the session', () => {
    expect(checked(vodMpd)).toBe(vodMpd)
    // 2 video + 1 audio Representations, 40 segments and an init section each
    expect(resolvedUrls(vodMpd, `${UPSTREAM_BASE}dash/manifest.mpd`)).toHaveLength(3 * 2 * 40)
  })

  it('keeps the live MPD (SegmentTimeline, $Time$) byte for byte', () => {
    expect(checked(liveMpd)).toBe(liveMpd)
  })

  it('rewrites an absolute BaseURL with the CDN’s token pair, and only that', () => {
    const text = vodMpd.replace(
      '\t<Period id="0"',
      '\t<BaseURL>https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999/dash/</BaseURL>\n\t<Period id="0"',
    )
    const rewritten = checked(text)
    expect(rewritten).toBe(
      text.replace(
        '<BaseURL>https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999/dash/</BaseURL>',
        '<BaseURL>./</BaseURL>',
      ),
    )
  })

  it('serves an MPD at the top of the directory as well as one below it', () => {
    const text = vodMpd.replace(
      '\t<Period id="0"',
      '\t<BaseURL>/videos/12345_demo/dash/</BaseURL>\n\t<Period id="0"',
    )
    expect(checked(text, 'manifest.mpd')).toContain('<BaseURL>dash/</BaseURL>')
    expect(checked(text, 'a/b/manifest.mpd')).toContain('<BaseURL>../../dash/</BaseURL>')
  })
})

const NESTED = `<?xml version="1.0" encoding="UTF-8"?>
<!-- packaged for the session tests -->
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:xlink="http://www.w3.org/1999/xlink"
  xmlns:cenc="urn:mpeg:cenc:2013" type="static" mediaPresentationDuration="PT8S" minBufferTime="PT2S"
  profiles="urn:mpeg:dash:profile:isoff-live:2011">
  <BaseURL serviceLocation="cdn">/videos/12345_demo/</BaseURL>
  <Period id="p0" start="PT0S">
    <BaseURL><![CDATA[dash/]]></BaseURL>
    <AdaptationSet mimeType="video/mp4" codecs="avc1.42c01e" xlink:actuate="onLoad">
      <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="10000000-1000-1000-1000-100000000001"/>
      <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed">
        <cenc:pssh>AAAANHBzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAABQIARIQEAAAABAAEAAQABAAAAAAAQ==</cenc:pssh>
      </ContentProtection>
      <SegmentTemplate timescale="1000" duration="2000" startNumber="1"
        initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/seg_$Number%05d$.m4s"/>
      <Representation id="v0" bandwidth="60000" width="256" height="144">
        <!-- a Representation of its own folder, absolute on the CDN's other host -->
        <BaseURL>https://cdn-ip.example.com/videos/12345_demo/Upstr3am/1799999999/dash/</BaseURL>
      </Representation>
      <Representation id="v1" bandwidth="120000" width="426" height="240">
        <BaseURL>
          video/
        </BaseURL>
        <SegmentTemplate timescale="1000" duration="2000" startNumber="1"
          initialization="https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999/dash/video/init-$Bandwidth$.mp4"
          media="../../dash/video/$RepresentationID$_$Number$.m4s?v=1&amp;w=2"/>
      </Representation>
    </AdaptationSet>
    <AdaptationSet mimeType="audio/mp4" codecs="mp4a.40.2" lang="en">
      <Representation id="a0" bandwidth="24000">
        <BaseURL>../audio/</BaseURL>
        <SegmentList timescale="1000" duration="2000">
          <Initialization sourceURL="init.mp4"/>
          <SegmentURL media="a_1.m4s"/>
          <SegmentURL media="https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999/audio/a_2.m4s"/>
          <SegmentURL media="/videos/12345_demo/audio/a_3.m4s?t=3&amp;u=4"/>
          <SegmentURL media="https://ads.example.net/a_4.m4s"/>
        </SegmentList>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>
<!-- the end -->
`

describe('sessionMpd on MPDs packagers write (checked with mpd-parser)', () => {
  it('rebases nested BaseURLs (root-relative, CDATA, absolute on the CDN’s hosts, foreign)', () => {
    const rewritten = checked(NESTED)
    // root-relative: the session's paths are not the CDN's
    expect(rewritten).toContain('<BaseURL serviceLocation="cdn">../</BaseURL>')
    // what already resolves right under the rewritten bases is kept as written: CDATA,
    // whitespace, `..` through the CDN's folders, the `&amp;` of a query
    expect(rewritten).toContain('<BaseURL><![CDATA[dash/]]></BaseURL>')
    expect(rewritten).toContain('<BaseURL>\n          video/\n        </BaseURL>')
    expect(rewritten).toContain(
      'media="../../dash/video/$RepresentationID$_$Number$.m4s?v=1&amp;w=2"',
    )
    expect(rewritten).toContain('media="$RepresentationID$/seg_$Number%05d$.m4s"/>')
    // absolute on either CDN host, with the upstream's token pair: relative to its base
    expect(rewritten).toContain('<BaseURL>./</BaseURL>')
    expect(rewritten).toContain('initialization="init-$Bandwidth$.mp4"')
    expect(rewritten).toContain('<SegmentURL media="a_2.m4s"/>')
    expect(rewritten).toContain('<SegmentURL media="a_3.m4s?t=3&amp;u=4"/>')
    // another host's URL, comments, namespaces, DRM data: as they were
    expect(rewritten).toContain('<SegmentURL media="https://ads.example.net/a_4.m4s"/>')
    expect(rewritten.startsWith(NESTED.slice(0, NESTED.indexOf('<BaseURL')))).toBe(true)
    expect(rewritten).not.toContain('Upstr3am')
  })

  it('serves a Representation that is one file (SegmentBase), its index and init ranges', () => {
    const text = `<MPD type="static" mediaPresentationDuration="PT80S">
  <Period>
    <AdaptationSet mimeType="video/mp4">
      <Representation id="v0" bandwidth="60000">
        <BaseURL>https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999/ondemand/v0.mp4</BaseURL>
        <SegmentBase indexRange="821-1020"><Initialization sourceURL="v0-init.mp4" range="0-820"/></SegmentBase>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>`
    const rewritten = checked(text)
    expect(rewritten).toContain('<BaseURL>../ondemand/v0.mp4</BaseURL>')
    expect(rewritten).toContain('<Initialization sourceURL="v0-init.mp4" range="0-820"/>')
  })
})

describe('sessionMpd where the CDN’s token folders and the session’s differ (checked with mpd-parser)', () => {
  const mpd = (base: string, media: string) => `<MPD type="static" mediaPresentationDuration="PT4S">
  <BaseURL>${base}</BaseURL>
  <Period><AdaptationSet mimeType="video/mp4"><Representation id="v0" bandwidth="1">
    <SegmentList duration="2"><SegmentURL media="${media}"/><SegmentURL media="b.m4s"/></SegmentList>
  </Representation></AdaptationSet></Period>
</MPD>`

  it('drops a token pair a relative URL carries below a BaseURL without one', () => {
    const rewritten = checked(mpd('/videos/12345_demo/', 'Upstr3am/1799999999/dash/a.m4s'))
    expect(rewritten).toContain('<SegmentURL media="dash/a.m4s"/>')
    expect(rewritten).toContain('<SegmentURL media="b.m4s"/>')
  })

  it('never writes its own token: a URL that climbs into the upstream URL’s pair is not the video’s', () => {
    const text = `<MPD><Period><AdaptationSet><Representation id="r" bandwidth="1">
  <SegmentList duration="2"><Initialization sourceURL="../dash/init-0.m4s"/><SegmentURL media="dash/a.m4s"/></SegmentList>
</Representation></AdaptationSet></Period></MPD>`
    const rewritten = sessionMpd(text, origin('climb.mpd'))
    expect(rewritten).not.toContain('Tok3n_x')
    expect(rewritten).toContain('sourceURL="../dash/init-0.m4s"')
    expect(rewritten).toContain('media="dash/a.m4s"')
  })

  it('takes a pair with no folder after it for a file of that name', () => {
    const base = 'https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999'
    const rewritten = checked(mpd(base, 'a.m4s'), 'manifest.mpd')
    expect(rewritten).toContain('<BaseURL>Upstr3am/1799999999</BaseURL>')
    expect(rewritten).toContain('<SegmentURL media="a.m4s"/>')
  })

  it('writes CRLF documents and characters outside the BMP without moving a byte', () => {
    const text = mpd(`${UPSTREAM_BASE}dash/`, 'a.m4s')
      .replaceAll('\n', '\r\n')
      .replace('<Period>', '<!-- 🎬 ok -->\r\n  <Period>')
    expect(checked(text)).toBe(text.replace(`${UPSTREAM_BASE}dash/`, './'))
  })
})

describe('sessionMpd on the URLs the oracle does not read', () => {
  const rewrite = (text: string) => sessionMpd(text, origin('dash/manifest.mpd'))
  const cdn = 'https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999'

  it('reads past a byte order mark, the XML declaration and processing instructions', () => {
    const text = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet href="mpd.xsl"?>\n<MPD><BaseURL>${cdn}/dash/</BaseURL><?packager v=1?></MPD>\n`
    expect(rewrite(text)).toBe(text.replace(`${cdn}/dash/`, './'))
  })

  it('points Location and PatchLocation at the session’s MPD and patch', () => {
    const text = `<MPD type="dynamic">
  <Location>${cdn}/dash/manifest.mpd</Location>
  <PatchLocation ttl="60">${cdn}/dash/patch.mpp?publishTime=2026-11-26T07%3A00%3A00Z</PatchLocation>
  <Location>https://mirror.example.net/dash/manifest.mpd</Location>
  <Period/>
</MPD>`
    expect(rewrite(text)).toBe(`<MPD type="dynamic">
  <Location>manifest.mpd</Location>
  <PatchLocation ttl="60">patch.mpp?publishTime=2026-11-26T07%3A00%3A00Z</PatchLocation>
  <Location>https://mirror.example.net/dash/manifest.mpd</Location>
  <Period/>
</MPD>`)
  })

  it('rewrites index, bitstream switching and representation index URLs', () => {
    const text = `<MPD><Period><AdaptationSet><Representation id="r1" bandwidth="1">
  <SegmentTemplate media="$RepresentationID$/$Number$.m4s" index="${cdn}/dash/$RepresentationID$/index.sidx" bitstreamSwitching='/videos/12345_demo/dash/bss.mp4'>
    <RepresentationIndex sourceURL="/videos/12345_demo/dash/r1/index.sidx"/>
    <BitstreamSwitching sourceURL="${cdn}/dash/bss.mp4"/>
  </SegmentTemplate>
  <SegmentList><SegmentURL media="s1.m4s" index="${cdn}/dash/s1.sidx"/></SegmentList>
</Representation></AdaptationSet></Period></MPD>`
    expect(rewrite(text)).toBe(`<MPD><Period><AdaptationSet><Representation id="r1" bandwidth="1">
  <SegmentTemplate media="$RepresentationID$/$Number$.m4s" index="$RepresentationID$/index.sidx" bitstreamSwitching='bss.mp4'>
    <RepresentationIndex sourceURL="r1/index.sidx"/>
    <BitstreamSwitching sourceURL="bss.mp4"/>
  </SegmentTemplate>
  <SegmentList><SegmentURL media="s1.m4s" index="s1.sidx"/></SegmentList>
</Representation></AdaptationSet></Period></MPD>`)
  })

  it('reads the MPD namespace under any prefix, and nothing of other namespaces', () => {
    const text = `<dash:MPD xmlns:dash="urn:mpeg:dash:schema:mpd:2011" xmlns:x="urn:example:x">
  <dash:BaseURL>${cdn}/dash/</dash:BaseURL>
  <x:BaseURL>${cdn}/dash/</x:BaseURL>
  <BaseURL>${cdn}/dash/</BaseURL>
  <dash:Period/>
</dash:MPD>`
    expect(rewrite(text)).toBe(text.replace(`<dash:BaseURL>${cdn}/dash/`, '<dash:BaseURL>./'))
  })

  it('escapes what it writes for the quotes around it', () => {
    const text = `<MPD><Period><AdaptationSet><Representation id="r" bandwidth="1"><SegmentList>
  <SegmentURL media='${cdn}/dash/a.m4s?q=&apos;x&apos;&amp;r="y"'/>
</SegmentList></Representation></AdaptationSet></Period></MPD>`
    const rewritten = rewrite(text)
    expect(rewritten).toContain(`<SegmentURL media='a.m4s?q=%27x%27&amp;r=%22y%22'/>`)
  })

  it('keeps templates the session cannot serve, and URLs that are not http', () => {
    const text = `<MPD><Period><AdaptationSet><Representation id="r" bandwidth="1">
  <SegmentTemplate media="/videos/12345_demo/dash/cost$$$Number$.m4s" initialization="data:video/mp4;base64,AAAA"/>
</Representation></AdaptationSet></Period></MPD>`
    expect(rewrite(text)).toBe(text)
  })

  it('refuses a URL of the video below a BaseURL on another host (nothing relative reaches the session)', () => {
    const text = `<MPD><BaseURL>https://mirror.example.net/x/</BaseURL><Period><AdaptationSet>
  <Representation id="r" bandwidth="1"><SegmentList><SegmentURL media="${cdn}/dash/a.m4s"/></SegmentList></Representation>
</AdaptationSet></Period></MPD>`
    expect(() => rewrite(text)).toThrowError(
      expect.objectContaining({ status: 502, problem: 'unservable' }),
    )
  })

  it('reaches a file from BaseURL alternatives of different folders through the session’s folder', () => {
    const text = `<MPD type="static" mediaPresentationDuration="PT2S">
  <BaseURL>${cdn}/dash/</BaseURL><BaseURL>https://cdn-ip.example.com/videos/12345_demo/backup/</BaseURL>
  <Period><AdaptationSet mimeType="video/mp4"><Representation id="r" bandwidth="1">
    <SegmentList duration="2"><Initialization sourceURL="/videos/12345_demo/dash/init.mp4"/><SegmentURL media="a.m4s"/></SegmentList>
  </Representation></AdaptationSet></Period>
</MPD>`
    const rewritten = sessionMpd(text, origin('dash/manifest.mpd'))
    expect(rewritten).toBe(
      text
        .replace(`${cdn}/dash/`, './')
        .replace('https://cdn-ip.example.com/videos/12345_demo/backup/', '../backup/')
        .replace('/videos/12345_demo/dash/init.mp4', '../dash/init.mp4'),
    )
    const session = resolvedUrls(rewritten, `${SESSION_BASE}dash/manifest.mpd`).map(
      ({ url }) => url,
    )
    expect(session).toEqual([
      `${SESSION_BASE}dash/init.mp4`,
      `${SESSION_BASE}dash/a.m4s`,
      `${SESSION_BASE}dash/init.mp4`,
      `${SESSION_BASE}backup/a.m4s`,
    ])
  })

  it('rewrites for the session a URL whose BaseURL alternatives include another host', () => {
    const text = `<MPD><BaseURL>${cdn}/dash/</BaseURL><BaseURL>https://mirror.example.net/dash/</BaseURL>
<Period><AdaptationSet><Representation id="r" bandwidth="1">
  <SegmentTemplate media="$Number$.m4s" initialization="/videos/12345_demo/dash/init.mp4"/>
</Representation></AdaptationSet></Period></MPD>`
    expect(rewrite(text)).toBe(
      text
        .replace(`<BaseURL>${cdn}/dash/`, '<BaseURL>./')
        .replace('"/videos/12345_demo/dash/init.mp4"', '"init.mp4"'),
    )
  })
})

describe('sessionMpd given the session’s own URL', () => {
  const cdn = 'https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999'
  const at = (rest: string) => ({ ...origin(rest), session: `${SESSION_BASE}${rest}` })

  it('writes a root-relative reference where BaseURLs of different depths share a URL', () => {
    const text = `<MPD type="static" mediaPresentationDuration="PT2S">
  <BaseURL>${cdn}/dash/</BaseURL><BaseURL>${cdn}/dash/deeper/</BaseURL>
  <Period><AdaptationSet mimeType="video/mp4"><Representation id="r" bandwidth="1">
    <SegmentList duration="2"><Initialization sourceURL="${cdn}/dash/init.mp4"/><SegmentURL media="a.m4s"/></SegmentList>
  </Representation></AdaptationSet></Period>
</MPD>`
    expect(() => sessionMpd(text, origin('dash/manifest.mpd'))).toThrowError(
      expect.objectContaining({ problem: 'unservable' }),
    )
    const rewritten = checked(text, 'dash/manifest.mpd', `${SESSION_BASE}dash/manifest.mpd`)
    expect(rewritten).toContain('sourceURL="/s/demo/eyJ.abc.def/dash/init.mp4"')
  })

  it('writes an absolute reference for a file of the video below another host’s BaseURL', () => {
    const text = `<MPD type="static" mediaPresentationDuration="PT2S"><BaseURL>https://mirror.example.net/x/</BaseURL>
<Period><AdaptationSet mimeType="video/mp4"><Representation id="r" bandwidth="1">
  <SegmentList duration="2"><SegmentURL media="${cdn}/dash/a.m4s"/><SegmentURL media="b.m4s"/></SegmentList>
</Representation></AdaptationSet></Period></MPD>`
    const rewritten = sessionMpd(text, at('dash/manifest.mpd'))
    expect(rewritten).toBe(text.replace(`${cdn}/dash/a.m4s`, `${SESSION_BASE}dash/a.m4s`))
  })

  it('refuses a session URL that is not the MPD’s', () => {
    expect(() =>
      sessionMpd('<MPD/>', { ...origin('dash/manifest.mpd'), session: `${SESSION_BASE}x.mpd` }),
    ).toThrowError(TypeError)
  })
})
