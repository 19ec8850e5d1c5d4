// DASH sessions (issue 32) end to end in workerd: the MPD fetched from the real token-checking
// CDN emulator (vitest.config.ts) in front of the committed DASH media, rewritten under the
// session, and every segment a 302 to a freshly signed CDN URL the emulator accepts.
import { describe, expect, it } from 'vitest'
import { NOW_MS, testEnv } from '../../test/helpers.ts'
import { playlistText } from '../../test/playlist-text.ts'
import { createTokenApp } from '../app.ts'
import { memoryPlaylists } from './playlist-cache.ts'

const setup = (env = testEnv()) => {
  const app = createTokenApp({
    now: () => NOW_MS,
    audit: () => undefined,
    playlists: memoryPlaylists(),
  })
  const request = (path: string) =>
    app.request(
      path.startsWith('http') ? path : `https://tokens.test${path}`,
      { headers: { 'x-real-ip': '203.0.113.7' } },
      env,
    )
  const session = async (type: 'vod' | 'live') => {
    const res = await request(`/session?video=demo&type=${type}&format=dash`)
    expect(res.status).toBe(200)
    return (await res.json<{ session_url: string }>()).session_url
  }
  return { request, session }
}
// the MPD files of the committed media, read through the emulator's origin
const VOD_MPD_TEMPLATE = 'dash/chunk-$RepresentationID$-$Number%03d$.m4s'

describe('DASH sessions', () => {
  it('serves the VOD MPD under the session as application/dash+xml, its relative templates byte for byte', async () => {
    const { request, session } = setup()
    const res = await request(await session('vod'))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/dash+xml')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const text = await playlistText(res)
    expect(text).toContain(`media="${VOD_MPD_TEMPLATE}"`)
    expect(text).toContain('type="static"')
    expect(text).not.toMatch(/cdn\.test|\/videos\//)
  })

  it('redirects each segment to a fresh CDN URL of the video that the CDN serves', async () => {
    const { request, session } = setup()
    const url = await session('vod')
    for (const file of ['dash/init-0.m4s', 'dash/chunk-1-007.m4s', 'dash/chunk-2-040.m4s']) {
      const leaf = await request(new URL(file, url).href)
      expect(leaf.status, file).toBe(302)
      const location = leaf.headers.get('location') ?? ''
      expect(location).toMatch(
        new RegExp(`^https://cdn\\.test/videos/12345_demo/[\\w-]+/\\d+/${file}$`),
      )
      const media = await fetch(location)
      expect(media.status, file).toBe(200)
      expect(media.headers.get('content-type')).toBe('video/iso.segment')
      await media.body?.cancel()
    }
  })

  it('serves the live MPD (dynamic, its clock direct) and redirects its live segments', async () => {
    const { request, session } = setup()
    const url = await session('live')
    const text = await playlistText(await request(url))
    expect(text).toContain('type="dynamic"')
    expect(text).toContain('media="dash/live-$RepresentationID$-$Number$.m4s"')
    expect(text).toContain('urn:mpeg:dash:utc:direct:2014')
    const leaf = await request(new URL('dash/live-0-3.m4s', url).href)
    expect(leaf.status).toBe(302)
    expect(new URL(leaf.headers.get('location') ?? '').pathname).toMatch(
      /^\/cmaf\/12345_demo\/[\w-]+\/\d+\/dash\/live-0-3\.m4s$/,
    )
    expect((await fetch(leaf.headers.get('location') ?? '')).status).toBe(200)
  })

  it('takes the names DASH packagers use ($RepresentationID$ as video=100000), still only inside the video', async () => {
    const { request, session } = setup()
    const url = await session('vod')
    const leaf = await request(new URL('video=100000/seg-12.m4s', url).href)
    expect(leaf.status).toBe(302)
    expect(leaf.headers.get('location')).toMatch(
      /\/videos\/12345_demo\/[\w-]+\/\d+\/video=100000\/seg-12\.m4s$/,
    )
    for (const bad of ['video%3D1/a.m4s', 'a=/../../x.m4s', 'a=b%2Fx.m4s'])
      expect((await request(`${url.replace(/manifest\.mpd$/, '')}${bad}`)).status, bad).toBe(400)
  })

  it('answers 404 for an MPD the CDN does not have, as for a playlist', async () => {
    const { request, session } = setup()
    const res = await request((await session('vod')).replace(/manifest\.mpd$/, 'other.mpd'))
    expect(res.status).toBe(404)
  })
})
