/** A parsed VOD media playlist: the lines before the first segment, and the segment URIs. */
export interface VodPlaylist {
  /** Header tags (version, target duration, key…) without media sequence or playlist type. */
  header: string[]
  segments: { duration: string; uri: string }[]
}

/**
 * Parses a VOD media playlist as ffmpeg writes it (one `#EXTINF` before each URI).
 *
 * @example
 * ```ts
 * parseVodPlaylist('#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg_000.ts\n#EXT-X-ENDLIST\n')
 * ```
 */
export function parseVodPlaylist(text: string): VodPlaylist {
  const header: string[] = []
  const segments: VodPlaylist['segments'] = []
  let duration: string | undefined
  for (const line of text.split(/\r?\n/)) {
    if (!line || line === '#EXT-X-ENDLIST') continue
    if (line.startsWith('#EXTINF:')) duration = line
    else if (!line.startsWith('#')) {
      segments.push({ duration: duration ?? '#EXTINF:2.0,', uri: line })
      duration = undefined
    } else if (segments.length === 0 && !/^#EXT-X-(MEDIA-SEQUENCE|PLAYLIST-TYPE)/.test(line))
      header.push(line)
  }
  return { header, segments }
}

/** Where a live stream is, given the wall clock. */
export interface LiveClock {
  /** When segment 0 of the stream started (ms). */
  epochMs: number
  nowMs: number
  /** Seconds per segment (the VOD's target duration). */
  segmentSeconds: number
  /** Segments in the sliding window. */
  windowSize: number
}

/** The live URI of segment `sequence`; the origin maps it back with {@link liveSegmentIndex}. */
export function liveSegmentUri(sequence: number): string {
  return `live_${sequence}.ts`
}

// One URL per segment: the digits liveSegmentUri writes (no leading zero), and a number that is
// exact in a double (`live_9007199254740993.ts` would otherwise be read as …992, another segment).
const LIVE_URI = /^live_(0|[1-9]\d*)\.ts$/

/**
 * The sequence number of a live segment's URI, as {@link liveSegmentUri} writes it; `undefined`
 * for any other name (an alias with leading zeros, a number past 2^53 − 1).
 *
 * @example
 * ```ts
 * liveSequence('live_45.ts')  // 45
 * liveSequence('live_045.ts') // undefined
 * ```
 */
export function liveSequence(uri: string): number | undefined {
  const digits = LIVE_URI.exec(uri)?.[1]
  const sequence = Number(digits)
  return digits !== undefined && Number.isSafeInteger(sequence) ? sequence : undefined
}

/**
 * The VOD segment a live sequence number plays (the stream loops over the VOD).
 *
 * @example
 * ```ts
 * liveSegmentIndex('live_45.ts', 40) // 5
 * ```
 */
export function liveSegmentIndex(uri: string, count: number): number | undefined {
  const sequence = liveSequence(uri)
  return sequence === undefined ? undefined : sequence % count
}

/**
 * The newest segment of the live stream at `nowMs`: the last one the playlist lists (HLS), and
 * the last number the origin serves (HLS and DASH). A later one is not produced yet: a live
 * packager answers 404 for it, and so does the origin, so that a player asking ahead of the live
 * edge fails here as it would in production.
 *
 * @example
 * ```ts
 * newestLiveSequence({ epochMs: 0, nowMs: 100_000, segmentSeconds: 2 }) // 50
 * ```
 */
export function newestLiveSequence(clock: Omit<LiveClock, 'windowSize'>): number {
  return Math.floor((clock.nowMs - clock.epochMs) / 1000 / clock.segmentSeconds)
}

/**
 * A live media playlist: a sliding window over the VOD's segments, looping forever and advancing
 * with the wall clock, so a player reloads it every target duration. Media sequence numbers
 * grow; each loop boundary is an `#EXT-X-DISCONTINUITY` (timestamps restart) counted by
 * `#EXT-X-DISCONTINUITY-SEQUENCE`.
 *
 * @example
 * ```ts
 * livePlaylist(parseVodPlaylist(vodText), { epochMs, nowMs: Date.now(), segmentSeconds: 2, windowSize: 6 })
 * ```
 */
export function livePlaylist(vod: VodPlaylist, clock: LiveClock): string {
  const count = vod.segments.length
  const newest = newestLiveSequence(clock)
  const first = Math.max(0, newest - clock.windowSize + 1)
  const lines = [
    ...vod.header,
    `#EXT-X-MEDIA-SEQUENCE:${first}`,
    `#EXT-X-DISCONTINUITY-SEQUENCE:${Math.floor(first / count)}`,
  ]
  for (let sequence = first; sequence <= newest; sequence++) {
    const segment = vod.segments[sequence % count]
    if (!segment) continue
    if (sequence % count === 0 && sequence > 0 && sequence !== first)
      lines.push('#EXT-X-DISCONTINUITY')
    lines.push(segment.duration, liveSegmentUri(sequence))
  }
  return `${lines.join('\n')}\n`
}
