// A page as a user writes it from the hls.js package's README: hls.js and
// `createTokenRefresh({ Hls, getToken, refreshLeadSeconds })`, built with code splitting as a
// bundler does (support/user-page.ts), so that what the package loads on demand (the CDN lane,
// what runs after a failure, the native protection) are files of their own the server sees asked
// for. The query names the token URL and the lead. It exposes what the e2e probes read
// (`window.demo.hlsjs`, the demo page's shape), nothing else of its own.
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import Hls from 'hls.js'

const query = new URLSearchParams(location.search)
const tokenUrl = query.get('token') ?? ''
const state: Record<string, unknown> & { errors: string[]; fatal: string[] } = {
  errors: [],
  fatal: [],
}
Object.assign(window, { demo: { hlsjs: state } })

// an async function, not top-level await (docs/native-playback.md, "Three things to know")
async function play(video: HTMLVideoElement) {
  const refresh = await createTokenRefresh({
    Hls,
    getToken: () => fetchToken(tokenUrl),
    refreshLeadSeconds: Number(query.get('lead')),
    onError: (error) => state.errors.push(String(error)),
  })
  state.refresher = refresh.refresher
  const hls = new Hls(refresh.hlsConfig)
  state.hls = hls
  hls.on(Hls.Events.ERROR, (_, data) => {
    if (data.fatal) state.fatal.push(`${data.type} ${data.details}`)
  })
  refresh.attach(hls)
  hls.loadSource(refresh.url)
  hls.attachMedia(video)
}

const video = document.querySelector('video') as HTMLVideoElement
state.video = video
void play(video)
