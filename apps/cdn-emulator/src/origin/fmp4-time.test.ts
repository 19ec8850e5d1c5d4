import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { VOD_MEDIA_DIR } from '../media.ts'
import { shiftSegmentTime, trackTimescale } from './fmp4-time.ts'

const media = (path: string) => new Uint8Array(readFileSync(join(VOD_MEDIA_DIR, 'dash', path)))

/** Every tfdt and sidx time of a segment, read independently of the code under test: by offsets. */
const times = (segment: Uint8Array) => {
  const view = new DataView(segment.buffer, segment.byteOffset, segment.byteLength)
  const text = new TextDecoder('latin1').decode(segment)
  const at = (type: string) => text.indexOf(type) - 4
  const tfdt = at('tfdt')
  const sidx = at('sidx')
  return {
    tfdt:
      view.getUint8(tfdt + 8) === 1
        ? view.getBigUint64(tfdt + 12)
        : BigInt(view.getUint32(tfdt + 12)),
    sidx:
      view.getUint8(sidx + 8) === 1
        ? view.getBigUint64(sidx + 20)
        : BigInt(view.getUint32(sidx + 20)),
    sidxScale: view.getUint32(sidx + 16),
  }
}

describe('trackTimescale', () => {
  it('reads the mdhd of the committed init segments (video 12800, audio 48 kHz)', () => {
    expect(trackTimescale(media('init-0.m4s'))).toBe(12800)
    expect(trackTimescale(media('init-2.m4s'))).toBe(48000)
  })

  it('refuses what has no track', () => {
    expect(() => trackTimescale(media('chunk-0-001.m4s'))).toThrow('no mdhd')
  })
})

describe('shiftSegmentTime', () => {
  it('moves tfdt and sidx by whole loops, in their own timescales, and nothing else', () => {
    for (const [rep, scale] of [
      ['0', 12800],
      ['2', 48000],
    ] as const) {
      const segment = media(`chunk-${rep}-040.m4s`)
      const before = times(segment)
      const moved = shiftSegmentTime(segment, 160, scale)
      const after = times(moved)
      expect(after.tfdt - before.tfdt).toBe(BigInt(160 * scale))
      expect(after.sidx - before.sidx).toBe(BigInt(160 * before.sidxScale))
      expect(moved.byteLength).toBe(segment.byteLength)
      const changed = moved.reduce(
        (count, byte, index) => count + (byte === segment[index] ? 0 : 1),
        0,
      )
      expect(changed).toBeGreaterThan(0)
      expect(changed).toBeLessThanOrEqual(8) // two times of up to 64 bits, little more
      expect(times(segment)).toEqual(before) // the source is untouched
    }
  })

  it('makes the last segment of one loop end where the first of the next begins', () => {
    // audio: 40 segments of 80 s exactly (the encoder's priming frame trimmed)
    const last = media('chunk-2-040.m4s')
    const first = shiftSegmentTime(media('chunk-2-001.m4s'), 80, 48000)
    const trun = new TextDecoder('latin1').decode(last).indexOf('trun') - 4
    const view = new DataView(last.buffer, last.byteOffset)
    const samples = view.getUint32(trun + 12)
    // ffmpeg's audio fragments: one default sample duration of 1024 in tfhd
    expect(times(last).tfdt + BigInt(samples * 1024)).toBe(times(first).tfdt)
  })

  it('refuses a box that overruns the segment', () => {
    const broken = media('chunk-0-001.m4s').slice(0, 200)
    expect(() => shiftSegmentTime(broken, 80, 12800)).toThrow('overruns')
  })
})
