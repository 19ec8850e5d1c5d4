import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resolvedUrls, withoutUrls } from '../../../test/mpd-oracle.ts'
import { sessionMpd } from './session-mpd.ts'

// Generated MPDs (nested BaseURLs and their alternatives, templates with $Number$, $Time$,
// $RepresentationID$, $Bandwidth$ and format tags, SegmentList, every form of URL, foreign
// hosts, namespaces, comments, CDATA): mpd-parser (VHS's parser) resolves every segment before,
// from the CDN, and after, from the session.
const UPSTREAM_BASE = 'https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/'
const SESSION_BASE = 'https://tokens.example.com/s/demo/eyJ.abc.def/'
const CDN_HOSTS = ['cdn.example.com', 'cdn-ip.example.com']
const PAIRS = ['Upstr3am/1799999999/', 'Other_7/1800000123/']
const INSIDE = /^\/videos\/12345_demo\/(?:[A-Za-z0-9_-]{6,}\/[1-9]\d{9,}\/)?(.*)$/

/** How a URL is written: relative, up a folder, root-relative, absolute, or elsewhere. */
interface Form {
  kind: 'relative' | 'up' | 'rooted' | 'absolute' | 'foreign' | 'other-video'
  host: string
  pair: string
}
const render = ({ kind, host, pair }: Form, path: string): string => {
  switch (kind) {
    case 'relative':
      return path
    case 'up':
      return `../${path}`
    case 'rooted':
      return `/videos/12345_demo/${pair}${path}`
    case 'absolute':
      return `https://${host}/videos/12345_demo/${pair}${path}`
    case 'foreign':
      return `https://ads.example.net/${path}`
    case 'other-video':
      return `https://cdn.example.com/videos/12345_other/${PAIRS[0]}${path}`
  }
}
const formOf = (kinds: Form['kind'][]) =>
  fc.record({
    kind: fc.constantFrom(...kinds),
    host: fc.constantFrom(...CDN_HOSTS),
    pair: fc.constantFrom('', ...PAIRS),
  })
const ours = formOf(['relative', 'relative', 'rooted', 'absolute'])
const any = formOf(['relative', 'rooted', 'absolute', 'foreign', 'other-video'])
// `../` only where it cannot climb into the CDN's token folders (which the session has not):
// from an MPD one folder below the video's, at its top level
const upward = formOf(['relative', 'up', 'up', 'rooted', 'absolute'])

/** One or two BaseURL alternatives of one folder (another host's only as the second). */
const baseUrlsOf = (first: fc.Arbitrary<Form>) =>
  fc.oneof(
    fc.constant(undefined),
    fc.record({
      forms: fc.oneof(fc.tuple(first), fc.tuple(first, any)),
      folder: fc.constantFrom('dash/', 'video/', 'v1/', 'en/'),
      dress: fc.constantFrom('plain', 'cdata', 'spaces', 'comment'),
    }),
  )
const baseUrls = baseUrlsOf(ours)
type Bases = typeof baseUrls extends fc.Arbitrary<infer T> ? T : never
const renderBases = (bases: Bases, indent: string): string =>
  bases === undefined
    ? ''
    : bases.forms
        .map((form) => {
          const url = render(form, bases.folder)
          const text = {
            plain: url,
            cdata: `<![CDATA[${url}]]>`,
            spaces: `\n${indent}  ${url}\n${indent}`,
            comment: `<!-- alternative -->${url}`,
          }[bases.dress]
          return `${indent}<BaseURL>${text}</BaseURL>\n`
        })
        .join('')

const query = fc.constantFrom('', '', '?a=1&amp;b=2')
const numberName = fc.constantFrom(
  'seg_$Number$.m4s',
  '$RepresentationID$/seg_$Number%05d$.m4s',
  '$Bandwidth$_$Number$.m4s',
  '$RepresentationID$_$Number%03d$.m4s',
)
const initName = fc.constantFrom('init_$RepresentationID$.mp4', '$Bandwidth$/init.mp4')
const template = fc.record({ media: any, name: numberName, init: ours, initName, query })

const templated = [
  fc.record({ kind: fc.constant('inherit' as const) }),
  fc.record({ kind: fc.constant('number' as const), template }),
  fc.record({
    kind: fc.constant('time' as const),
    media: any,
    name: fc.constantFrom('t_$Time$.m4s', '$RepresentationID$/t_$Time$.m4s'),
    init: ours,
  }),
]
const listed = fc.record({
  kind: fc.constant('list' as const),
  init: any,
  segments: fc.array(fc.tuple(any, query), { minLength: 3, maxLength: 3 }),
})
// below an AdaptationSet's SegmentTemplate a SegmentList is no alternative (mpd-parser, like
// the standard, takes the template)
const representationOf = (withTemplate: boolean) =>
  fc.record({
    bases: baseUrls,
    info: withTemplate ? fc.oneof(...templated) : fc.oneof(...templated, listed),
  })
const adaptationSet = fc.option(template, { nil: undefined }).chain((setTemplate) =>
  fc.record({
    bases: baseUrls,
    template: fc.constant(setTemplate),
    protection: fc.boolean(),
    representations: fc.array(representationOf(setTemplate !== undefined), {
      minLength: 1,
      maxLength: 2,
    }),
  }),
)
const period = fc.record({
  bases: baseUrls,
  sets: fc.array(adaptationSet, { minLength: 1, maxLength: 2 }),
})
const mpd = fc.constantFrom('manifest.mpd', 'dash/manifest.mpd').chain((rest) =>
  fc.record({
    rest: fc.constant(rest),
    bases: rest.includes('/') ? baseUrlsOf(upward) : baseUrls,
    location: fc.option(ours, { nil: undefined }),
    comments: fc.boolean(),
    periods: fc.array(period, { minLength: 1, maxLength: 2 }),
  }),
)
type Mpd = typeof mpd extends fc.Arbitrary<infer T> ? T : never
type Template = typeof template extends fc.Arbitrary<infer T> ? T : never

const renderTemplate = (t: Template, indent: string) =>
  `${indent}<SegmentTemplate timescale="1" duration="2" startNumber="1" media="${render(t.media, t.name)}${t.query}" initialization="${render(t.init, t.initName)}"/>\n`

/** The MPD as a packager would write it: 6 s per Period, 2-s segments. */
function write(m: Mpd): string {
  const note = (indent: string) => (m.comments ? `${indent}<!-- packager note -->\n` : '')
  let id = 0
  const periods = m.periods.map((p, pi) => {
    const sets = p.sets.map((set) => {
      const reps = set.representations.map((r) => {
        id++
        const info = r.info.kind === 'inherit' && set.template === undefined ? undefined : r.info
        let body = ''
        if (info === undefined)
          body = `          <SegmentTemplate timescale="1" duration="2" media="s_$Number$.m4s"/>\n`
        else if (info.kind === 'number') body = renderTemplate(info.template, '          ')
        else if (info.kind === 'time')
          body = `          <SegmentTemplate timescale="1" media="${render(info.media, info.name)}" initialization="${render(info.init, 'init.mp4')}">
            <SegmentTimeline><S t="0" d="2" r="2"/></SegmentTimeline>
          </SegmentTemplate>\n`
        else if (info.kind === 'list')
          body = `          <SegmentList timescale="1" duration="2">
            <Initialization sourceURL="${render(info.init, 'init.mp4')}"/>
${info.segments.map(([form, q], i) => `            <SegmentURL media="${render(form, `part_${i}.m4s`)}${q}"/>`).join('\n')}
          </SegmentList>\n`
        return `        <Representation id="r${id}" bandwidth="${id * 1000}" width="256" height="144">
${renderBases(r.bases, '          ')}${body}        </Representation>\n`
      })
      const protection = set.protection
        ? `        <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="10000000-1000-1000-1000-100000000001"/>
        <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"><cenc:pssh>AAAAAA==</cenc:pssh></ContentProtection>\n`
        : ''
      return `      <AdaptationSet mimeType="video/mp4" codecs="avc1.42c01e">
${protection}${renderBases(set.bases, '        ')}${set.template ? renderTemplate(set.template, '        ') : ''}${note('        ')}${reps.join('')}      </AdaptationSet>\n`
    })
    return `  <Period id="p${pi}" start="PT${pi * 6}S" duration="PT6S">
${renderBases(p.bases, '    ')}${sets.join('')}  </Period>\n`
  })
  const folder = m.rest.slice(0, m.rest.lastIndexOf('/') + 1)
  const location = m.location
    ? `  <Location>${render(m.location, `${folder}manifest.mpd`)}</Location>\n`
    : ''
  return `<?xml version="1.0" encoding="utf-8"?>
${note('')}<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:cenc="urn:mpeg:cenc:2013"
  type="static" mediaPresentationDuration="PT${m.periods.length * 6}S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
${location}${renderBases(m.bases, '  ')}${note('  ')}${periods.join('')}</MPD>
`
}

/** What a URL of the upstream MPD names under the session, when it is a file of the video. */
const onSession = (url: string): string | undefined => {
  const parsed = new URL(url)
  const inside = INSIDE.exec(parsed.pathname)?.[1]
  if (!CDN_HOSTS.includes(parsed.host) || inside === undefined) return undefined
  return `${SESSION_BASE}${inside}${parsed.search}`
}

/** The rewrite of `text` against mpd-parser: what the session serves, and nothing else changed. */
function check(text: string, rewritten: string, rest: string) {
  const before = resolvedUrls(text, `${UPSTREAM_BASE}${rest}`)
  const after = resolvedUrls(rewritten, `${SESSION_BASE}${rest}`)
  expect(after).toHaveLength(before.length)
  before.forEach(({ url }, i) => {
    const { url: now = '', base = '' } = after[i] ?? {}
    // never a URL of the video straight on the CDN
    expect(onSession(now)).toBeUndefined()
    // below another host's BaseURL alternative, what the session serves is not chosen
    if (!base.startsWith(SESSION_BASE)) return
    const session = onSession(url)
    if (session !== undefined) expect(now).toBe(session)
    // another host's or video's URL: as written, or somewhere on another host
    else if (now !== url) expect(CDN_HOSTS).not.toContain(new URL(now).host)
  })
  expect(withoutUrls(rewritten)).toBe(withoutUrls(text))
}

describe('sessionMpd on generated MPDs (checked with mpd-parser)', () => {
  it('every file of the video is the same file under the session; nothing else points at the CDN’s video; every other node intact', () => {
    let rewrites = 0
    let relativeOnly = 0
    fc.assert(
      fc.property(mpd, (m) => {
        const text = write(m)
        const origin = {
          upstream: `${UPSTREAM_BASE}${m.rest}`,
          cdnHosts: CDN_HOSTS,
          directory: '/videos/12345_demo/',
          rest: m.rest,
        }
        const rewritten = sessionMpd(text, { ...origin, session: `${SESSION_BASE}${m.rest}` })
        if (rewritten !== text) rewrites++
        check(text, rewritten, m.rest)
        // without the session's URL, only relative references: the same, or refused
        let relative: string
        try {
          relative = sessionMpd(text, origin)
        } catch (error) {
          expect(error).toMatchObject({ status: 502, problem: 'unservable' })
          return
        }
        relativeOnly++
        check(text, relative, m.rest)
        expect(relative).not.toContain(SESSION_BASE)
      }),
      { numRuns: 300 },
    )
    // the generator exercises rewriting, not only MPDs already right under the session
    expect(rewrites).toBeGreaterThan(200)
    expect(relativeOnly).toBeGreaterThan(150)
    // 600 rewrites and 1,200 oracle parses: about 2 s in workerd, more on a busy machine
  }, 30_000)
})
