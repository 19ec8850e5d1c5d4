// Issue 31 §3: a page pays only for what it uses. A page written from the hls.js package's README,
// built with code splitting as a user's bundler does, plays through nginx with records of one CDN
// past two expiries: the server never sees a request for what the package loads on demand (the
// CDN lane, what runs after a failure, the native protection). Then the token backend fails once:
// what runs after a failure is fetched, and playback goes on.
import { expect, probe, test, waitForPlayback, watchPlayback } from '../support/demo.ts'
import { tokenUrl } from '../support/stack.ts'
import { serveUserPage } from '../support/user-page.ts'

test('hls.js, one CDN: a page that plays without trouble downloads none of its on-demand files', async ({
  page,
}) => {
  const site = await serveUserPage('hlsjs-one-cdn', { splitting: true })
  try {
    expect(site.onDemand.map((path) => path.replace(/-\w+\.js$/, ''))).toEqual(
      expect.arrayContaining(['/cdn-lane', '/after-failure']),
    )
    const token = `${tokenUrl()}?video=demo&type=vod&expire=20`
    let failing = false
    await page.route(/:\d+\/token\?/, (route) =>
      failing ? route.fulfill({ status: 503, body: '{"error":"down"}' }) : route.continue(),
    )
    await page.goto(`${site.url}?${new URLSearchParams({ token, lead: '6' })}`)
    await waitForPlayback(page, 'hlsjs')
    // past two expiries of 20-s tokens, refreshed every 14 s
    const run = await watchPlayback(page, 'hlsjs', 35_000)
    const healthy = await probe(page, 'hlsjs')
    expect(healthy.refreshCount).toBeGreaterThanOrEqual(2)
    expect(healthy.fatal).toEqual([])
    expect(run.advanced).toBeGreaterThan(30)
    const asked = [...site.asked]
    expect(asked.filter((path) => site.onDemand.includes(path))).toEqual([])

    // one failed refresh: what runs after a failure comes, and only that
    failing = true
    await page.evaluate(() =>
      (
        window as unknown as { demo: { hlsjs: { refresher: { refresh(): Promise<unknown> } } } }
      ).demo.hlsjs.refresher
        .refresh()
        .catch(() => undefined),
    )
    failing = false
    await expect
      .poll(() => site.asked.filter((path) => site.onDemand.includes(path)))
      .toEqual([expect.stringMatching(/^\/after-failure-\w+\.js$/)])
    expect((await watchPlayback(page, 'hlsjs', 5000)).advanced).toBeGreaterThan(3)
    expect((await probe(page, 'hlsjs')).fatal).toEqual([])
  } finally {
    await site.close()
  }
})
