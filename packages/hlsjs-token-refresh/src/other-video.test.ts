// hls.loadSource of another video on an attached Hls (instead of a new createTokenRefresh and a
// new Hls) ends the refresh: the old video's refresher would otherwise renew its token, and hold
// its stream under stream limits, for the Hls's life. A reload of the same video does not.
import Hls from 'hls.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useTokenCdn } from '../test/token-cdn.ts'
import { createTokenRefresh, type HlsTokenRefresh } from './create-token-refresh.ts'

const env = useTokenCdn()
let refresh: HlsTokenRefresh
let hls: Hls

beforeEach(async () => {
  refresh = await createTokenRefresh({ ...env.options(), Hls })
  hls = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
  refresh.attach(hls)
  await loaded(refresh.url)
})
afterEach(() => hls.destroy())

/** Loads `url` on the Hls and waits for its answer (the manifest parsed, or an error). */
const loaded = (url: string) =>
  new Promise<unknown>((resolve) => {
    hls.once(Hls.Events.MANIFEST_PARSED, resolve)
    hls.once(Hls.Events.ERROR, resolve)
    hls.loadSource(url)
  })
/** This video's master playlist with `pair` instead of the current token pair. */
const withPair = (url: string, pair: string) => url.replace(/\/tok\w+\/\d+\//, `/${pair}/`)

describe('hls.loadSource on an attached Hls', () => {
  it('of another video ends the refresh: no getToken call after it, no timer left', async () => {
    await env.time.advance(14_000)
    expect(env.backend.calls).toBe(2)
    // the tiny CDN refuses it (only 12345_demo is known there): the refresh has ended before
    await loaded(refresh.url.replace('/12345_demo/', '/12345_other/'))
    expect(refresh.refresher.destroyed).toBe(true)
    expect(env.time.pending).toBe(0)
    await env.time.advance(120_000)
    expect(env.backend.calls).toBe(2)
  })

  it('of this video (older, newer, unknown pair, the IP-bound host) keeps it refreshing', async () => {
    const first = refresh.url
    await env.time.advance(14_000)
    for (const url of [
      first,
      refresh.url,
      withPair(first, 'tok9999plain/1999999999'),
      refresh.refresher.record.url_ip,
    ])
      await loaded(url)
    expect(refresh.refresher.destroyed).toBe(false)
    await env.time.advance(14_000)
    expect(env.backend.calls).toBe(3)
  })
})
