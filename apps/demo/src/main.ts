import 'video.js/dist/video-js.css'
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import type { TokenRefresher } from '@proj/token-refresh'
import {
  HLS_TYPE,
  prepareTokenRefresh,
  tokenRefreshOf,
  VHS_TECH_OPTIONS,
} from '@proj/videojs-token-refresh'
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
  `${config.type} "${config.video}", ${config.expire}-second tokens ` +
  `${config.refresh ? `refreshed ${config.refreshLeadSeconds} s before expiry` : 'NOT refreshed (refresh=0)'}` +
  `${config.ipBound ? ', IP-bound' : ''}, from ${tokenUrl}`

/** What the page knows about one player: for people poking around in devtools, and for e2e. */
interface PlayerState {
  refresher?: TokenRefresher
  /** The video.js player or the Hls instance. */
  player?: unknown
  video?: HTMLVideoElement
  /** Failed token refreshes (onError). */
  errors: string[]
  /** Fatal player errors. */
  fatal: string[]
}
const demo: Record<'videojs' | 'hlsjs', PlayerState> = {
  videojs: { errors: [], fatal: [] },
  hlsjs: { errors: [], fatal: [] },
}
Object.assign(window, { demo })
for (const name of ['videojs', 'hlsjs'] as const)
  if (!config.players.includes(name)) section(name).hidden = true

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
  onError: (error: unknown) => demo[name].errors.push(String(error)),
})

function section(id: string): HTMLElement {
  return document.querySelector(`#${id}`) as HTMLElement
}

/** A panel line for players started with refresh=0. */
const showStatic = (name: string) => (message: string, isError: boolean) => {
  const list = section(name).querySelector('dl') as HTMLElement
  list.innerHTML = '<dt>refresh</dt><dd>off (refresh=0)</dd><dt>player</dt><dd></dd>'
  const state = list.lastElementChild as HTMLElement
  state.textContent = message
  if (isError) state.className = 'error'
}

const startVideojs = async () => {
  const element = section('videojs').querySelector('video-js') as Element
  let say: (message: string, isError: boolean) => void
  const player = config.refresh
    ? videojs(element, {
        ...(await prepareTokenRefresh(tokenOptions('videojs'))),
        autoplay: 'muted',
      })
    : videojs(element, {
        sources: [{ src: await firstUrl(), type: HLS_TYPE }],
        html5: VHS_TECH_OPTIONS,
        autoplay: 'muted',
      })
  const state = demo.videojs
  state.player = player
  const video = element.querySelector('video')
  if (video) state.video = video
  if (config.refresh) {
    const refresher = await tokenRefreshOf(player)?.ready
    if (!refresher) return
    state.refresher = refresher
    say = showStatus(
      section('videojs').querySelector('dl') as HTMLElement,
      refresher,
      config.ipBound,
    )
  } else say = showStatic('videojs')
  player.on('playing', () => say('playing', false))
  player.on('waiting', () => say('buffering', false))
  player.on('error', () => {
    const message = player.error()?.message ?? 'unknown'
    state.fatal.push(message)
    say(`error: ${message}`, true)
  })
}

const startHlsjs = async () => {
  const video = section('hlsjs').querySelector('video') as HTMLVideoElement
  if (!Hls.isSupported()) throw new Error('this browser has no MediaSource: hls.js cannot play')
  const state = demo.hlsjs
  state.video = video
  let hls: Hls
  let say: (message: string, isError: boolean) => void
  if (config.refresh) {
    const levels = config.level === undefined ? {} : { startLevel: config.level }
    const refresh = await createTokenRefresh({ ...tokenOptions('hlsjs'), hlsConfig: levels })
    state.refresher = refresh.refresher
    say = showStatus(
      section('hlsjs').querySelector('dl') as HTMLElement,
      refresh.refresher,
      config.ipBound,
    )
    hls = new Hls(refresh.hlsConfig)
    const { level } = config
    // hls.js resets the cap when a manifest loads: set it once the levels are known
    if (level !== undefined)
      hls.on(Hls.Events.MANIFEST_PARSED, () => {
        hls.autoLevelCapping = level
      })
    refresh.attach(hls)
    hls.loadSource(refresh.url)
  } else {
    say = showStatic('hlsjs')
    hls = new Hls()
    hls.loadSource(await firstUrl())
  }
  state.player = hls
  hls.on(Hls.Events.ERROR, (_, data) => {
    if (!data.fatal) return
    state.fatal.push(`${data.details} ${data.response?.code ?? ''}`.trim())
    say(`fatal error: ${data.details}`, true)
  })
  video.addEventListener('playing', () => say('playing', false))
  video.addEventListener('waiting', () => say('buffering', false))
  hls.attachMedia(video)
  video.play().catch(() => say('press play', false))
}

// The token worker first (it tells where the CDN is), then the CDN: any HTTP answer from it,
// even a 404, means it is up.
const record = await until(`the token worker at ${config.tokenUrl}`, () => fetchToken(tokenUrl))
const cdn = new URL(config.ipBound ? record.url_ip : record.url).origin
/** refresh=0: each player plays one fetched URL and nothing ever renews it. */
async function firstUrl(): Promise<string> {
  const first = await fetchToken(tokenUrl)
  return config.ipBound ? first.url_ip : first.url
}
await until(
  `the CDN at ${cdn}: playback needs the CDN emulator or nginx serving the test media`,
  () => fetch(`${cdn}/`, { cache: 'no-store' }),
)
await Promise.all([
  config.players.includes('videojs') && startVideojs(),
  config.players.includes('hlsjs') && startHlsjs(),
])
