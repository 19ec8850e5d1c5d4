// hls.js/light (no EME, no subtitles, no alternate audio) through ESM: the bundle must hold hls.js
// once, the light build (e2e/adoption/prepare.ts reads the build's module list).
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import Hls from 'hls.js/light'
import { exposeState, pageSettings } from './page.ts'

const settings = pageSettings()
const state = exposeState('hlsjs', { errors: [], fatal: [], mode: 'hooks' })

// an async function, not top-level await, as the README says (docs/native-playback.md)
async function play(video: HTMLVideoElement) {
  const refresh = await createTokenRefresh({
    Hls,
    getToken: () => fetchToken(settings.tokenRequest),
    refreshLeadSeconds: settings.refreshLeadSeconds,
    onError: (error) => state.errors.push(String(error)),
    // hls.js buffers up to 600 s of a low-bitrate stream (maxBufferSize / bitrate): the whole
    // test video at once, and no request would be left for a refreshed token
    hlsConfig: { maxBufferLength: 8, maxMaxBufferLength: 8 },
  })
  const hls = new Hls(refresh.hlsConfig)
  refresh.attach(hls)
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (data.fatal) state.fatal.push(`${data.details} ${data.response?.code ?? ''}`.trim())
  })
  hls.loadSource(refresh.url)
  hls.attachMedia(video)
  Object.assign(state, { video, refresher: refresh.refresher })
  video.play().catch((error: unknown) => state.errors.push(`play: ${String(error)}`))
}

const video = document.querySelector('video')
if (!video) throw new Error('adoption page: no <video>')
play(video).catch((error: unknown) => state.fatal.push(`setup: ${String(error)}`))
