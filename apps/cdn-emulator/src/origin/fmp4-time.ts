// The few ISO BMFF boxes a looping live stream must touch: where each fragment sits on the media
// timeline (tfdt, sidx) and the track's timescale (mdhd). Everything else passes byte for byte.

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'moof', 'traf'])

interface Box {
  type: string
  /** Offset of the box's first byte. */
  start: number
  /** Offset just past its payload. */
  end: number
  /** Offset of the payload (after size, type and any 64-bit size). */
  body: number
}

function* boxes(view: DataView, start: number, end: number): Generator<Box> {
  let offset = start
  while (offset + 8 <= end) {
    let size = view.getUint32(offset)
    let body = offset + 8
    if (size === 1) {
      size = Number(view.getBigUint64(offset + 8))
      body += 8
    } else if (size === 0) size = end - offset
    if (size < body - offset || offset + size > end)
      throw new Error('fmp4: a box overruns its parent')
    const type = String.fromCharCode(
      view.getUint8(offset + 4),
      view.getUint8(offset + 5),
      view.getUint8(offset + 6),
      view.getUint8(offset + 7),
    )
    const box = { type, start: offset, end: offset + size, body }
    yield box
    if (CONTAINERS.has(type)) yield* boxes(view, body, box.end)
    offset += size
  }
}

const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * The timescale of the (first) track of an fMP4 initialization segment: ticks per second of the
 * `tfdt` times of its media segments.
 *
 * @example
 * ```ts
 * trackTimescale(await readFile('media/vod/dash/init-0.m4s')) // 12800
 * ```
 */
export function trackTimescale(init: Uint8Array): number {
  const view = viewOf(init)
  for (const box of boxes(view, 0, init.byteLength)) {
    if (box.type !== 'mdhd') continue
    // version 1 has 64-bit creation and modification times before the timescale
    return view.getUint32(box.body + (view.getUint8(box.body) === 1 ? 20 : 12))
  }
  throw new Error('fmp4: no mdhd in the initialization segment')
}

/**
 * A copy of an fMP4 media segment moved `seconds` later on the media timeline: every `tfdt`
 * (base media decode time, in the track's `timescale`) and every `sidx` earliest presentation
 * time (in the sidx's own timescale). A live stream that loops a VOD this way stays one
 * continuous timeline, which every player and packager-less client reads as one Period.
 *
 * @example
 * ```ts
 * shiftSegmentTime(segment, 80, 12800) // the second loop over an 80-s VOD
 * ```
 */
export function shiftSegmentTime(
  segment: Uint8Array,
  seconds: number,
  timescale: number,
): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(segment)
  const view = viewOf(copy)
  const add = (offset: number, wide: boolean, ticks: bigint) => {
    if (wide) view.setBigUint64(offset, view.getBigUint64(offset) + ticks)
    else {
      const value = BigInt(view.getUint32(offset)) + ticks
      if (value > 0xffffffffn) throw new Error('fmp4: a 32-bit time overflows')
      view.setUint32(offset, Number(value))
    }
  }
  for (const box of boxes(view, 0, copy.byteLength)) {
    const wide = view.getUint8(box.body) === 1
    if (box.type === 'tfdt') add(box.body + 4, wide, BigInt(Math.round(seconds * timescale)))
    else if (box.type === 'sidx') {
      // version, flags, reference_ID, then the sidx's timescale and earliest presentation time
      const ticks = BigInt(Math.round(seconds * view.getUint32(box.body + 8)))
      add(box.body + 12, wide, ticks)
    }
  }
  return copy
}
