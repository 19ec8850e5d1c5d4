import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { VOD_MEDIA_DIR } from '@proj/cdn-emulator/media'
import { MpdError, sessionMpd, sessionPlaylist } from '@proj/token-backend'
import { Bench } from 'tinybench'
import { median, quick, report, stamp, table } from '../report.ts'
import { wranglerBuild } from './wrangler-build.ts'

// The session lane's MPD rewrite (issue 32) against the HLS playlist rewrite in the same run,
// the time the largest and the hostile MPDs take (the limits bound it), and the XML parser's
// share of the deployable bundle (the session lane rewrites MPDs: the parser is in it).
const time = Number(process.env.BENCH_MS ?? (quick ? 100 : 1000))
const RUNS = quick ? 1 : 5
const media = VOD_MEDIA_DIR
const mpds = join(import.meta.dirname, '../../packages/token-backend/test/mpd')
const read = (path: string) => readFileSync(path, 'utf8')
const cdn = 'https://cdn.example.com/videos/12345_demo/Upstr3am/1799999999'
const origin = (rest: string) => ({
  upstream: `https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/${rest}`,
  cdnHosts: ['cdn.example.com'],
  directory: '/videos/12345_demo/',
  rest,
})

const vod = read(join(mpds, 'ffmpeg-vod.mpd'))
// as a packager writing absolute URLs with its own token pair writes it: every URL rewritten
const absolute = vod
  .replace('\t<Period', `\t<BaseURL>${cdn}/dash/</BaseURL>\n\t<Period`)
  .replaceAll('initialization="', `initialization="${cdn}/dash/`)
  .replaceAll(' media="', ` media="${cdn}/dash/`)
const segmentList = (representations: number, segments: number) =>
  `<MPD type="static" mediaPresentationDuration="PT${segments * 2}S"><Period><AdaptationSet mimeType="video/mp4">\n${Array.from(
    { length: representations },
    (_, r) =>
      `<Representation id="v${r}" bandwidth="${r + 1}000"><SegmentList timescale="1" duration="2">\n<Initialization sourceURL="${cdn}/dash/v${r}/init.mp4"/>\n${Array.from(
        { length: segments },
        (_, s) => `<SegmentURL media="${cdn}/dash/v${r}/seg_${s}.m4s"/>`,
      ).join('\n')}\n</SegmentList></Representation>`,
  ).join('\n')}\n</AdaptationSet></Period></MPD>\n`
const list = segmentList(3, 40)

const bench = new Bench({ time })
const texts = {
  master: read(join(media, 'master.m3u8')),
  media: read(join(media, 'v1', 'index.m3u8')),
  live: read(join(mpds, 'ffmpeg-live.mpd')),
}
bench
  .add('HLS master playlist (2 variants): the baseline', () => {
    sessionPlaylist(texts.master, origin('master.m3u8'))
  })
  .add('HLS media playlist (40 segments + key)', () => {
    sessionPlaylist(texts.media, origin('v1/index.m3u8'))
  })
  .add('MPD: ffmpeg’s 80-s VOD (3 Representations, $Number$), kept byte for byte', () => {
    sessionMpd(vod, origin('dash/manifest.mpd'))
  })
  .add('MPD: the same VOD with absolute URLs and token pairs (all 7 rewritten)', () => {
    sessionMpd(absolute, origin('dash/manifest.mpd'))
  })
  .add('MPD: ffmpeg’s live window (SegmentTimeline, $Time$), kept', () => {
    sessionMpd(texts.live, origin('dash/manifest.mpd'))
  })
  .add('MPD: SegmentList, 3 × (init + 40 absolute URLs), all 123 rewritten', () => {
    sessionMpd(list, origin('dash/manifest.mpd'))
  })
await bench.run()

const meanUs = (task: (typeof bench.tasks)[number]) => {
  const result = task.result
  if (!result || !('latency' in result)) throw new Error(`${task.name} did not complete`)
  return result.latency.mean * 1000
}
const base = meanUs(bench.tasks[0] as (typeof bench.tasks)[number])
const rewrites = bench.tasks.map((task) => [
  task.name,
  meanUs(task).toFixed(1),
  `${(meanUs(task) / base).toFixed(1)}×`,
])

// ── bounded: the largest MPD the limits admit, and hostile ones ───────────────────────────────
const msOf = (call: () => unknown) => {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    try {
      call()
    } catch (error) {
      if (!(error instanceof MpdError)) throw error
    }
    times.push(performance.now() - start)
  }
  return median(times)
}
const fill = (unit: string, room = 8 * 1024 * 1024 - 200) => Math.floor(room / (unit.length + 1))
const relativeUrl = '<SegmentURL media="seg_00000.m4s"/>'
const absoluteUrl = `<SegmentURL media="${cdn}/dash/v0/seg_00000.m4s"/>`
const largest = (url: string) =>
  `<MPD><Period><AdaptationSet><Representation id="v0" bandwidth="1"><SegmentList>\n${`${url}\n`.repeat(fill(url))}</SegmentList></Representation></AdaptationSet></Period></MPD>`
const thousands = (url: string) => `${Math.round(fill(url) / 1000)} k`
const laughs = `<!DOCTYPE MPD [<!ENTITY a "${'x'.repeat(100)}">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i === 0 ? 'a' : 'b'.repeat(i)};`.repeat(10)}">`).join('')}]><MPD>&bbbbbbbbb;</MPD>`
const hostile = [
  [`8 MiB MPD, ${thousands(relativeUrl)} relative SegmentURLs (kept)`, largest(relativeUrl)],
  [
    `8 MiB MPD, ${thousands(absoluteUrl)} absolute SegmentURLs (each rewritten)`,
    largest(absoluteUrl),
  ],
  ['billion laughs (refused at its DOCTYPE)', laughs],
  [
    '100,000 nested elements (refused at depth 33)',
    `<MPD>${'<x>'.repeat(100_000)}${'</x>'.repeat(100_000)}</MPD>`,
  ],
  ['a 4-MiB attribute (refused at its end)', `<MPD a="${'x'.repeat(4 * 1024 * 1024)}"/>`],
  ['8 MiB + 1 character (refused before reading)', `<MPD>${' '.repeat(8 * 1024 * 1024)}</MPD>`],
] as const
const bounded = hostile.map(([name, text]) => [
  name,
  msOf(() => sessionMpd(text, origin('dash/manifest.mpd'))).toFixed(1),
])

// ── the deployable bundle: the XML parser's share ──────────────────────────────────────────────
const out = mkdtempSync(join(tmpdir(), 'mpd-bench-'))
let sizes: string[][]
let parser: string
try {
  const after = wranglerBuild(join(out, 'token'))
  const kib = (bytes: number) => (bytes / 1024).toFixed(1)
  const gz = (script: string) => kib(gzipSync(script).length)
  sizes = [
    [
      'token worker (`wrangler deploy` bundle), MPD rewriter included',
      kib(after.bytes),
      gz(after.script),
    ],
  ]
  parser = ['saxes', 'xmlchars']
    .map((name) => `${name} ${kib(after.byPackage.get(name) ?? 0)} KiB`)
    .join(', ')
} finally {
  rmSync(out, { recursive: true, force: true })
}

report(
  'mpd',
  `${stamp(`tinybench, ${time} ms per task; the bounded cases ${RUNS === 1 ? 'once' : `median of ${RUNS}`}; bundles by \`wrangler deploy --dry-run\` (minified, as wrangler.jsonc says)`)}

Rewrite per request (parse, resolve every URL against its BaseURLs, splice the new
references in), the HLS playlist rewrite as the baseline:

${table(['document', 'µs per rewrite', 'vs HLS master'], rewrites)}

The longest an MPD takes, bounded by the limits (8 MiB, depth 32, attributes 64 KiB, URLs 4 KiB,
16 BaseURL combinations; ms, one call):

${table(['MPD', 'ms'], bounded)}

The deployable bundle:

${table(['worker', 'minified KiB', 'gzip KiB'], sizes)}

The parser's share of it: ${parser} (before the rewriter: 104.5 KiB minified, 37.2 KiB gzip,
measured when it was added).`,
)
