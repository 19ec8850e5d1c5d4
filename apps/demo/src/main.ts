import 'video.js/dist/video-js.css'
import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
import { createTokenRefresh as createShakaTokenRefresh } from '@proj/shaka-token-refresh'
import {
  type NativeProtection,
  protectNativePlayback,
  registerTokenRefreshWorker,
} from '@proj/sw-token-refresh'
import { type TokenContext, TokenRefresher } from '@proj/token-refresh'
import {
  HLS_TYPE,
  prepareTokenRefresh,
  tokenRefreshOf,
  VHS_TECH_OPTIONS,
} from '@proj/videojs-token-refresh'
import Hls from 'hls.js'
import shaka from 'shaka-player'
import videojs from 'video.js'
import {
  demoConfig,
  PLAYER_NAMES,
  type PlayerName,
  sessionRequestUrl,
  tokenRequestUrl,
} from './config.ts'
import { type PlayerState, section, showHooked, showStatic, watchElement } from './page.ts'
import { showStatus } from './status-panel.ts'

const config = demoConfig(
  location.search,
  import.meta.env.VITE_TOKEN_URL ?? 'http://127.0.0.1:8787/token',
)
const tokenUrl = tokenRequestUrl(config)
const banner = document.querySelector<HTMLElement>('#cdn') as HTMLElement
;(document.querySelector('#settings') as HTMLElement).textContent =
  `${config.type} "${config.video}"${config.format === 'dash' ? ' (DASH)' : ''}, ${config.expire}-second tokens ` +
  `${config.refresh ? `refreshed ${config.refreshLeadSeconds} s before expiry` : 'NOT refreshed (refresh=0)'}` +
  `${config.ipBound ? ', IP-bound' : ''}, from ${tokenUrl}`

const demo: Record<PlayerName, PlayerState> = {
  videojs: { errors: [], fatal: [] },
  hlsjs: { errors: [], fatal: [] },
  shaka: { errors: [], fatal: [] },
  native: { errors: [], fatal: [] },
  session: { errors: [], fatal: [] },
  dashjs: { errors: [], fatal: [] },
}
Object.assign(window, { demo })
for (const name of PLAYER_NAMES) if (!config.players.includes(name)) section(name).hidden = true

// The service worker for native playback: registered early, in parallel with the token fetch,
// wherever native playback may happen (the native player, a browser without MSE, or forced).
const hasMse = typeof MediaSource !== 'undefined' || 'ManagedMediaSource' in window
const worker =
  config.refresh &&
  (config.mode === 'service-worker' ||
    (config.mode === 'auto' && (config.players.includes('native') || !hasMse)))
    ? registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
    : undefined
worker?.catch((error: unknown) => console.info(`[demo] no service worker: ${String(error)}`))
const nativeMode =
  config.mode === 'swap' || config.mode === 'service-worker' || config.mode === 'session'
    ? config.mode
    : 'auto'

/** A session URL of the video (`GET /session`): any HLS client plays it, no package needed. */
const getSessionUrl = async (): Promise<string> => {
  const res = await fetch(sessionRequestUrl(config))
  const body = (await res.json()) as { session_url?: string; error?: string }
  if (!res.ok || !body.session_url) throw new Error(body.error ?? `GET /session: ${res.status}`)
  return body.session_url
}

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

const tokenOptions = (name: PlayerName) => ({
  // the context carries the stream back (one stream per playback under stream limits)
  getToken: (context: TokenContext) => fetchToken(tokenUrl, context),
  ipBound: config.ipBound,
  refreshLeadSeconds: config.refreshLeadSeconds,
  onError: (error: unknown) => demo[name].errors.push(String(error)),
})

/** Records the native protection of a player once it is known. */
const trackNative = async (
  name: PlayerName,
  pending: Promise<NativeProtection | undefined> | undefined,
) => {
  const protection = await pending
  if (!protection) return
  demo[name].native = protection
  demo[name].mode = protection.mode
}

/** video.js's source type: VHS plays the MPD as DASH only when told (the plugin's options name HLS). */
const VIDEOJS_TYPE = config.format === 'dash' ? 'application/dash+xml' : HLS_TYPE

const startVideojs = async () => {
  const element = section('videojs').querySelector('video-js') as Element
  let say: (message: string, isError: boolean) => void
  const prepared =
    config.refresh &&
    (await prepareTokenRefresh({
      ...tokenOptions('videojs'),
      mode: config.mode === 'auto' ? 'hooks' : config.mode,
      worker,
    }))
  const player = prepared
    ? videojs(element, {
        ...prepared,
        sources: prepared.sources.map((source) => ({ ...source, type: VIDEOJS_TYPE })),
        autoplay: 'muted',
      })
    : videojs(element, {
        sources: [{ src: await firstUrl(), type: VIDEOJS_TYPE }],
        html5: VHS_TECH_OPTIONS,
        autoplay: 'muted',
      })
  const state = demo.videojs
  state.player = player
  const video = element.querySelector('video')
  if (video) state.video = video
  if (config.refresh) {
    const plugin = tokenRefreshOf(player)
    const refresher = await plugin?.ready
    if (!refresher) return
    state.refresher = refresher
    state.mode = 'hooks'
    player.on('loadstart', () => void trackNative('videojs', plugin?.native))
    say = showStatus(
      section('videojs').querySelector('dl') as HTMLElement,
      refresher,
      config.ipBound,
    )
  } else say = showStatic('videojs')
  player.on('playing', () => say('playing', false))
  player.on('waiting', () => say('buffering', false))
  // video.js's muted autoplay is one play() at the tech's loadstart, which video.js defers to
  // its next 'ready' or 'loadstart' while the player is not ready yet; on a busy machine with
  // native HLS that deferred play() can wait for an event that never comes (a player that
  // loads but never starts, no autoplay-failure either). The page makes sure once the element
  // can play, as it starts the other players itself.
  const ensurePlaying = () => {
    if (!player.paused()) return
    console.info('[demo] video.js did not autoplay: starting playback from the page')
    player.play()?.catch(() => say('press play', false))
  }
  player.one('canplay', ensurePlaying)
  player.on('autoplay-failure', ensurePlaying)
  player.on('error', () => {
    const message = player.error()?.message ?? 'unknown'
    state.fatal.push(message)
    say(`error: ${message}`, true)
  })
}

const startHlsjs = async () => {
  const video = section('hlsjs').querySelector('video') as HTMLVideoElement
  const state = demo.hlsjs
  const hooks = Hls.isSupported() && (config.mode === 'auto' || config.mode === 'hooks')
  if (config.refresh && !hooks) {
    // one integration for every browser: native playback where hls.js cannot run
    const refresh = await createTokenRefresh({ ...tokenOptions('hlsjs'), Hls })
    state.refresher = refresh.refresher
    state.video = video
    const say = showStatus(
      section('hlsjs').querySelector('dl') as HTMLElement,
      refresh.refresher,
      config.ipBound,
    )
    watchElement(video, say)
    await trackNative('hlsjs', refresh.attachNative(video, { worker, mode: nativeMode }))
    video.play().catch(() => say('press play', false))
    return
  }
  if (!Hls.isSupported()) throw new Error('this browser has no MediaSource: hls.js cannot play')
  state.video = video
  let hls: Hls
  let say: (message: string, isError: boolean) => void
  if (config.refresh) {
    const refresh = await createTokenRefresh({
      ...tokenOptions('hlsjs'),
      Hls,
      hlsConfig: {
        ...(config.level !== undefined && { startLevel: config.level }),
        ...(config.buffer !== undefined && {
          maxBufferLength: config.buffer,
          maxMaxBufferLength: config.buffer,
        }),
      },
    })
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
  state.mode = 'hooks'
  watchElement(video, say)
  hls.attachMedia(video)
  video.play().catch(() => say('press play', false))
}

/** Shaka Player with its request filter (MSE playback, its own networking engine). */
const startShaka = async () => {
  const video = section('shaka').querySelector('video') as HTMLVideoElement
  const state = demo.shaka
  state.video = video
  shaka.polyfill.installAll()
  const player = new shaka.Player()
  state.player = player
  await player.attach(video)
  let say: (message: string, isError: boolean) => void
  let url: string
  if (config.refresh) {
    const refresh = await createShakaTokenRefresh(tokenOptions('shaka'))
    say = showHooked('shaka', state, refresh.refresher, config.ipBound)
    refresh.attach(player)
    url = refresh.url
  } else {
    say = showStatic('shaka')
    url = await firstUrl()
  }
  player.addEventListener('error', (event) => {
    const error = (event as Event & { detail?: { code?: number; severity?: number } }).detail
    // severity 2: CRITICAL, playback stopped
    if (error?.severity !== 2) return
    state.fatal.push(`shaka error ${error.code}`)
    say(`fatal error: shaka ${error.code}`, true)
  })
  watchElement(video, say)
  await player.load(url).catch((error: unknown) => {
    state.fatal.push(`load failed: ${String((error as { code?: number }).code ?? error)}`)
    say(`load failed: ${String(error)}`, true)
  })
  video.play().catch(() => say('press play', false))
}

/** A plain `<video>` playing HLS natively, kept fresh by the service worker or by swaps. */
const startNative = async () => {
  const video = section('native').querySelector('video') as HTMLVideoElement
  const state = demo.native
  state.video = video
  const list = section('native').querySelector('dl') as HTMLElement
  if (!config.refresh) {
    const say = showStatic('native')
    watchElement(video, say)
    video.src = await firstUrl()
  } else {
    const refresher = await TokenRefresher.create(tokenOptions('native'))
    state.refresher = refresher
    const say = showStatus(list, refresher, config.ipBound)
    watchElement(video, say)
    await trackNative(
      'native',
      // the ladder: service worker, else the session (one switch), else swaps
      protectNativePlayback(video, refresher, { worker, mode: nativeMode, getSessionUrl }),
    )
  }
  video.addEventListener('error', () => {
    const message = video.error?.message || `media error ${video.error?.code}`
    state.fatal.push(message)
  })
  video.play().catch(() => undefined)
}

/** The fifth player: a bare `<video crossorigin>` on a session URL. No package, no refresh. */
const startSession = async () => {
  const video = section('session').querySelector('video') as HTMLVideoElement
  const state = demo.session
  state.video = video
  state.mode = 'session'
  const say = showStatic('session', 'lane', 'edge session (the worker signs each segment)')
  watchElement(video, say)
  video.addEventListener('error', () => {
    state.fatal.push(video.error?.message || `media error ${video.error?.code}`)
  })
  try {
    video.src = await getSessionUrl()
  } catch (error) {
    say(`no session: ${String(error)}`, true)
    return
  }
  video.play().catch(() => say('press play', false))
}

/** The "play anywhere" box: a session URL to copy, with recipes for clients nobody here wrote. */
const showAnywhere = (box: HTMLDetailsElement) => {
  const field = document.querySelector('#anywhere-url') as HTMLInputElement
  const recipes = document.querySelector('#anywhere-recipes') as HTMLElement
  const fill = async () => {
    try {
      const url = await getSessionUrl()
      field.value = url
      recipes.textContent = [
        `vlc '${url}'`,
        `ffplay '${url}'`,
        `ffmpeg -i '${url}' -c copy recording.ts`,
        'AirPlay: Safari offers it from the page (offerRemotePlayback); Cast: give the receiver this URL',
      ].join('\n')
    } catch (error) {
      recipes.textContent = `No session: ${String(error)} (set SESSION_SECRET on the token worker)`
    }
  }
  box.addEventListener('toggle', () => box.open && void fill())
  ;(document.querySelector('#anywhere-copy') as HTMLButtonElement).addEventListener('click', () => {
    void navigator.clipboard?.writeText(field.value)
  })
}
showAnywhere(document.querySelector('#anywhere') as HTMLDetailsElement)

/** refresh=0: each player plays one fetched URL and nothing ever renews it. */
async function firstUrl(): Promise<string> {
  const first = await fetchToken(tokenUrl)
  return config.ipBound ? first.url_ip : first.url
}

// Not top-level await: the packages load their native protection with import(), which would
// wait for this module to finish evaluating, and this module would wait for them.
const start = async () => {
  // The token worker first (it tells where the CDN is), then the CDN: any HTTP answer from it,
  // even a 404, means it is up.
  const record = await until(`the token worker at ${config.tokenUrl}`, () => fetchToken(tokenUrl))
  const cdn = new URL(config.ipBound ? record.url_ip : record.url).origin
  await until(
    `the CDN at ${cdn}: playback needs the CDN emulator or nginx serving the test media`,
    () => fetch(`${cdn}/`, { cache: 'no-store' }),
  )
  await Promise.all([
    config.players.includes('videojs') && startVideojs(),
    config.players.includes('hlsjs') && startHlsjs(),
    config.players.includes('shaka') && startShaka(),
    config.players.includes('native') && startNative(),
    config.players.includes('session') && startSession(),
    // dash.js only where the page plays DASH: an HLS page never downloads it
    config.players.includes('dashjs') &&
      import('./dashjs-player.ts').then(({ startDashjs }) =>
        startDashjs({ config, state: demo.dashjs, tokenOptions: tokenOptions('dashjs'), firstUrl }),
      ),
  ])
}
void start()
