/**
 * `proj-cdn-emulator`'s command line: the media directory, the ports and the address, from the
 * arguments over the environment (the variables `npm start` and the e2e stack set). The secrets
 * stay in the environment only: an argument is visible to every user of the machine (`ps`).
 */
import { parseArgs } from 'node:util'

const NAME = 'proj-cdn-emulator'

/** What `--help` prints. */
export const USAGE = `Usage: ${NAME} [--media <dir>] [--port <n>] [--ip-port <n>] [--origin-port <n>] [--host <address>]

A local CDN that checks tokens as nginx secure_link does: 403 for a bad token, 410 for an
expired one, otherwise the file from the origin with {token}/{expires} stripped. Three servers:
the plain host, the IP-bound host (tokens bound to the viewer's address) and the token-free
origin they fetch from (nginx can proxy to it too).

  --media <dir>        the media to serve: a folder with master.m3u8 and its rendition folders,
                       and optionally manifest.mpd (DASH, SegmentTemplate with @duration)
                       (VOD at /videos/{client_id}_{video}/{token}/{expires}/…, a live window
                       over the same files at /cmaf/…); default the repository's test media
  --port <n>           the plain host; default the port of CDN_DOMAIN, else 8080
  --ip-port <n>        the IP-bound host; default the port of CDN_DOMAIN_IP, else 8081
  --origin-port <n>    the origin; default ORIGIN_PORT, else 8090 (0: any free port, each)
  --host <address>     default 127.0.0.1 (0.0.0.0: every interface)
  -h, --help           this text

The environment: SECRET_KEY (the secret the token backend signs with; default the local one
of apps/token-worker/.dev.vars.example), PREVIOUS_SECRET_KEY (during a rotation: its tokens
still play), CDN_DOMAIN and CDN_DOMAIN_IP (host:port), ORIGIN_PORT.

Exit 2: bad arguments or settings, named; exit 1: a port is taken.`

/** Where and what the emulator serves. */
export interface EmulatorSettings {
  /** The folder of `master.m3u8` and its renditions; `undefined`: the committed test media. */
  mediaDir: string | undefined
  hostname: string
  ports: { plain: number; ip: number; origin: number }
}

/** What the command line asks for: its help, settings to serve, or why it cannot. */
export type CliRequest = { help: true } | { settings: EmulatorSettings } | { error: string }

/** The three ports: the option that sets each, the variable it overrides, the default. */
const PORTS = [
  { key: 'plain', option: 'port', variable: 'CDN_DOMAIN', fallback: '8080' },
  { key: 'ip', option: 'ip-port', variable: 'CDN_DOMAIN_IP', fallback: '8081' },
  { key: 'origin', option: 'origin-port', variable: 'ORIGIN_PORT', fallback: '8090' },
] as const

/** A port's text as the variable gives it: `host:port` for the hosts, a number for the origin. */
const fromVariable = (variable: string, value: string | undefined) =>
  variable === 'ORIGIN_PORT' ? value || undefined : /:(\d+)$/.exec(value ?? '')?.[1]

/**
 * Reads the arguments of `proj-cdn-emulator` and the variables they override. Pure: nothing is
 * opened or checked on disk here.
 *
 * @example
 * ```ts
 * parseCommandLine(['--media', 'my-media', '--port', '9080'], {})
 * // { settings: { mediaDir: 'my-media', hostname: '127.0.0.1', ports: { plain: 9080, ip: 8081, origin: 8090 } } }
 * ```
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliRequest {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        media: { type: 'string' },
        port: { type: 'string' },
        'ip-port': { type: 'string' },
        'origin-port': { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    return { error: (error as Error).message }
  }
  if (values.help) return { help: true }
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined)
  const ports = { plain: 0, ip: 0, origin: 0 }
  for (const { key, option, variable, fallback } of PORTS) {
    const given = text(option)
    const chosen = given ?? fromVariable(variable, env[variable]) ?? fallback
    // 0 is any free port, as with Node's listen()
    if (!/^\d{1,5}$/.test(chosen) || Number(chosen) > 65_535)
      return {
        error: `${given === undefined ? variable : `--${option}`} "${chosen}": not a port (a whole number from 0 to 65535)`,
      }
    ports[key] = Number(chosen)
  }
  const media = text('media')
  if (media === '') return { error: '--media: an empty path' }
  const host = text('host') ?? '127.0.0.1'
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) return { error: `--host "${host}": not an address` }
  return {
    settings: {
      mediaDir: media,
      hostname: host,
      ports,
    },
  }
}
