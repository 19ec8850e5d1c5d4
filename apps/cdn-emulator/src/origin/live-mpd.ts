import { serializeXml, type XmlElement } from './xml-tree.ts'

/** What the origin needs of the VOD's MPD to loop it live. */
export interface VodMpd {
  /** The parsed VOD MPD (static, one Period, `SegmentTemplate` with `$Number$` and `@duration`). */
  document: XmlElement
  /** Seconds per segment, from the templates' `@duration` / `@timescale`. */
  segmentSeconds: number
  /** Segments per Representation. */
  count: number
  /** Representation id → its `SegmentTemplate` (media, initialization, startNumber). */
  templates: Map<string, { media: string; initialization: string; startNumber: number }>
}

/** Where a live DASH stream is, given the wall clock (as {@link LiveClock} for HLS). */
export interface LiveMpdClock {
  /** When segment 0 of the stream started (ms): the MPD's `availabilityStartTime`. */
  epochMs: number
  nowMs: number
  /** Seconds of the sliding window: `timeShiftBufferDepth`. */
  windowSeconds: number
}

// one URL per segment: $Number$ as the template writes it, without leading zeros
const LIVE_SEGMENT = /^live-([A-Za-z0-9_]+)-(0|[1-9]\d*)\.m4s$/
const elements = (parent: XmlElement, name: string) =>
  parent.children.filter(
    (child): child is XmlElement => typeof child !== 'string' && child.name === name,
  )

// xs:duration as ffmpeg writes it: PT1M20.0S
const seconds = (duration: string | undefined) => {
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(duration ?? '')
  if (!match) throw new Error(`live-mpd: not a duration: ${duration}`)
  const [, h = '0', m = '0', s = '0'] = match
  return Number(h) * 3600 + Number(m) * 60 + Number(s)
}

/**
 * Reads the VOD MPD the live stream loops (every Representation with its own `SegmentTemplate`,
 * as ffmpeg writes it).
 *
 * @example
 * ```ts
 * readVodMpd(parseXml(await readFile('media/vod/manifest.mpd', 'utf8')))
 * ```
 */
export function readVodMpd(document: XmlElement): VodMpd {
  const templates: VodMpd['templates'] = new Map()
  let segmentSeconds = 0
  for (const period of elements(document, 'Period'))
    for (const set of elements(period, 'AdaptationSet'))
      for (const representation of elements(set, 'Representation')) {
        const [template] = elements(representation, 'SegmentTemplate')
        const {
          media,
          initialization,
          duration,
          timescale = '1',
          startNumber = '1',
        } = template?.attributes ?? {}
        if (!media || !initialization || !duration || representation.attributes.id === undefined)
          throw new Error('live-mpd: every Representation needs a SegmentTemplate with @duration')
        segmentSeconds = Number(duration) / Number(timescale)
        templates.set(representation.attributes.id, {
          media,
          initialization,
          startNumber: Number(startNumber),
        })
      }
  const total = seconds(document.attributes.mediaPresentationDuration)
  return { document, segmentSeconds, count: Math.round(total / segmentSeconds), templates }
}

const iso = (ms: number) => new Date(ms).toISOString()
const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/') + 1)

/**
 * The live MPD: one `dynamic` Period whose `SegmentTemplate`s name `live-$RepresentationID$-$Number$.m4s`
 * beside the VOD's segments, numbered from 0 at `availabilityStartTime` (one per segment
 * duration, looping over the VOD forever: {@link liveDashSegment} maps a number back). The media
 * timeline never restarts (the origin moves each loop's `tfdt` on by the VOD's length), so it is
 * one Period, not one per loop. A direct `UTCTiming` carries the origin's clock: no extra request.
 *
 * @example
 * ```ts
 * liveMpd(vod, { epochMs, nowMs: Date.now(), windowSeconds: 12 })
 * ```
 */
export function liveMpd(vod: VodMpd, clock: LiveMpdClock): string {
  const segment = `PT${vod.segmentSeconds}S`
  const live = (element: XmlElement): XmlElement => {
    const attributes = { ...element.attributes }
    if (element.name === 'SegmentTemplate') {
      attributes.media = `${folderOf(attributes.media ?? '')}live-$RepresentationID$-$Number$.m4s`
      attributes.startNumber = '0'
    }
    if (element.name === 'Period') {
      attributes.id = 'live'
      attributes.start = 'PT0S'
    }
    const children = element.children.filter(
      (child) =>
        typeof child === 'string' ||
        !['ProgramInformation', 'ServiceDescription'].includes(child.name),
    )
    return {
      name: element.name,
      attributes,
      children: children.map((child) => (typeof child === 'string' ? child : live(child))),
    }
  }
  const root = live(vod.document)
  const { mediaPresentationDuration: _, ...kept } = root.attributes
  root.attributes = {
    ...kept,
    type: 'dynamic',
    availabilityStartTime: iso(clock.epochMs),
    publishTime: iso(clock.nowMs),
    minimumUpdatePeriod: segment,
    timeShiftBufferDepth: `PT${clock.windowSeconds}S`,
    suggestedPresentationDelay: `PT${2 * vod.segmentSeconds}S`,
    maxSegmentDuration: segment,
  }
  root.children.push({
    name: 'UTCTiming',
    attributes: { schemeIdUri: 'urn:mpeg:dash:utc:direct:2014', value: iso(clock.nowMs) },
    children: [],
  })
  return `${serializeXml(root)}\n`
}

/** A live DASH segment: the VOD file it plays and how far its loop moves it. */
export interface LiveDashSegment {
  representation: string
  /** Its `$Number$`: the origin serves it once the live edge has reached it. */
  number: number
  /** The VOD's media segment (its template filled in), relative to the MPD. */
  vodPath: string
  /** The VOD's initialization segment of the same Representation (for its timescale). */
  initPath: string
  /** Seconds to add to its media times: the loops before this one. */
  shiftSeconds: number
}

// $Number$, $Number%05d$, $RepresentationID$ (the identifiers the VOD's templates use)
const fill = (template: string, representation: string, number: number) =>
  template.replace(
    /\$(RepresentationID|Number)(?:%0(\d+)d)?\$/g,
    (_, name: string, width?: string) =>
      name === 'Number' ? String(number).padStart(Number(width ?? 0), '0') : representation,
  )

/**
 * Maps a live segment's path (`{folder}/live-{representation}-{number}.m4s`, the folder of the
 * VOD's media template) onto the VOD segment it plays; `undefined` for any other path or an
 * unknown Representation (or a number with leading zeros, or past 2^53 − 1).
 *
 * @example
 * ```ts
 * liveDashSegment(vod, 'dash/live-0-41.m4s') // { vodPath: 'dash/chunk-0-002.m4s', shiftSeconds: 80, … }
 * ```
 */
export function liveDashSegment(vod: VodMpd, path: string): LiveDashSegment | undefined {
  const folder = folderOf(path)
  const [, representation = '', digits = ''] = LIVE_SEGMENT.exec(path.slice(folder.length)) ?? []
  const template = vod.templates.get(representation)
  if (!template || folderOf(template.media) !== folder) return undefined
  const number = Number(digits)
  // past 2^53 − 1 a number is not exact: it would name another segment
  if (!Number.isSafeInteger(number)) return undefined
  const loop = Math.floor(number / vod.count)
  return {
    representation,
    number,
    vodPath: fill(template.media, representation, (number % vod.count) + template.startNumber),
    initPath: fill(template.initialization, representation, 0),
    shiftSeconds: loop * vod.count * vod.segmentSeconds,
  }
}
