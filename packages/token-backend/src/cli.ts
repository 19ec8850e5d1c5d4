/**
 * `proj-token-backend`, the token backend as a command (`dist/bin.js`): its arguments, where its
 * settings come from, and a graceful stop. Standard output carries only the audit lines (JSON,
 * one per issued token or session), so it can be piped to a log shipper; what the command says
 * to a person goes to standard error.
 */
import { readFileSync } from 'node:fs'
import { parseArgs, parseEnv } from 'node:util'
import {
  CONFIG_VARIABLES,
  ConfigError,
  type ConfigVariable,
  isCdnVariable,
  type TokenBackendEnv,
} from './config.ts'
import { batchedLines, serveTokenApp } from './node.ts'

export { SHUTDOWN_GRACE_MS } from './node.ts'

/** The command's name, as its messages start. */
const NAME = 'proj-token-backend'

/** What `--help` prints. */
export const USAGE = `Usage: ${NAME} [--config <file.json>] [--env-file <file>] [--port <n>] [--host <address>]

Serves the token backend (GET /token, GET /session, /s/…) on Node. Its settings are the
variables of docs/configuration.md: CLIENT_ID, SECRET_KEY, CDN_DOMAIN, CDN_DOMAIN_IP,
AUTH_MODE, JWT_*, ALLOWED_ORIGINS, SESSION_*, REDIS_URL, CDNS (with CDN_<ID>_* and
SECRET_KEY_<ID> per listed CDN), …, read from the environment and from files:

  --config <file>    a JSON object of those variables: {"SECRET_KEY": "…", "CDN_DOMAIN": "…"}
                     (numbers and booleans are taken as text, lists may be arrays)
  --env-file <file>  the same in dotenv form, one NAME=value a line (like wrangler's .dev.vars);
                     Node reads this option too: a missing file stops Node itself (exit 9)
  --port <n>         where to listen; default PORT, else 8787 (0: any free port)
  --host <address>   default HOST, else 127.0.0.1 (0.0.0.0: every interface)
  -h, --help         this text

Several instances behind one balancer share their sessions through Redis: set REDIS_URL
(redis://[user:password@]host:6379/0, or rediss:// for TLS) on every one. Without it each
process keeps its own; INSTANCES=<n> (n > 1) makes the command warn about that at start.

A file's variables override the environment's (--config over --env-file), and --port/--host
override everything. A name no setting has is refused: a misspelt AUTH_MODE must not leave
the tokens open to everyone.

Standard output: one JSON audit line per issued token or session. Standard error: the rest.
SIGTERM or SIGINT: stop accepting connections, let open requests finish (at most 10 s),
write the last audit lines, exit 0. Exit 2: bad arguments or settings (named, never their
value), before anything listens; exit 1: could not listen, Redis (REDIS_URL) unreachable at
start, or requests cut at the deadline.`

/** Bad arguments or settings: exit 2, the message printed (never a value). */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** What the command line asks for. */
export type CliRequest =
  | { help: true }
  | {
      help: false
      /** `--config`: a JSON file of variables. */
      config: string | undefined
      /** `--env-file`: a dotenv file of variables. */
      envFile: string | undefined
      port: string | undefined
      host: string | undefined
    }

/**
 * Parses the arguments of `proj-token-backend` (no settings are read yet).
 *
 * @throws {UsageError} on an unknown option, a missing value or a positional argument.
 * @example
 * ```ts
 * parseCommandLine(['--config', 'tokens.json', '--port', '9000'])
 * // { help: false, config: 'tokens.json', envFile: undefined, port: '9000', host: undefined }
 * ```
 */
export function parseCommandLine(argv: readonly string[]): CliRequest {
  let values: ReturnType<typeof parse>['values']
  try {
    values = parse(argv).values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (values.help) return { help: true }
  return {
    help: false,
    config: values.config,
    envFile: values['env-file'],
    port: values.port,
    host: values.host,
  }
}

const parse = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: 'string' },
      'env-file': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })

/** The command's own three, beside the backend's variables (the configuration table's). */
type Setting = ConfigVariable | 'PORT' | 'HOST' | 'INSTANCES'
const SETTINGS: ReadonlySet<string> = new Set([
  ...Object.keys(CONFIG_VARIABLES),
  'PORT',
  'HOST',
  'INSTANCES',
])
/** A setting's name: the table's, the command's, or a variable of a CDN listed in `CDNS`. */
const isSetting = (name: string): name is Setting => SETTINGS.has(name) || isCdnVariable(name)

/** What the server runs with, and where each variable came from (for error messages). */
export interface CliSettings {
  variables: TokenBackendEnv
  port: number
  hostname: string
  /** `INSTANCES`: how many serve together (only for the warning about unshared state). */
  instances: number
  /** Variable → `--config tokens.json` or `--env-file .env`; absent: the environment. */
  sources: ReadonlyMap<string, string>
}

/**
 * The settings of a `serve` request: the environment's variables, then the `--env-file`'s, then
 * the `--config`'s, then `--port`/`--host`. Only the names of settings are taken from the
 * environment; a file naming anything else is refused.
 *
 * @throws {UsageError} for an unreadable file, a malformed one, an unknown name or a bad port,
 * naming the file and the variable, never a value.
 * @example
 * ```ts
 * settingsOf({ help: false, config: 'tokens.json', envFile: undefined, port: '0', host: undefined }, process.env)
 * ```
 */
export function settingsOf(
  request: Extract<CliRequest, { help: false }>,
  env: Readonly<Record<string, string | undefined>>,
): CliSettings {
  const merged: Partial<Record<Setting, string>> = {}
  const sources = new Map<string, string>()
  for (const name of SETTINGS) {
    const value = env[name]
    if (value !== undefined) merged[name as Setting] = value
  }
  // the variables of each CDN of CDNS have names of their own making
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && isCdnVariable(name)) merged[name as Setting] = value
  const overlay = (label: string, variables: Record<string, string>) => {
    for (const [name, value] of Object.entries(variables)) {
      if (!isSetting(name))
        throw new UsageError(`${label}: ${name} is not a setting of ${NAME} (see --help)`)
      merged[name] = value
      sources.set(name, label)
    }
  }
  if (request.envFile !== undefined) {
    const label = `--env-file ${request.envFile}`
    overlay(label, envFileVariables(readText(label, request.envFile)))
  }
  if (request.config !== undefined) {
    const label = `--config ${request.config}`
    overlay(label, jsonVariables(label, readText(label, request.config)))
  }
  const { PORT, HOST, INSTANCES, ...variables } = merged
  const portText = request.port ?? PORT ?? '8787'
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65_535)
    throw new UsageError(
      `${request.port !== undefined ? '--port' : labelled('PORT', sources)} must be a port number from 0 to 65535`,
    )
  const hostname = request.host ?? HOST ?? '127.0.0.1'
  if (hostname === '')
    throw new UsageError(`${request.host !== undefined ? '--host' : 'HOST'} must not be empty`)
  const instancesText = INSTANCES === undefined || INSTANCES === '' ? '1' : INSTANCES
  if (!/^[1-9]\d{0,3}$/.test(instancesText))
    throw new UsageError(
      `${labelled('INSTANCES', sources)} must be a whole number of instances, 1 or more`,
    )
  return { variables, port: Number(portText), hostname, instances: Number(instancesText), sources }
}

/** A variable's name, with the file it was set in when it was not the environment. */
const labelled = (name: string, sources: ReadonlyMap<string, string>) => {
  const source = sources.get(name)
  return source === undefined ? name : `${name} (${source})`
}

function readText(label: string, path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`${label}: cannot read it (${(error as NodeJS.ErrnoException).code})`)
  }
}

/** dotenv lines, by Node's own parser (the rules of `node --env-file`). */
function envFileVariables(text: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(parseEnv(text)).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  )
}

/** A JSON object of variables as their text: the same rules as the environment afterwards. */
function jsonVariables(label: string, text: string): Record<string, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // JSON.parse's message quotes the text around the fault: it may be a secret
    throw new UsageError(`${label}: not valid JSON`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${label}: must be a JSON object of variables, {"SECRET_KEY": "…", …}`)
  const variables: Record<string, string> = {}
  for (const [name, value] of Object.entries(parsed)) {
    const asText = variableText(name, value)
    if (asText === undefined)
      throw new UsageError(`${label}: ${name} must be a string, a number, a boolean or a list`)
    variables[name] = asText
  }
  return variables
}

/** How a JSON value reads as a variable: lists joined by commas, the JWKS kept as JSON. */
function variableText(name: string, value: unknown): string | undefined {
  if (name === 'JWT_JWKS' && typeof value === 'object' && value !== null)
    return JSON.stringify(value)
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return value.join(',')
  return undefined
}

/**
 * Runs the command: `--help`, or the server until SIGTERM/SIGINT. Resolves with the exit code;
 * the caller exits with it (the server's own handles are gone by then, others may not be).
 *
 * @example
 * ```ts
 * process.exit(await runTokenBackendCli(process.argv.slice(2), process.env))
 * ```
 */
export async function runTokenBackendCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let request: CliRequest
  try {
    request = parseCommandLine(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    console.error(`${NAME}: ${error.message}\n(${NAME} --help for the usage)`)
    return 2
  }
  if (request.help) {
    console.log(USAGE)
    return 0
  }
  let settings: CliSettings | undefined
  let stopped: (code: number) => void = () => undefined
  const done = new Promise<number>((resolve) => {
    stopped = resolve
  })
  try {
    settings = settingsOf(request, env)
    // serveTokenApp validates the variables before listening, and stops on SIGTERM/SIGINT
    serveTokenApp(
      {
        env: settings.variables,
        port: settings.port,
        hostname: settings.hostname,
        instances: settings.instances,
        audit: batchedLines(process.stdout),
        onStopped: stopped,
        log: (message) => console.error(`${NAME}: ${message}`),
      },
      ({ url }) =>
        console.error(`${NAME}: listening on ${url} (GET /token?video=…, GET /session?video=…)`),
    )
  } catch (error) {
    if (error instanceof UsageError) console.error(`${NAME}: ${error.message}`)
    else if (error instanceof ConfigError) {
      const where = settings?.sources.get(error.variable)
      const source = where === undefined ? '' : ` (set by ${where})`
      // the advice (where a Worker's secret is put, wrangler.jsonc) is not for this command
      console.error(`${NAME}: bad configuration: ${error.variable} ${error.expected}${source}`)
    } else throw error
    return 2
  }
  return done
}
