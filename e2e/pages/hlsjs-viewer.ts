// A page as a user writes it from the hls.js package's README for a backend with stream limits: the
// viewer's JWT goes with each token request, and the refresher's context (the stream the last
// record named) goes back with each refresh, so the backend counts the refreshes as one stream:
// `getToken: (context) => fetchToken(url, { ...context, headers })`. The query names the token
// URL, the lead and the viewer's JWT. It exposes what the e2e probes read (`window.demo.hlsjs`).
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import Hls from 'hls.js'

const query = new URLSearchParams(location.search)
const tokenUrl = query.get('token') ?? ''
const headers = { authorization: `Bearer ${query.get('jwt') ?? ''}` }
const state: Record<string, unknown> & { errors: string[]; fatal: string[] } = {
  errors: [],
  fatal: [],
}
Object.assign(window, { demo: { hlsjs: state } })

// an async function, not top-level await (docs/native-playback.md, "Three things to know")
async function play(video: HTMLVideoElement) {
  const refresh = await createTokenRefresh({
    Hls,
    getToken: (context) => fetchToken(tokenUrl, { ...context, headers }),
    refreshLeadSeconds: Number(query.get('lead')),
    onError: (error) => state.errors.push(String(error)),
  })
  state.refresher = refresh.refresher
  const hls = new Hls(refresh.hlsConfig)
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
