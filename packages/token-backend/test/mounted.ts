import { expect } from 'vitest'
import { playlistText } from './playlist-text.ts'

/** The operator token the mounted apps of the tests are configured with. */
export const MOUNTED_ADMIN = 'test-admin-token-of-32-characters-ok'

/** Asks the parent app for `path` (absolute on https://site.test). */
export type Ask = (path: string, init?: RequestInit) => Response | Promise<Response>

/** Where the app sits in its parent: the public path, and the path the app itself sees there. */
export interface Mounting {
  /** The public path (`/video`). */
  at: string
  /**
   * The prefix of the paths the app is given: `at` under `route()`, `''` under `mount()`, which
   * strips it (its 404s then name the stripped path).
   */
  seen: string
}

/**
 * What every runtime must show of a token app mounted at `/video` (or `at`) in a parent app that
 * also has its own `GET /health`: every route of the app under the prefix, session URLs carrying
 * it, a leaf redirected to the CDN, revocation, and `{error}` answers for whatever under the
 * prefix is not a route, while the parent keeps its own routes and 404s. The redirect is followed
 * to the CDN with `follow` (the real token-checking emulator), so a wrongly signed leaf fails here.
 *
 * @example
 * ```ts
 * it('mounted', () => checkMountedApp((path, init) => parent.request(path, init, env), fetch))
 * ```
 */
export async function checkMountedApp(
  ask: Ask,
  follow: (url: string) => Promise<Response>,
  { at, seen }: Mounting = { at: '/video', seen: '/video' },
) {
  // the viewer as the test Worker's IP_HEADERS or Workers' platform name it; on Node the app's
  // connectionAddress does
  const from = { headers: { 'x-real-ip': '203.0.113.7', 'cf-connecting-ip': '203.0.113.7' } }
  const token = await ask(`https://site.test${at}/token?video=demo&type=vod`, from)
  expect(token.status).toBe(200)
  expect(await token.json()).toMatchObject({ client_ip: '203.0.113.7' })

  const issued = await ask(`https://site.test${at}/session?video=demo&type=vod`, from)
  expect(issued.status).toBe(200)
  const { session_url: sessionUrl } = (await issued.json()) as { session_url: string }
  expect(sessionUrl).toMatch(
    new RegExp(`^https://site\\.test${at}/s/demo/[\\w-]+\\.[\\w-]+\\.[\\w-]+/master\\.m3u8$`),
  )

  const master = await ask(sessionUrl, from)
  expect(master.status).toBe(200)
  expect(master.headers.get('content-type')).toBe('application/vnd.apple.mpegurl')
  const variant = (await playlistText(master)).split('\n').find((line) => line.endsWith('.m3u8'))
  expect(variant).toBeDefined()
  // the playlist's references resolve under the prefix too
  const media = await ask(new URL(variant ?? '', sessionUrl).href, from)
  expect(media.status).toBe(200)
  const segment = (await playlistText(media)).split('\n').find((line) => line.endsWith('.ts'))
  const leafUrl = new URL(segment ?? '', new URL(variant ?? '', sessionUrl)).href
  expect(leafUrl.startsWith(`https://site.test${at}/s/demo/`)).toBe(true)
  const leaf = await ask(leafUrl, from)
  expect(leaf.status).toBe(302)
  const onCdn = await follow(leaf.headers.get('location') ?? '')
  expect(onCdn.status).toBe(200)
  expect((await onCdn.arrayBuffer()).byteLength).toBeGreaterThan(1000)

  const credential = sessionUrl.split('/s/demo/')[1]?.split('/')[0] ?? ''
  const sid = JSON.parse(atob(credential.split('.')[1] ?? '')).sid
  const revoked = await ask(`https://site.test${at}/sessions/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MOUNTED_ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: sid }),
  })
  expect(revoked.status).toBe(200)
  const after = await ask(leafUrl, from)
  expect(after.status).toBe(403)
  expect(await after.json()).toEqual({ error: 'session revoked' })

  // under the prefix, everything answers the app's {error} shape
  const errors = await Promise.all(
    [
      [`${at}/nowhere`, 'GET'],
      [`${at}/token`, 'POST'],
      [`${at}/token`, 'GET'],
      [`${at}/s/demo/not-a-session/master.m3u8`, 'GET'],
    ].map(async ([path, method]) => {
      const res = await ask(`https://site.test${path}`, { method: String(method) })
      return [
        res.status,
        res.headers.get('content-type'),
        ((await res.json()) as { error: string }).error,
      ]
    }),
  )
  expect(errors).toEqual([
    [404, 'application/json', `no route for GET ${seen}/nowhere`],
    [405, 'application/json', 'method POST is not allowed: use GET'],
    [400, 'application/json', 'video is required'],
    [400, 'application/json', expect.stringContaining('not a session file')],
  ])

  // the parent's own routes and 404s are left alone
  expect(await (await ask('https://site.test/health')).text()).toBe('ok')
  const outside = await ask('https://site.test/token?video=demo')
  expect(outside.status).toBe(404)
  expect(outside.headers.get('content-type')).not.toBe('application/json')
}
