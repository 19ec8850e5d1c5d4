#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { createTokenRecord, manifestFormat, type TokenRecord } from '@proj/signing'
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
  --now     sign as if the time were this (Unix seconds), for reproducible output`

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
  let values: ReturnType<typeof parse>['values']
  try {
    values = parse(argv).values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (values.help) return USAGE
  if (!values.video) throw new UsageError('--video is required')
  const print = (values.print ?? 'record') as Field
  if (!FIELDS.includes(print)) throw new UsageError(`--print must be one of ${FIELDS.join(', ')}`)
  const format = manifestFormat(values.format)
  if (format === null) throw new UsageError('--format must be hls or dash')
  let nowSeconds = Math.floor(nowMs / 1000)
  if (values.now !== undefined) {
    if (!/^\d+$/.test(values.now)) throw new UsageError('--now must be Unix seconds')
    nowSeconds = Number(values.now)
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
