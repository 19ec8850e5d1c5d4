import { PROTECTION_MODES, type ProtectionMode } from '@proj/token-refresh'

/**
 * The demo's players: video.js, hls.js, Shaka Player, a plain `<video>` playing HLS natively
 * with the refresh packages, a bare `<video>` on an edge session URL with no package at all, and
 * dash.js (DASH only).
 */
export type PlayerName = 'videojs' | 'hlsjs' | 'shaka' | 'native' | 'session' | 'dashjs'
export const PLAYER_NAMES: readonly PlayerName[] = [
  'videojs',
  'hlsjs',
  'shaka',
  'native',
  'session',
  'dashjs',
]
const MODES = ['auto', ...PROTECTION_MODES] as const

/** The rendition the page plays: the HLS master playlist, or the DASH MPD (`format=dash`). */
export type MediaFormat = 'hls' | 'dash'

/**
 * The players that play `format`: DASH through MSE only (video.js's VHS, Shaka, dash.js; no
 * browser plays an MPD natively, and the session lane's bare `<video>` plays HLS), HLS everywhere
 * but dash.js.
 *
 * @example
 * ```ts
 * playsFormat('shaka', 'dash') // true
 * playsFormat('hlsjs', 'dash') // false
 * ```
 */
export function playsFormat(player: PlayerName, format: MediaFormat): boolean {
  return format === 'dash' ? ['videojs', 'shaka', 'dashjs'].includes(player) : player !== 'dashjs'
}

/** What the demo plays and how it asks for tokens. */
export interface DemoConfig {
  /** The token worker's `/token` endpoint. */
  tokenUrl: string
  video: string
  type: 'vod' | 'live'
  /** `dash` (`format=dash`): the token worker's URLs name the MPD, and the DASH players play it. */
  format: MediaFormat
  /** Token lifetime asked from the worker (`expire`, seconds). */
  expire: number
  refreshLeadSeconds: number
  ipBound: boolean
  /** Ask the worker to bind the IP token to this address (`client_ip`); default: it detects. */
  clientIp: string | undefined
  /** Which players to show (those that play `format`). */
  players: PlayerName[]
  /**
   * `auto` (default): hooks where the player has them (MSE), else the service worker, else swaps.
   * `hooks`, `service-worker`, `swap`: force one (`mode=swap` shows the fallback in Chromium).
   */
  mode: 'auto' | ProtectionMode
  /** `false` (`refresh=0`): play the first URL without the refresh packages (tokens then expire). */
  refresh: boolean
  /** hls.js: start on and cap at this level (`level=0`: the lowest rendition). */
  level: number | undefined
  /**
   * hls.js and dash.js: buffer at most this many seconds ahead (`buffer=12`). By default hls.js
   * sizes its buffer by bytes (60 MB), which at the test media's bitrates is its 600-s ceiling: a
   * short VOD is then wholly loaded within seconds, and a test that changes the CDN mid-playback
   * sees no request after the change. dash.js keeps 30 s at its top quality.
   */
  buffer: number | undefined
  /**
   * dash.js: play a live stream this many seconds behind its edge (`delay=10`,
   * `streaming.delay.liveDelay`); by default the MPD's `suggestedPresentationDelay`. With several
   * CDNs the forward buffer must outlast a failover (see the dash.js package's README).
   */
  liveDelay: number | undefined
}

const positive = (text: string | null, fallback: number): number => {
  const value = Number(text)
  return text !== null && Number.isFinite(value) && value > 0 ? value : fallback
}

/**
 * Reads the demo settings from the page's query string; defaults play the local stack's VOD
 * with 60-second tokens refreshed 15 s (25 %) before expiry.
 *
 * @example
 * ```ts
 * demoConfig('?type=live&expire=20&lead=6&ip=1', 'http://127.0.0.1:8787/token')
 * ```
 */
export function demoConfig(search: string, defaultTokenUrl: string): DemoConfig {
  const query = new URLSearchParams(search)
  const format = query.get('format') === 'dash' ? 'dash' : 'hls'
  return {
    tokenUrl: query.get('token') ?? defaultTokenUrl,
    video: query.get('video') ?? 'demo',
    type: query.get('type') === 'live' ? 'live' : 'vod',
    format,
    expire: positive(query.get('expire'), 60),
    refreshLeadSeconds: positive(query.get('lead'), 15),
    ipBound: query.get('ip') === '1',
    clientIp: query.get('client_ip') ?? undefined,
    players: PLAYER_NAMES.filter(
      (name) => [name, 'all', null].includes(query.get('player')) && playsFormat(name, format),
    ),
    mode: MODES.find((mode) => mode === query.get('mode')) ?? 'auto',
    refresh: query.get('refresh') !== '0',
    level: /^\d+$/.test(query.get('level') ?? '') ? Number(query.get('level')) : undefined,
    buffer: positive(query.get('buffer'), 0) || undefined,
    liveDelay: positive(query.get('delay'), 0) || undefined,
  }
}

/**
 * The token request for `config`.
 *
 * @example
 * ```ts
 * tokenRequestUrl(config) // 'http://127.0.0.1:8787/token?video=demo&type=vod&expire=60'
 * ```
 */
export function tokenRequestUrl(config: DemoConfig): string {
  const url = new URL(config.tokenUrl)
  url.search = new URLSearchParams({
    video: config.video,
    type: config.type,
    expire: String(config.expire),
    ...(config.clientIp ? { client_ip: config.clientIp } : {}),
    ...(config.format === 'dash' ? { format: 'dash' } : {}),
  }).toString()
  return url.href
}

/**
 * The session request for `config`: the token worker's `GET /session`, next to its `/token`.
 *
 * @example
 * ```ts
 * sessionRequestUrl(config) // 'http://127.0.0.1:8787/session?video=demo&type=vod'
 * ```
 */
export function sessionRequestUrl(config: DemoConfig): string {
  const url = new URL(config.tokenUrl)
  url.pathname = url.pathname.replace(/\/token\/?$/, '/session')
  url.search = new URLSearchParams({ video: config.video, type: config.type }).toString()
  return url.href
}

/** What a demo URL says: the query {@link demoConfig} reads, as values. */
export interface DemoQuery {
  player: PlayerName | 'all'
  tokenUrl: string
  type?: 'vod' | 'live' | undefined
  format?: MediaFormat | undefined
  video?: string | undefined
  mode?: DemoConfig['mode'] | undefined
  expire?: number | undefined
  lead?: number | undefined
  ipBound?: boolean | undefined
  clientIp?: string | undefined
  refresh?: boolean | undefined
  buffer?: number | undefined
  liveDelay?: number | undefined
}

/**
 * The query string of a demo URL: the other half of {@link demoConfig}, so tests and links build
 * what the page reads (one contract, declared here).
 *
 * @example
 * ```ts
 * `http://127.0.0.1:5173/?${demoSearch({ player: 'hlsjs', tokenUrl, type: 'live', expire: 20 })}`
 * ```
 */
export function demoSearch(options: DemoQuery): string {
  const query = new URLSearchParams({ player: options.player, token: options.tokenUrl })
  if (options.type) query.set('type', options.type)
  if (options.format === 'dash') query.set('format', 'dash')
  if (options.expire !== undefined) query.set('expire', String(options.expire))
  if (options.lead !== undefined) query.set('lead', String(options.lead))
  if (options.video) query.set('video', options.video)
  if (options.mode) query.set('mode', options.mode)
  if (options.ipBound) query.set('ip', '1')
  if (options.clientIp) query.set('client_ip', options.clientIp)
  if (options.refresh === false) query.set('refresh', '0')
  if (options.buffer !== undefined) query.set('buffer', String(options.buffer))
  if (options.liveDelay !== undefined) query.set('delay', String(options.liveDelay))
  return query.toString()
}
