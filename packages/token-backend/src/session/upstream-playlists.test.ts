import { describe, expect, it, vi } from 'vitest'
import { memoryPlaylists } from './playlist-cache.ts'
import { upstreamPlaylists } from './upstream-playlists.ts'

const PLAYLIST = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg_0.ts\n'
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: { status?: number; message?: string }) => `${error.status} ${error.message}`,
  )

describe('upstreamPlaylists', () => {
  it('shares one fetch between viewers who ask together, then serves the cache', async () => {
    let fetches = 0
    const upstream = upstreamPlaylists(memoryPlaylists(), async () => {
      fetches++
      await new Promise((resolve) => setTimeout(resolve, 10))
      return new Response(PLAYLIST)
    })
    const url = () => 'https://cdn.test/videos/1_demo/tok123/1800000000/v0/index.m3u8'
    const texts = await Promise.all(
      Array.from({ length: 5 }, () => upstream.get('/videos/1_demo/v0/index.m3u8', 'vod', url)),
    )
    expect(new Set(texts)).toEqual(new Set([PLAYLIST]))
    await upstream.get('/videos/1_demo/v0/index.m3u8', 'vod', url)
    expect(fetches).toBe(1)
  })

  it('passes a CDN’s Retry-After on with a 503 (429 or 503 that says when to come back)', async () => {
    const answer = (status: number, retryAfter: string) => async () =>
      new Response('', { status, headers: { 'retry-after': retryAfter } })
    const refusal = (fetcher: () => Promise<Response>) =>
      upstreamPlaylists(memoryPlaylists(), fetcher)
        .get(
          '/videos/1_demo/v0/index.m3u8',
          'vod',
          () => 'https://cdn.test/x/tok123/1800000000/v0/index.m3u8',
        )
        .then(
          () => undefined,
          (error: { status: number; res?: Response }) => [
            error.status,
            error.res?.headers.get('retry-after'),
          ],
        )
    expect(await refusal(answer(503, '7'))).toEqual([503, '7'])
    expect(await refusal(answer(429, '30'))).toEqual([503, '30'])
    // a date, a huge or a broken value is not passed on: the 502 of a CDN failure
    expect(await refusal(answer(503, 'Wed, 21 Oct 2026 07:28:00 GMT'))).toEqual([502, undefined])
    expect(await refusal(answer(503, '86400'))).toEqual([502, undefined])
    expect(await refusal(answer(500, '7'))).toEqual([502, undefined])
  })

  it('answers each CDN failure with a status that says whose it is', async () => {
    const cases: [() => Promise<Response>, string][] = [
      [async () => new Response('nope', { status: 404 }), '404 no such playlist: v0/index.m3u8'],
      [
        async () => new Response('', { status: 403 }),
        '502 the CDN refused the playlist URL signed by this worker (403)',
      ],
      [async () => new Response('', { status: 503 }), '502 the CDN answered 503 for the playlist'],
      [async () => new Response('<html>'), '502 the CDN answered something that is not a playlist'],
      [
        async () => Promise.reject(new TypeError('fetch failed')),
        '502 the CDN could not be reached for the playlist',
      ],
      [
        async () => Promise.reject(new DOMException('timed out', 'TimeoutError')),
        '504 the CDN did not answer the playlist within 10 s',
      ],
    ]
    for (const [answer, expected] of cases) {
      const upstream = upstreamPlaylists(memoryPlaylists(), answer)
      const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
      const outcome = await statusOf(
        upstream.get('/videos/1_demo/v0/index.m3u8', 'vod', () => 'https://cdn.test/x'),
      )
      // a refusal of the backend's own URL is the operator's to fix: said once, in the log
      const advice = logged.mock.calls.map(([line]) => String(line))
      logged.mockRestore()
      expect(outcome).toBe(expected)
      expect(advice).toEqual(
        expected.includes('refused')
          ? [
              expect.stringContaining(
                'token-backend: the CDN answered 403 to a session playlist URL',
              ),
            ]
          : [],
      )
    }
  })
})
