// A page as a user writes it from the @proj/sw-token-refresh README: a plain <video>, the
// package's worker, `protectNativePlayback(video, refresher, { worker })` in its default mode.
// Served by support/user-page.ts; the query names the token URL and the lead. It exposes what
// the e2e probes read (`window.demo.native`, the demo page's shape), nothing else of its own.
import { protectNativePlayback, registerTokenRefreshWorker } from '@proj/sw-token-refresh'
import { fetchToken, TokenRefresher } from '@proj/token-refresh'

const query = new URLSearchParams(location.search)
const tokenUrl = query.get('token') ?? ''
const state: Record<string, unknown> & { errors: string[]; fatal: string[] } = {
  errors: [],
  fatal: [],
}
Object.assign(window, { demo: { native: state } })

const worker = registerTokenRefreshWorker({ url: '/token-refresh-sw.js' }) // early, in parallel

// an async function, not top-level await (see docs/native-playback.md in the repository)
async function play(video: HTMLVideoElement) {
  const refresher = await TokenRefresher.create({
    getToken: () => fetchToken(tokenUrl),
    refreshLeadSeconds: Number(query.get('lead')),
    onError: (error) => state.errors.push(String(error)),
  })
  state.refresher = refresher
  const protection = await protectNativePlayback(video, refresher, { worker })
  state.native = protection
}

const video = document.querySelector('video') as HTMLVideoElement
state.video = video
video.addEventListener('error', () => state.fatal.push(video.error?.message || 'media error'))
void play(video)
