import { describe, expect, it } from 'vitest'
import { originPath } from './origin-path.ts'

// what the origin does with it: parse as a URL, then decode each segment once
const readBack = (path: string) =>
  new URL(`http://origin${path}`).pathname.split('/').slice(1).map(decodeURIComponent)

describe('originPath', () => {
  it('leaves ordinary names as they are', () => {
    expect(originPath(['vod', '12345_demo', 'v0', 'seg_000.ts'])).toBe(
      '/vod/12345_demo/v0/seg_000.ts',
    )
  })

  it.each([
    ['a tab inside dots', ['vod', '12345_demo', '.\t.', '.\t.', 'live']],
    ['line breaks', ['vod', '12345_demo', '.\r\n.', 'x']],
    ['backslashes', ['vod', '12345_demo', '..\\..\\live\\99999_secretvideo\\v0\\index.m3u8']],
    ['escaped dots', ['vod', '12345_demo', '%2e%2e', '%2E%2E', 'live']],
    ['a query and a fragment', ['vod', '12345_demo', 'seg.ts?x', '#y']],
    ['spaces and non-ASCII', ['vod', '12345_demo', 'a b', 'vidéo']],
  ])('is read back as exactly the segments checked: %s', (_, segments) => {
    expect(readBack(originPath(segments))).toEqual(segments)
  })
})
