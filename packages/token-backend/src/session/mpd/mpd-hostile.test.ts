import { describe, expect, it } from 'vitest'
import { MpdError, type MpdProblem } from './mpd-error.ts'
import { MPD_LIMITS } from './mpd-limits.ts'
import { sessionMpd } from './session-mpd.ts'

// Hostile MPDs: each is refused with an MpdError (an HTTP 502 `{error}`) naming the problem, and
// the call returns (how fast is bench/token-worker/mpd.ts's business, not a unit test's).
const origin = {
  upstream: 'https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/dash/manifest.mpd',
  cdnHosts: ['cdn.example.com'],
  directory: '/videos/12345_demo/',
  rest: 'dash/manifest.mpd',
}
const cdn = 'https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999'

const refusal = (text: string, limits = MPD_LIMITS): MpdError => {
  try {
    sessionMpd(text, origin, limits)
  } catch (error) {
    if (error instanceof MpdError) return error
    throw error
  }
  throw new Error('the MPD was accepted')
}
const expectRefused = (text: string, problem: MpdProblem, message: RegExp) => {
  const error = refusal(text)
  expect(error.problem).toBe(problem)
  expect(error.status).toBe(502)
  expect(error.message).toMatch(message)
  // the `{error}` body never carries a URL of the document (it may hold a CDN token)
  expect(error.message).not.toContain('Upstr3am')
}

const LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE MPD [
  <!ENTITY lol "lol">
${Array.from({ length: 9 }, (_, i) => `  <!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n')}
]>
<MPD><BaseURL>&lol9;</BaseURL><Period/></MPD>`

describe('sessionMpd refuses hostile MPDs', () => {
  it('a DOCTYPE: billion laughs, external entities, an external DTD (no entity expanded, nothing fetched)', () => {
    expectRefused(LAUGHS, 'doctype', /DOCTYPE/)
    expectRefused(
      `<!DOCTYPE MPD [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><MPD><BaseURL>&xxe;</BaseURL></MPD>`,
      'doctype',
      /DOCTYPE/,
    )
    expectRefused(
      `<!DOCTYPE MPD SYSTEM "https://evil.example.net/mpd.dtd"><MPD><Period/></MPD>`,
      'doctype',
      /DOCTYPE/,
    )
    expectRefused(
      `<!DOCTYPE MPD [<!ENTITY % p SYSTEM "https://evil.example.net/p.dtd"> %p;]><MPD/>`,
      'doctype',
      /DOCTYPE/,
    )
  })

  it('an entity reference without a declaration', () => {
    expectRefused(`<MPD><BaseURL>${cdn}/&xxe;/</BaseURL></MPD>`, 'syntax', /undefined entity/)
  })

  it('huge attributes, of any name, and URLs longer than a session path', () => {
    expectRefused(`<MPD note="${'x'.repeat(1_000_000)}"><Period/></MPD>`, 'attribute', /note/)
    expectRefused(
      `<MPD><Period><AdaptationSet><Representation><SegmentList><SegmentURL media="${'a/'.repeat(3000)}s.m4s"/></SegmentList></Representation></AdaptationSet></Period></MPD>`,
      'url',
      /SegmentURL@media/,
    )
    expectRefused(`<MPD><BaseURL>${'a'.repeat(5000)}/</BaseURL></MPD>`, 'url', /BaseURL/)
  })

  it('deep nesting', () => {
    const depth = 100_000
    expectRefused(
      `<MPD>${'<x>'.repeat(depth)}${'</x>'.repeat(depth)}</MPD>`,
      'depth',
      /deeper than 32/,
    )
  })

  it('a huge document, before reading it', () => {
    expectRefused(
      `<MPD>${' '.repeat(MPD_LIMITS.maxLength)}</MPD>`,
      'size',
      /longer than 8388608 characters/,
    )
    const small = { ...MPD_LIMITS, maxLength: 100 }
    expect(refusal(`<MPD><Period>${'<!-- -->'.repeat(20)}</Period></MPD>`, small).problem).toBe(
      'size',
    )
  })

  it('BaseURL alternatives that multiply past the bound', () => {
    const five = Array.from({ length: 5 }, (_, i) => `<BaseURL>a${i}/</BaseURL>`).join('')
    expectRefused(
      `<MPD>${five}<Period>${five}<AdaptationSet/></Period></MPD>`,
      'bases',
      /more than 16/,
    )
  })

  it('what is not an MPD, or not well-formed', () => {
    expectRefused('#EXTM3U\n#EXT-X-VERSION:3\n', 'syntax', /not well-formed/)
    expectRefused('', 'syntax', /root element/)
    expectRefused('<html><body/></html>', 'not-mpd', /<html>/)
    expect(refusal(`<${'x'.repeat(100_000)}/>`).message.length).toBeLessThan(200)
    const long = `<MPD><${'y'.repeat(100_000)}></MPD>`
    expect(refusal(long).message).toMatch(
      /^the CDN's MPD cannot be served: not well-formed XML: .{1,120}$/,
    )
    expectRefused('<MPD><Period></MPD>', 'syntax', /not well-formed/)
    expectRefused('<MPD><BaseURL a=1>x</BaseURL></MPD>', 'syntax', /not well-formed/)
    expectRefused('<MPD><BaseURL>a<b/></BaseURL></MPD>', 'syntax', /a URL is text/)
    expectRefused('<MPD/><MPD/>', 'syntax', /not well-formed/)
  })

  it('many attributes on one element and many elements are read in one pass', () => {
    const attributes = Array.from({ length: 50_000 }, (_, i) => `a${i}="1"`).join(' ')
    const elements = `<SegmentURL media="${cdn}/dash/s.m4s"/>`.repeat(20_000)
    const text = `<MPD ${attributes}><Period><AdaptationSet><Representation id="r" bandwidth="1"><SegmentList>${elements}</SegmentList></Representation></AdaptationSet></Period></MPD>`
    const rewritten = sessionMpd(text, origin)
    expect(rewritten.match(/<SegmentURL media="s.m4s"\/>/g)).toHaveLength(20_000)
  })
})
