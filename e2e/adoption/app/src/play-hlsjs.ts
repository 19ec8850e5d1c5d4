// What both hls.js pages do, with the `Hls` class the page imported: each page imports its own
// entry (`hls.js` or `hls.js/light`), so each bundle holds exactly one hls.js file
// (e2e/adoption/prepare.ts checks it); a type-only import here bundles nothing.
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import type Hls from 'hls.js'
import { exposeState, pageSettings } from './page.ts'

/**
 * Plays the page's `<video>` with `HlsPlayer` and token refresh, publishing its state as
 * `window.demo.hlsjs`.
 *
 * @example
 * import Hls from 'hls.js/light'
 * playHlsjs(Hls)
 */
export function playHlsjs(HlsPlayer: typeof Hls): void {
  const settings = pageSettings()
  const state = exposeState('hlsjs', { errors: [], fatal: [], mode: 'hooks' })

  // an async function, not top-level await, as the README says (docs/native-playback.md)
  async function play(video: HTMLVideoElement) {
    const refresh = await createTokenRefresh({
      Hls: HlsPlayer,
      getToken: () => fetchToken(settings.tokenRequest),
      refreshLeadSeconds: settings.refreshLeadSeconds,
      onError: (error) => state.errors.push(String(error)),
      // hls.js buffers up to 600 s of a low-bitrate stream (maxBufferSize / bitrate): the whole
      // test video at once, and no request would be left for a refreshed token
      hlsConfig: { maxBufferLength: 8, maxMaxBufferLength: 8 },
    })
    const hls = new HlsPlayer(refresh.hlsConfig)
    refresh.attach(hls)
    hls.on(HlsPlayer.Events.ERROR, (_event, data) => {
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
}
