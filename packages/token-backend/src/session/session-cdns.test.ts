import { describe, expect, it } from 'vitest'
import { LEAF_BURST_MS, leafBurst } from './session-cdns.ts'

describe('leafBurst', () => {
  it('calls a leaf a burst when its session asked for the same track within LEAF_BURST_MS', () => {
    let clock = 0
    const burst = leafBurst(() => clock)
    expect(burst('s1', 'v1/seg_011.ts')).toBe(false)
    clock += 10
    // the same track (the last number aside), the same session
    expect(burst('s1', 'v1/seg_012.ts')).toBe(true)
    // another session, another track (its number before the last kept): no burst
    expect(burst('s2', 'v1/seg_013.ts')).toBe(false)
    expect(burst('s1', 'v2/seg_013.ts')).toBe(false)
    expect(burst('s1', 'dash/chunk-0-013.m4s')).toBe(false)
    expect(burst('s1', 'dash/chunk-2-013.m4s')).toBe(false)
    // the extension's digit is no segment number
    expect(burst('s1', 'dash/chunk-0-014.m4s')).toBe(true)
    expect(burst('s1', 'seg-9.mp4')).toBe(false)
    expect(burst('s1', 'seg-10.mp4')).toBe(true)
    // a player's pace: one segment of a track per segment duration
    clock += LEAF_BURST_MS
    expect(burst('s1', 'v1/seg_014.ts')).toBe(false)
    clock += 2000
    expect(burst('s1', 'dash/chunk-0-014.m4s')).toBe(false)
  })
})
