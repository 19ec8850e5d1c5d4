// A DASH page with no package of ours: Shaka Player or dash.js, as their own docs set them up,
// playing the MPD URL it is given (an edge session, or a plain signed URL: the control). Served
// by support/user-page.ts: `?player=shaka|dashjs&src=<MPD URL>`. It exposes what the specs read
// (`window.dashPage`): the player's errors, nothing else of its own; the <video> is read directly.
import * as dashjs from 'dashjs'
import shaka from 'shaka-player'

const query = new URLSearchParams(location.search)
const src = query.get('src') ?? ''
const state = { player: query.get('player'), errors: [] as string[], ready: false }
Object.assign(window, { dashPage: state })

const video = document.querySelector('video') as HTMLVideoElement
video.addEventListener('error', () =>
  state.errors.push(`video: ${video.error?.message ?? 'error'}`),
)

async function playShaka() {
  shaka.polyfill.installAll()
  const player = new shaka.Player()
  player.addEventListener('error', (event) => {
    const { detail } = event as unknown as { detail: { code: number; severity: number } }
    state.errors.push(`shaka ${detail.severity === 2 ? 'critical' : 'recoverable'} ${detail.code}`)
  })
  await player.attach(video)
  await player.load(src)
}

function playDashjs() {
  const player = dashjs.MediaPlayer().create()
  player.on(dashjs.MediaPlayer.events.ERROR, (event) => {
    const { error } = event as { error?: { code?: number; message?: string } }
    state.errors.push(`dash.js ${error?.code ?? ''} ${error?.message ?? ''}`.trim())
  })
  player.initialize(video, src, true)
}

if (state.player === 'shaka')
  playShaka().catch((error) => state.errors.push(`shaka load: ${String(error?.code ?? error)}`))
else if (state.player === 'dashjs') playDashjs()
else state.errors.push(`unknown player ${state.player}`)
state.ready = true
