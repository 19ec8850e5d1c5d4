// The benchmark page (e2e/bench/playback.spec.ts): ONE player, built the way a page that
// fetches its token first does it, or the same player on an unprotected URL of the same media.
//   ?player=hlsjs|videojs|shaka|native  &token=<token URL>  (protected)
//   ?player=…  &src=<unprotected master URL>               (baseline)
// It reports, on window.bench: the first frame's time since navigation, and per request the
// time from the player asking (hls.js loader call) to the request leaving (XHR send).
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import { createTokenRefresh as createShakaTokenRefresh } from '@proj/shaka-token-refresh'
import { protectNativePlayback, registerTokenRefreshWorker } from '@proj/sw-token-refresh'
import { TokenRefresher } from '@proj/token-refresh'
import { HLS_TYPE, prepareTokenRefresh, VHS_TECH_OPTIONS } from '@proj/videojs-token-refresh'
import Hls from 'hls.js'
import shaka from 'shaka-player'
import videojs from 'video.js'

const query = new URLSearchParams(location.search)
const player = query.get('player') ?? 'hlsjs'
const tokenUrl = query.get('token')
const src = query.get('src')
const bench = {
  firstFrameMs: undefined as number | undefined,
  /** ms from the player asking for a URL to its XHR being sent, per request. */
  hops: [] as number[],
  error: undefined as string | undefined,
}
Object.assign(window, { bench })

// The request leaving: XHR send (hls.js, VHS and Shaka's plain requests use XHR or fetch; the
// hop is measured where the asking side is observable, hls.js's loader).
const asked: number[] = []
const send = XMLHttpRequest.prototype.send
XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body) {
  const at = asked.shift()
  if (at !== undefined) bench.hops.push(performance.now() - at)
  return send.call(this, body)
}
type LoaderClass = new (config: never) => { load(...args: never[]): void }
const measured = (Loader: LoaderClass): LoaderClass =>
  class extends Loader {
    override load(...args: never[]) {
      asked.push(performance.now())
      super.load(...args)
    }
  }

const video = document.querySelector('#video') as HTMLVideoElement
const onFirstFrame = (element: HTMLVideoElement) => {
  element.requestVideoFrameCallback(() => {
    bench.firstFrameMs ??= performance.now()
  })
}
const getToken = () => fetchToken(tokenUrl ?? '')
const options = { getToken, refreshLeadSeconds: 6 }

const start = async () => {
  if (player === 'hlsjs') {
    video.hidden = false
    onFirstFrame(video)
    if (tokenUrl) {
      const refresh = await createTokenRefresh(options)
      const config = refresh.hlsConfig as { loader: LoaderClass }
      const hls = new Hls({ ...refresh.hlsConfig, loader: measured(config.loader) as never })
      refresh.attach(hls)
      hls.loadSource(refresh.url)
      hls.attachMedia(video)
    } else {
      const hls = new Hls({ loader: measured(Hls.DefaultConfig.loader as never) as never })
      hls.loadSource(src ?? '')
      hls.attachMedia(video)
    }
    await video.play()
  } else if (player === 'videojs') {
    const element = document.querySelector('#videojs') as HTMLElement
    element.hidden = false
    const built = tokenUrl
      ? videojs(element, { ...(await prepareTokenRefresh(options)), autoplay: 'muted' })
      : videojs(element, {
          sources: [{ src: src ?? '', type: HLS_TYPE }],
          html5: VHS_TECH_OPTIONS,
          autoplay: 'muted',
        })
    built.ready(() => {
      const inner = element.querySelector('video')
      if (inner) onFirstFrame(inner)
    })
  } else if (player === 'shaka') {
    video.hidden = false
    onFirstFrame(video)
    const shakaPlayer = new shaka.Player()
    await shakaPlayer.attach(video)
    let url = src ?? ''
    if (tokenUrl) {
      const refresh = await createShakaTokenRefresh(options)
      refresh.attach(shakaPlayer)
      url = refresh.url
    }
    await shakaPlayer.load(url)
    await video.play()
  } else {
    video.hidden = false
    onFirstFrame(video)
    if (tokenUrl) {
      // a page that protects native playback registers its worker first thing
      const worker = registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
      const refresher = await TokenRefresher.create(options)
      await protectNativePlayback(video, refresher, { worker, mode: 'service-worker' })
    } else video.src = src ?? ''
    await video.play()
  }
}
start().catch((error: unknown) => {
  bench.error = String(error)
})
