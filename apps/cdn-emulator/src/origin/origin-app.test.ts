// The origin's DASH answers, as the CDN (emulator or nginx) fetches them: the VOD's files as
// they are, the live MPD on the clock, live segments whose media times continue across loops.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { VOD_MEDIA_DIR } from '../media.ts'
import { createOrigin } from './origin-app.ts'

const epochMs = Date.UTC(2026, 0, 1)
const origin = createOrigin({
  mediaDir: VOD_MEDIA_DIR,
  liveEpochMs: epochMs,
  now: () => epochMs + 100_000,
})
const tfdt = (bytes: Uint8Array) => {
  const at = new TextDecoder('latin1').decode(bytes).indexOf('tfdt') - 4
  return new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(at + 12)
}

describe('the origin, DASH', () => {
  it('serves the VOD MPD and its segments with their types', async () => {
    const mpd = await origin.request('/vod/12345_x/manifest.mpd')
    expect(mpd.status).toBe(200)
    expect(mpd.headers.get('content-type')).toBe('application/dash+xml')
    expect(await mpd.text()).toBe(readFileSync(join(VOD_MEDIA_DIR, 'manifest.mpd'), 'utf8'))
    const init = await origin.request('/vod/12345_x/dash/init-0.m4s')
    expect(init.headers.get('content-type')).toBe('video/iso.segment')
  })

  it('synthesizes the live MPD on the clock, never cached', async () => {
    const res = await origin.request('/live/12345_x/manifest.mpd')
    expect(res.headers.get('content-type')).toBe('application/dash+xml')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const text = await res.text()
    expect(text).toContain('type="dynamic"')
    expect(text).toContain('publishTime="2026-01-01T00:01:40.000Z"')
  })

  it('serves live segments of later loops 80 s later on the same timeline, init segments as is', async () => {
    // 200 s in: the live edge (segment 100) is past every number asked for here
    const later = createOrigin({
      mediaDir: VOD_MEDIA_DIR,
      liveEpochMs: epochMs,
      now: () => epochMs + 200_000,
    })
    const segment = async (path: string) =>
      new Uint8Array(await (await later.request(`/live/12345_x/${path}`)).arrayBuffer())
    const vod = new Uint8Array(readFileSync(join(VOD_MEDIA_DIR, 'dash', 'chunk-0-003.m4s')))
    expect(tfdt(await segment('dash/live-0-2.m4s'))).toBe(tfdt(vod))
    expect(tfdt(await segment('dash/live-0-42.m4s'))).toBe(tfdt(vod) + 80n * 12800n)
    expect(
      tfdt(await segment('dash/live-2-82.m4s')) - tfdt(await segment('dash/live-2-2.m4s')),
    ).toBe(160n * 48000n)
    expect(await segment('dash/init-2.m4s')).toEqual(
      new Uint8Array(readFileSync(join(VOD_MEDIA_DIR, 'dash', 'init-2.m4s'))),
    )
    expect((await later.request('/live/12345_x/dash/live-7-2.m4s')).status).toBe(404)
    // HLS live is untouched
    expect((await origin.request('/live/12345_x/v0/index.m3u8')).status).toBe(200)
  })
})

describe('the origin, live window edges', () => {
  // 100 s after the epoch in 2-s segments: segment 50 is the newest, listed last (45…50)
  const status = async (path: string) => (await origin.request(`/live/12345_x/${path}`)).status

  it('serves what the playlist lists and what just left the window (a slow player still has it)', async () => {
    const playlist = await (await origin.request('/live/12345_x/v0/index.m3u8')).text()
    expect(playlist).toContain('live_50.ts')
    expect(playlist).not.toContain('live_51.ts')
    for (const path of ['v0/live_50.ts', 'v0/live_45.ts', 'v0/live_44.ts', 'v0/live_0.ts'])
      expect(await status(path), path).toBe(200)
    expect(await status('dash/live-0-50.m4s')).toBe(200)
    expect(await status('dash/live-0-0.m4s')).toBe(200)
  })

  it('a segment not produced yet is a 404, as on a live packager (HLS and DASH)', async () => {
    for (const path of [
      'v0/live_51.ts',
      'v1/live_99999999.ts',
      'v0/live_99999999999999999999.ts',
      'dash/live-0-51.m4s',
      'dash/live-1-100000.m4s',
      'dash/live-0-99999999999999999999.m4s',
    ])
      expect(await status(path), path).toBe(404)
  })

  it('one URL per segment: no leading zeros, no number past 2^53', async () => {
    for (const path of ['v0/live_0031.ts', 'dash/live-0-0031.m4s', 'v0/live_9007199254740993.ts'])
      expect(await status(path), path).toBe(404)
  })
})
