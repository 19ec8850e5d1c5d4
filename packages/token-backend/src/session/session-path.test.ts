import { describe, expect, it } from 'vitest'
import { relativeReference, sessionFile, videoDirectory } from './session-path.ts'

describe('sessionFile', () => {
  it.each([
    ['master.m3u8', 'playlist'],
    ['v1/index.m3u8', 'playlist'],
    ['v1/seg_004.ts', 'leaf'],
    ['key.bin', 'leaf'],
    ['a/b/c/d/e/f/g/h.ts', 'leaf'],
  ] as const)('%s is a %s', (rest, kind) => {
    expect(sessionFile(rest)).toEqual({ rest, kind })
  })

  it.each([
    '',
    '..',
    'v1/../key.bin',
    './key.bin',
    'v1//seg.ts',
    'v1/seg%2F.ts',
    '%2e%2e/x.ts',
    'seg.ts?x',
    'seg\r\nx.ts',
    'a/b/c/d/e/f/g/h/i.ts',
    `${'a'.repeat(129)}.ts`,
  ])('%j is refused', (rest) => {
    expect(sessionFile(rest)).toBeUndefined()
  })
})

describe('videoDirectory', () => {
  it('is /videos/ for VOD and /cmaf/ for live', () => {
    expect(videoDirectory('12345', 'demo', 'vod')).toBe('/videos/12345_demo/')
    expect(videoDirectory('12345', 'demo', 'live')).toBe('/cmaf/12345_demo/')
  })
})

describe('relativeReference', () => {
  it.each([
    ['master.m3u8', 'v0/index.m3u8', 'v0/index.m3u8'],
    ['v1/index.m3u8', 'v1/seg_000.ts', 'seg_000.ts'],
    ['v1/index.m3u8', 'key.bin', '../key.bin'],
    ['v1/index.m3u8', 'v0/index.m3u8', '../v0/index.m3u8'],
    ['a/b/index.m3u8', 'a/c/seg.ts', '../c/seg.ts'],
    ['a/index.m3u8', 'a/b/seg.ts', 'b/seg.ts'],
  ])('from %s to %s is %s', (from, to, reference) => {
    expect(relativeReference(from, to)).toBe(reference)
    expect(new URL(reference, `https://x/s/v/c/${from}`).href).toBe(`https://x/s/v/c/${to}`)
  })
})
