// HLS and DASH clients nobody here wrote (ffmpeg, VLC), driven as users run them, paced in real
// time, and the token worker's session and token endpoints they get their URLs from.
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PORTS, SESSION } from './stack.ts'

const TOKEN = `http://127.0.0.1:${PORTS.tokenNginx}`

/** A video name of its own for one client: the CDN log is then that client's alone. */
export function uniqueVideo(label: string) {
  return `${label}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
}

/** Which manifest a URL names: the master playlist (`hls`) or the MPD (`dash`). */
export type Format = 'hls' | 'dash'
const formatQuery = (format: Format) => (format === 'hls' ? '' : `&format=${format}`)

/** A session URL from the nginx token worker (`GET /session`); `format: 'dash'` names its MPD. */
export async function sessionUrl(
  video: string,
  type: 'vod' | 'live' = 'vod',
  headers: Record<string, string> = {},
  format: Format = 'hls',
): Promise<string> {
  const res = await fetch(`${TOKEN}/session?video=${video}&type=${type}${formatQuery(format)}`, {
    headers,
  })
  if (res.status !== 200) throw new Error(`GET /session: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { session_url: string }).session_url
}

/** A plain signed URL (`GET /token`) living `expire` seconds: the control, without a session. */
export async function plainUrl(
  video: string,
  type: 'vod' | 'live',
  expire: number,
  format: Format = 'hls',
) {
  const res = await fetch(
    `${TOKEN}/token?video=${video}&type=${type}&expire=${expire}${formatQuery(format)}`,
  )
  return ((await res.json()) as { url: string }).url
}

/** The session ID inside a session URL (what the operator revokes). */
export function sessionIdOf(url: string): string {
  const credential = new URL(url).pathname.split('/')[3] ?? ''
  return JSON.parse(Buffer.from(credential.split('.')[1] ?? '', 'base64url').toString()).sid
}

/** `POST /sessions/revoke` as the operator. */
export async function revoke(body: { session_id: string } | { sub: string }) {
  const res = await fetch(`${TOKEN}/sessions/revoke`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${SESSION.adminToken}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  })
  if (res.status !== 200) throw new Error(`revoke: ${res.status} ${await res.text()}`)
}

/** A client run: its process, what it printed, and the file it copied the stream to. */
export interface ClientRun {
  process: ChildProcess
  output: () => string
  /** Resolves with the exit code when the client ends. */
  exited: Promise<number | null>
  file: string
}

const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hls-client-'))
  // VLC refuses to run as root: it runs as nobody, who must write here
  chmodSync(dir, 0o777)
  mkdirSync(dir, { recursive: true })
  return dir
}

const run = (
  command: string,
  args: string[],
  file: string,
  options: SpawnOptions = {},
): ClientRun => {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { process: child, output: () => output, exited, file }
}

/**
 * ffmpeg reading `url` in real time (`-re`), copying the first video and audio streams to an
 * MPEG-TS file. Its exit code proves nothing (it skips segments it cannot open): judge the file
 * and the CDN log. `input`: options before `-i` (`['-rw_timeout', '3000000']`).
 */
export function ffmpeg(
  url: string,
  { seconds, input = [] }: { seconds?: number; input?: string[] } = {},
): ClientRun {
  const file = join(scratch(), 'out.ts')
  const limit = seconds === undefined ? [] : ['-t', String(seconds)]
  return run(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'warning',
      '-re',
      ...input,
      '-i',
      url,
      ...limit,
      '-map',
      '0:v:0',
      '-map',
      '0:a:0?',
      '-c',
      'copy',
      '-f',
      'mpegts',
      '-y',
      file,
    ],
    file,
  )
}

/**
 * Lets `client` run until `until` (epoch ms), then asks it to finish its file (SIGINT), and kills
 * one blocked on a hung connection 5 s later. Resolves when it has exited.
 *
 * @example
 * ```ts
 * await finishBy(ffmpeg(url), Date.now() + 100_000)
 * ```
 */
export async function finishBy(client: ClientRun, until: number): Promise<void> {
  const timers = [
    setTimeout(() => client.process.kill('SIGINT'), Math.max(0, until - Date.now())),
    setTimeout(() => client.process.kill('SIGKILL'), Math.max(0, until - Date.now()) + 5000),
  ]
  await client.exited
  for (const timer of timers) clearTimeout(timer)
}

/**
 * VLC (cvlc, headless) playing `url` in real time while recording what it reads, as a non-root
 * user (VLC refuses root).
 */
export function vlc(url: string): ClientRun {
  const dir = scratch()
  const file = join(dir, 'out.ts')
  const args = [
    '-I',
    'dummy',
    '--play-and-exit',
    '--no-video-title-show',
    '--vout',
    'dummy',
    '--aout',
    'dummy',
    '--sout',
    `#duplicate{dst=display,dst=std{access=file,mux=ts,dst=${file}}}`,
    url,
  ]
  if (process.getuid?.() !== 0) return run('cvlc', args, file)
  // as root: the process itself runs as nobody (no runuser needed, which is not on every PATH)
  const [uid, gid] = nobody()
  return run('cvlc', args, file, { uid, gid, env: { ...process.env, HOME: dir } })
}

/** The uid and gid of the user `nobody` (/etc/passwd). */
const nobody = (): [number, number] => {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'))
  const [, , uid = '65534', gid = '65534'] = line?.split(':') ?? []
  return [Number(uid), Number(gid)]
}

/** Seconds of media in a file, by ffprobe (0 when it holds none). */
export function mediaSeconds(file: string): number {
  const probe = spawnSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file],
    {
      encoding: 'utf8',
    },
  )
  const seconds = Number.parseFloat(probe.stdout.trim())
  return Number.isFinite(seconds) ? seconds : 0
}
