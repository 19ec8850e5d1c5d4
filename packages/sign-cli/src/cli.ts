#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { createTokenRecord, MAX_NOW_SECONDS, manifestFormat, type TokenRecord } from '@proj/signing'
import { ConfigError, parseSigningConfig, type SigningEnv } from '@proj/signing/config'

const USAGE = `Usage: proj-sign --video <slug> [--type vod|live] [--expire <seconds|timestamp>] [--ip <address>]
                 [--format hls|dash] [--print record|url|url_ip|token|token_ip] [--now <unix seconds>]

Signs like GET /token, with the signing configuration from the environment (the token worker's):
  CLIENT_ID, SECRET_KEY, CDN_DOMAIN, CDN_DOMAIN_IP, [CDN_SCHEME], [MAX_EXPIRE_SECONDS]
  (pnpm sign:local … signs with apps/token-worker/.dev.vars, the local stack's values)

  --video   video slug (VOD) or stream ID (live); required
  --type    "vod" for /videos/, anything else is live (/cmaf/); default live
  --expire  lifetime in seconds, or an absolute Unix timestamp above 1735689600; default 3600
  --ip      viewer IP for token_ip/url_ip; default 0.0.0.0
  --format  hls (master.m3u8, default) or dash (manifest.mpd): the file the URLs name
  --print   the whole record as JSON (default) or one field
  --now     sign as if the time were this (Unix seconds), for reproducible output

Each option at most once. Exit codes: 0 ok, 1 bad configuration (names the variable),
2 bad arguments (with this usage).`

const FIELDS = ['record', 'url', 'url_ip', 'token', 'token_ip'] as const
type Field = (typeof FIELDS)[number]

/** Thrown for bad command-line use; the message is printed with the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/**
 * Runs `proj-sign` on `argv` with `env`, returning what to print.
 *
 * @throws {UsageError} on bad arguments, {@link ConfigError} on bad configuration.
 * @example
 * ```ts
 * runSignCli(['--video', 'demo', '--print', 'url'], process.env, Date.now())
 * ```
 */
export function runSignCli(argv: string[], env: SigningEnv, nowMs: number): string {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values } = parsed
  // parseArgs keeps the last of a repeated option: `--video a --video b` would sign b unsaid
  const seen = new Set<string>()
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`)
    seen.add(token.name)
  }
  if (values.help) return USAGE
  if (!values.video) throw new UsageError('--video is required')
  const print = (values.print ?? 'record') as Field
  if (!FIELDS.includes(print)) throw new UsageError(`--print must be one of ${FIELDS.join(', ')}`)
  const format = manifestFormat(values.format)
  if (format === null) throw new UsageError('--format must be hls or dash')
  let nowSeconds = Math.floor(nowMs / 1000)
  if (values.now !== undefined) {
    // every expiry signed from it must stay exact (a safe integer): no `1e+21` in a URL
    const now = /^\d{1,16}$/.test(values.now) ? Number(values.now) : Number.NaN
    if (!(now <= MAX_NOW_SECONDS))
      throw new UsageError(`--now must be Unix seconds from 0 to ${MAX_NOW_SECONDS}`)
    nowSeconds = now
  }
  const signing = parseSigningConfig(env)
  let record: TokenRecord
  try {
    record = createTokenRecord(
      signing,
      {
        video: values.video,
        type: values.type,
        expire: values.expire,
        clientIp: values.ip ?? '0.0.0.0',
        format,
      },
      { nowSeconds },
    )
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  return print === 'record' ? JSON.stringify(record, null, 2) : String(record[print])
}

const parse = (argv: string[]) =>
  parseArgs({
    args: argv,
    strict: true,
    tokens: true,
    options: {
      video: { type: 'string' },
      type: { type: 'string' },
      expire: { type: 'string' },
      ip: { type: 'string' },
      format: { type: 'string' },
      print: { type: 'string' },
      now: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })

if (import.meta.main) {
  try {
    console.log(runSignCli(process.argv.slice(2), process.env, Date.now()))
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`proj-sign: ${error.message}\n\n${USAGE}`)
      process.exit(2)
    }
    if (error instanceof ConfigError) {
      console.error(`proj-sign: bad configuration: ${error.detail}`)
      process.exit(1)
    }
    throw error
  }
}
