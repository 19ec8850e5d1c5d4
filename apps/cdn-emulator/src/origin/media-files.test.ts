// Symbolic links in a media folder: what they lead to is served only when it is inside it.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { mediaReader, NotInMediaError } from './media-files.ts'
import { createOrigin } from './origin-app.ts'

const SECRET = 'SECRET-OUTSIDE-MEDIA'
const dir = mkdtempSync(join(tmpdir(), 'cdn-media-links-'))
const media = join(dir, 'media')
const outside = join(dir, 'outside')
mkdirSync(join(media, 'v0'), { recursive: true })
mkdirSync(outside)
writeFileSync(join(media, 'master.m3u8'), '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv0/index.m3u8\n')
writeFileSync(join(media, 'v0', 'seg_000.ts'), 'segment')
writeFileSync(join(outside, 'secret.ts'), SECRET)
// a name that is itself an escape: the origin must decode a path once, not twice
writeFileSync(join(media, 'v0', '%41.ts'), 'percent-name')
writeFileSync(
  join(outside, 'index.m3u8'),
  `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#${SECRET}\n#EXTINF:2.0,\nsecret.ts\n#EXT-X-ENDLIST\n`,
)
// a link to a file inside is an ordinary alias; the other three lead outside
symlinkSync(join(media, 'v0', 'seg_000.ts'), join(media, 'v0', 'alias.ts'))
symlinkSync(join(outside, 'secret.ts'), join(media, 'v0', 'link.ts'))
symlinkSync(outside, join(media, 'v0', 'dirlink'))
symlinkSync(outside, join(media, 'evil'))
// the media folder reached through a link of its own still serves
symlinkSync(media, join(dir, 'media-link'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('mediaReader', () => {
  const read = mediaReader(media)

  it('reads files inside, through a link that stays inside too', async () => {
    expect((await read(['v0', 'seg_000.ts'])).toString()).toBe('segment')
    expect((await read(['v0', 'alias.ts'])).toString()).toBe('segment')
    expect((await mediaReader(join(dir, 'media-link'))(['v0', 'seg_000.ts'])).toString()).toBe(
      'segment',
    )
  })

  it.each([
    ['a file link to outside', ['v0', 'link.ts']],
    ['a folder link to outside', ['v0', 'dirlink', 'secret.ts']],
    ['a rendition folder linked outside', ['evil', 'index.m3u8']],
    ['..', ['..', 'outside', 'secret.ts']],
    ['a name holding a slash', ['v0/seg_000.ts']],
    ['an empty name', ['v0', '', 'seg_000.ts']],
    ['no name', []],
    ['a folder', ['v0']],
    ['a missing file', ['v0', 'seg_999.ts']],
  ])('refuses %s', async (_, names) => {
    await expect(read(names)).rejects.toThrow(NotInMediaError)
  })
})

describe('the origin, with links in its media folder', () => {
  const origin = createOrigin({ mediaDir: media })

  it.each([
    '/vod/12345_x/v0/link.ts',
    '/vod/12345_x/v0/dirlink/secret.ts',
    '/vod/12345_x/evil/index.m3u8',
    '/live/12345_x/v0/link.ts',
    '/live/12345_x/evil/index.m3u8',
    '/live/12345_x/evil/live_3.ts',
  ])('answers 404 for %s, never the bytes outside', async (path) => {
    const res = await origin.request(path)
    expect(res.status).toBe(404)
    expect(await res.text()).not.toContain(SECRET)
  })

  it('decodes each segment of a path exactly once, on every route', async () => {
    for (const kind of ['vod', 'live']) {
      const res = await origin.request(`/${kind}/12345_x/v0/%2541.ts`)
      expect(await res.text(), kind).toBe('percent-name')
      expect((await origin.request(`/${kind}/12345_x/v0/%41.ts`)).status, kind).toBe(404)
    }
  })

  it('serves what is inside', async () => {
    expect(await (await origin.request('/vod/12345_x/v0/seg_000.ts')).text()).toBe('segment')
    expect(await (await origin.request('/vod/12345_x/v0/alias.ts')).text()).toBe('segment')
  })
})
