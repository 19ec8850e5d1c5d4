import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { VOD_MEDIA_DIR } from '../media.ts'
import { liveDashSegment, liveMpd, readVodMpd } from './live-mpd.ts'
import { parseXml } from './xml-tree.ts'

const vod = readVodMpd(parseXml(readFileSync(join(VOD_MEDIA_DIR, 'manifest.mpd'), 'utf8')))
const at = (seconds: number) =>
  parseXml(
    liveMpd(vod, {
      epochMs: Date.UTC(2026, 0, 1),
      nowMs: Date.UTC(2026, 0, 1) + seconds * 1000,
      windowSeconds: 12,
    }),
  )
const find = (element: ReturnType<typeof parseXml>, name: string): ReturnType<typeof parseXml>[] =>
  element.children.flatMap((child) =>
    typeof child === 'string'
      ? []
      : [...(child.name === name ? [child] : []), ...find(child, name)],
  )

describe('readVodMpd', () => {
  it('reads the committed VOD: 40 segments of 2 s, three Representations', () => {
    expect(vod.segmentSeconds).toBe(2)
    expect(vod.count).toBe(40)
    expect([...vod.templates.keys()]).toEqual(['0', '1', '2'])
  })
})

describe('liveMpd', () => {
  it('is one dynamic Period on the epoch, its templates numbered from 0 beside the VOD segments', () => {
    const mpd = at(100)
    expect(mpd.attributes).toMatchObject({
      type: 'dynamic',
      availabilityStartTime: '2026-01-01T00:00:00.000Z',
      publishTime: '2026-01-01T00:01:40.000Z',
      timeShiftBufferDepth: 'PT12S',
      minimumUpdatePeriod: 'PT2S',
    })
    expect(mpd.attributes.mediaPresentationDuration).toBeUndefined()
    expect(find(mpd, 'Period')).toHaveLength(1)
    const templates = find(mpd, 'SegmentTemplate')
    expect(templates).toHaveLength(3)
    for (const template of templates)
      expect(template.attributes).toMatchObject({
        media: 'dash/live-$RepresentationID$-$Number$.m4s',
        initialization: 'dash/init-$RepresentationID$.m4s',
        startNumber: '0',
        duration: '2000000',
        timescale: '1000000',
      })
  })

  it('tells its clock directly (UTCTiming), so players need no extra request', () => {
    const [timing] = find(at(7), 'UTCTiming')
    expect(timing?.attributes).toEqual({
      schemeIdUri: 'urn:mpeg:dash:utc:direct:2014',
      value: '2026-01-01T00:00:07.000Z',
    })
  })
})

describe('liveDashSegment', () => {
  it('maps numbers onto the VOD, looping, each loop 80 s later', () => {
    expect(liveDashSegment(vod, 'dash/live-0-0.m4s')).toEqual({
      representation: '0',
      number: 0,
      vodPath: 'dash/chunk-0-001.m4s',
      initPath: 'dash/init-0.m4s',
      shiftSeconds: 0,
    })
    expect(liveDashSegment(vod, 'dash/live-2-39.m4s')?.vodPath).toBe('dash/chunk-2-040.m4s')
    expect(liveDashSegment(vod, 'dash/live-1-41.m4s')).toMatchObject({
      vodPath: 'dash/chunk-1-002.m4s',
      shiftSeconds: 80,
    })
    expect(liveDashSegment(vod, 'dash/live-1-400.m4s')?.shiftSeconds).toBe(800)
  })

  it('knows nothing else: other folders, names, Representations', () => {
    for (const path of [
      'live-0-3.m4s',
      'x/live-0-3.m4s',
      'dash/live-9-3.m4s',
      'dash/live-0-a.m4s',
      'dash/chunk-0-001.m4s',
    ])
      expect(liveDashSegment(vod, path), path).toBeUndefined()
  })
})
