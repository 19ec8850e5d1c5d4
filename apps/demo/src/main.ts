import 'video.js/dist/video-js.css'
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import type { TokenRefresher } from '@proj/token-refresh'
import { prepareTokenRefresh, tokenRefreshOf } from '@proj/videojs-token-refresh'
import Hls from 'hls.js'
import videojs from 'video.js'
import { demoConfig, tokenRequestUrl } from './config.ts'
import { showStatus } from './status-panel.ts'

const config = demoConfig(
  location.search,
  import.meta.env.VITE_TOKEN_URL ?? 'http://127.0.0.1:8787/token',
)
const tokenUrl = tokenRequestUrl(config)
const banner = document.querySelector<HTMLElement>('#cdn') as HTMLElement
;(document.querySelector('#settings') as HTMLElement).textContent =
  `${config.type} "${config.video}", ${config.expire}-second tokens refreshed ${config.refreshLeadSeconds} s before expiry` +
  `${config.ipBound ? ', IP-bound' : ''}, from ${tokenUrl}`

/** State for people poking around in devtools, and for the e2e suite. */
const demo: Record<string, { refresher?: TokenRefresher; player?: unknown; errors: string[] }> = {
  videojs: { errors: [] },
  hlsjs: { errors: [] },
}
Object.assign(window, { demo })

/** Retries `attempt` every 2 s, saying on the page what the demo is waiting for. */
const until = async <T>(what: string, attempt: () => Promise<T>): Promise<T> => {
  for (;;) {
    try {
      const result = await attempt()
      banner.hidden = true
      return result
    } catch (error) {
      banner.hidden = false
      banner.textContent = `Waiting for ${what} (${String(error)}). Retrying every 2 s.`
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
  }
}

const tokenOptions = (name: 'videojs' | 'hlsjs') => ({
  getToken: () => fetchToken(tokenUrl),
  ipBound: config.ipBound,
  refreshLeadSeconds: config.refreshLeadSeconds,
  onError: (error: unknown) => demo[name]?.errors.push(String(error)),
})

const section = (id: string) => document.querySelector(`#${id}`) as HTMLElement

const startVideojs = async () => {
  const player = videojs(section('videojs').querySelector('video-js') as Element, {
    ...(await prepareTokenRefresh(tokenOptions('videojs'))),
    autoplay: 'muted',
  })
  const refresher = await tokenRefreshOf(player)?.ready
  if (!refresher) return
  demo.videojs = { ...demo.videojs, refresher, player, errors: demo.videojs?.errors ?? [] }
  const say = showStatus(
    section('videojs').querySelector('dl') as HTMLElement,
    refresher,
    config.ipBound,
  )
  player.on('playing', () => say('playing', false))
  player.on('waiting', () => say('buffering', false))
  player.on('error', () => say(`error: ${player.error()?.message ?? 'unknown'}`, true))
}

const startHlsjs = async () => {
  const video = section('hlsjs').querySelector('video') as HTMLVideoElement
  if (!Hls.isSupported()) throw new Error('this browser has no MediaSource: hls.js cannot play')
  const refresh = await createTokenRefresh(tokenOptions('hlsjs'))
  demo.hlsjs = { ...demo.hlsjs, refresher: refresh.refresher, errors: demo.hlsjs?.errors ?? [] }
  const say = showStatus(
    section('hlsjs').querySelector('dl') as HTMLElement,
    refresh.refresher,
    config.ipBound,
  )
  const hls = new Hls(refresh.hlsConfig)
  refresh.attach(hls)
  if (demo.hlsjs) demo.hlsjs.player = hls
  hls.on(Hls.Events.ERROR, (_, data) => {
    if (data.fatal) say(`fatal error: ${data.details}`, true)
  })
  video.addEventListener('playing', () => say('playing', false))
  video.addEventListener('waiting', () => say('buffering', false))
  hls.loadSource(refresh.url)
  hls.attachMedia(video)
  video.play().catch(() => say('press play', false))
}

// The token worker first (it tells where the CDN is), then the CDN: any HTTP answer from it,
// even a 404, means it is up.
const record = await until(`the token worker at ${config.tokenUrl}`, () => fetchToken(tokenUrl))
const cdn = new URL(config.ipBound ? record.url_ip : record.url).origin
await until(
  `the CDN at ${cdn}: playback needs the CDN emulator or nginx serving the test media`,
  () => fetch(`${cdn}/`, { cache: 'no-store' }),
)
await Promise.all([startVideojs(), startHlsjs()])
