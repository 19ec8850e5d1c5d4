// The benchmark page (bench/playback/playback.spec.ts): ONE player per load, its code loaded on
// demand as a real page would split it. Three kinds of load:
//   ?player=hlsjs|videojs|shaka|native|dashjs&src=<unprotected master or MPD>   baseline, no token
//   ?player=…&token=<token URL>                the player code, then the token (READMEs' basics)
//   ?player=…&token=<token URL>&prefetch=1     the token request sent first, the player code
//                                              loading meanwhile (docs/player-refresh.md)
//   ?player=native&session=<GET /session URL>  an edge session: no package, the element on the
//                                              session URL (each segment a 302 to the CDN)
// It reports on window.bench: the first frame's time since navigation, and per request the time
// from the player asking for it to the request leaving (hls.js: its loader is called; VHS: it
// calls its xhr; Shaka: its networking engine starts the request filters; dash.js: its HTTPLoader
// starts the request interceptors) → XHR send or fetch.
import { fetchToken, type TokenRecord } from '@proj/token-refresh'

const query = new URLSearchParams(location.search)
const player = query.get('player') ?? 'hlsjs'
const tokenUrl = query.get('token')
const src = query.get('src') ?? ''
const bench = {
  firstFrameMs: undefined as number | undefined,
  /** ms from the player asking for a URL to the request leaving, per request. */
  hops: [] as number[],
  error: undefined as string | undefined,
}
Object.assign(window, { bench })

let first: Promise<TokenRecord> | undefined =
  tokenUrl && query.get('prefetch') === '1' ? fetchToken(tokenUrl) : undefined
const getToken = () => {
  const record = first ?? fetchToken(tokenUrl ?? '')
  first = undefined
  return record
}
const options = { getToken, refreshLeadSeconds: 6 }

// "Asked" moments, paired first-in first-out with the requests leaving.
const asked: number[] = []
const ask = () => asked.push(performance.now())
const leave = () => {
  const at = asked.shift()
  if (at !== undefined) bench.hops.push(performance.now() - at)
}
const send = XMLHttpRequest.prototype.send
XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body) {
  leave()
  return send.call(this, body)
}
const pageFetch = window.fetch
window.fetch = (input, init) => {
  leave()
  return pageFetch(input, init)
}

const video = document.querySelector('#video') as HTMLVideoElement
const onFirstFrame = (element: HTMLVideoElement) => {
  element.requestVideoFrameCallback(() => {
    bench.firstFrameMs ??= performance.now()
  })
}

type LoaderClass = new (config: never) => { load(...args: never[]): void }
const asking = (Loader: LoaderClass): LoaderClass =>
  class extends Loader {
    override load(...args: never[]) {
      ask()
      super.load(...args)
    }
  }

const startHlsjs = async () => {
  const [{ default: Hls }, { createTokenRefresh }] = await Promise.all([
    import('hls.js'),
    import('@proj/hlsjs-token-refresh'),
  ])
  video.hidden = false
  onFirstFrame(video)
  if (tokenUrl) {
    // the counting loader goes in as the page's own loader: the package wraps it
    const hlsConfig = { loader: asking(Hls.DefaultConfig.loader as never) as never }
    const refresh = await createTokenRefresh({ ...options, Hls, hlsConfig })
    const hls = new Hls(refresh.hlsConfig)
    refresh.attach(hls)
    hls.loadSource(refresh.url)
    hls.attachMedia(video)
  } else {
    const hls = new Hls({ loader: asking(Hls.DefaultConfig.loader as never) as never })
    hls.loadSource(src)
    hls.attachMedia(video)
  }
  await video.play()
}

const startVideojs = async () => {
  const [{ default: videojs }, plugin] = await Promise.all([
    import('video.js'),
    import('@proj/videojs-token-refresh'),
  ])
  const element = document.querySelector('#videojs') as HTMLElement
  element.hidden = false
  const built = tokenUrl
    ? videojs(element, { ...(await plugin.prepareTokenRefresh(options)), autoplay: 'muted' })
    : videojs(element, {
        sources: [{ src, type: plugin.HLS_TYPE }],
        html5: plugin.VHS_TECH_OPTIONS,
        autoplay: 'muted',
      })
  built.ready(() => {
    const inner = element.querySelector('video')
    if (inner) onFirstFrame(inner)
  })
  // VHS calls vhs.xhr for every request; wrapped once the plugin's hooks are in (after
  // loadstart), so this measures the plugin's proxy and hooks, and nothing of its own.
  built.one('loadedmetadata', () => {
    const vhs = (built.tech(true) as unknown as { vhs?: { xhr: (...args: never[]) => unknown } })
      .vhs
    if (!vhs) return
    const inner = vhs.xhr
    vhs.xhr = Object.assign((...args: never[]) => {
      ask()
      return inner(...args)
    }, inner)
  })
}

const startShaka = async () => {
  const [{ default: shaka }, { createTokenRefresh }] = await Promise.all([
    import('shaka-player'),
    import('@proj/shaka-token-refresh'),
  ])
  video.hidden = false
  onFirstFrame(video)
  const shakaPlayer = new shaka.Player()
  await shakaPlayer.attach(video)
  // registered before the package's: the first filter to run is the player asking
  shakaPlayer.getNetworkingEngine()?.registerRequestFilter(() => {
    ask()
  })
  let url = src
  if (tokenUrl) {
    const refresh = await createTokenRefresh(options)
    refresh.attach(shakaPlayer)
    url = refresh.url
  }
  await shakaPlayer.load(url)
  await video.play()
}

const startDashjs = async () => {
  const [dashjs, { createTokenRefresh }] = await Promise.all([
    import('dashjs'),
    import('@proj/dashjs-token-refresh'),
  ])
  video.hidden = false
  onFirstFrame(video)
  const dashPlayer = dashjs.MediaPlayer().create()
  // added before the package's: the first interceptor to run is the player asking
  dashPlayer.addRequestInterceptor(async (request) => {
    ask()
    return request
  })
  let url = src
  if (tokenUrl) {
    const refresh = await createTokenRefresh({ ...options, dashjs })
    refresh.attach(dashPlayer)
    url = refresh.url
  }
  dashPlayer.initialize(video, url, true)
}

const sessionEndpoint = query.get('session')

const startNative = async () => {
  video.hidden = false
  onFirstFrame(video)
  if (sessionEndpoint) {
    video.crossOrigin = 'anonymous'
    const res = await pageFetch(sessionEndpoint)
    video.src = ((await res.json()) as { session_url: string }).session_url
  } else if (tokenUrl) {
    const [{ protectNativePlayback, registerTokenRefreshWorker }, { TokenRefresher }] =
      await Promise.all([import('@proj/sw-token-refresh'), import('@proj/token-refresh')])
    // a page that protects native playback registers its worker first thing; in the default
    // (auto) mode the element gets its source at once and the worker takes over when it is there
    const worker = registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
    const refresher = await TokenRefresher.create(options)
    await protectNativePlayback(video, refresher, { worker })
  } else video.src = src
  await video.play()
}

const starts: Record<string, () => Promise<void>> = {
  hlsjs: startHlsjs,
  videojs: startVideojs,
  shaka: startShaka,
  native: startNative,
  dashjs: startDashjs,
}
;(starts[player] ?? startHlsjs)().catch((error: unknown) => {
  bench.error = String(error)
})
