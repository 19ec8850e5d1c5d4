import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { MAX_NOW_SECONDS } from '@proj/signing'
import { describe, expect, it } from 'vitest'
import { runSignCli, UsageError } from './cli.ts'

const env = {
  CLIENT_ID: '12345',
  SECRET_KEY: 's3cr3t',
  CDN_DOMAIN: 'cdn.example.com',
  CDN_DOMAIN_IP: 'cdn-ip.example.com',
}
const md5url = (text: string) => createHash('md5').update(text).digest('base64url')
const NOW = 1_800_000_000_000

describe('runSignCli', () => {
  it('prints the whole record as JSON by default', () => {
    const record = JSON.parse(
      runSignCli(
        ['--video', 'demo', '--type', 'vod', '--expire', '600', '--ip', '203.0.113.7'],
        env,
        NOW,
      ),
    )
    const expires = 1_800_000_600
    expect(record).toEqual({
      token: md5url(`12345_demo_s3cr3t_${expires}_`),
      token_ip: md5url(`12345_demo_s3cr3t_${expires}_203.0.113.7`),
      client_ip: '203.0.113.7',
      expires,
      url: `https://cdn.example.com/videos/12345_demo/${md5url(`12345_demo_s3cr3t_${expires}_`)}/${expires}/master.m3u8`,
      url_ip: `https://cdn-ip.example.com/videos/12345_demo/${md5url(`12345_demo_s3cr3t_${expires}_203.0.113.7`)}/${expires}/master.m3u8`,
    })
  })

  it('reads only the signing variables: JWT settings of the token worker do not matter', () => {
    const withBrokenAuth = { ...env, AUTH_MODE: 'jwt', JWT_SECRET: 'short', JWT_ALG: 'nonsense' }
    expect(
      runSignCli(['--video', 'demo', '--print', 'token', '--now', '1800000000'], withBrokenAuth, 0),
    ).toBe(md5url('12345_demo_s3cr3t_1800003600_'))
  })

  it('prints one field, live by default, with --now for reproducible output', () => {
    expect(runSignCli(['--video', 'cam1', '--print', 'url', '--now', '1800000000'], env, 0)).toBe(
      `https://cdn.example.com/cmaf/12345_cam1/${md5url('12345_cam1_s3cr3t_1800003600_')}/1800003600/master.m3u8`,
    )
    expect(runSignCli(['--video', 'cam1', '--print', 'token_ip', '--ip', '::1'], env, NOW)).toBe(
      md5url('12345_cam1_s3cr3t_1800003600_::1'),
    )
  })

  it('names the DASH manifest with --format dash, the same token', () => {
    const argv = ['--video', 'cam1', '--print', 'url', '--now', '1800000000']
    expect(runSignCli([...argv, '--format', 'dash'], env, 0)).toBe(
      `https://cdn.example.com/cmaf/12345_cam1/${md5url('12345_cam1_s3cr3t_1800003600_')}/1800003600/manifest.mpd`,
    )
    expect(runSignCli([...argv, '--format', 'hls'], env, 0)).toBe(runSignCli(argv, env, 0))
  })

  it.each([
    [[], '--video is required'],
    [['--video', 'demo', '--format', 'mpd'], '--format must be hls or dash'],
    [['--video', 'a/b'], 'video must be 1 to 128 characters'],
    [['--video', 'demo', '--ip', 'x'], 'client_ip is not a valid'],
    [['--video', 'demo', '--print', 'all'], '--print must be one of'],
    [['--video', 'demo', '--now', 'yesterday'], '--now must be Unix seconds'],
    [['--video', 'demo', '--bogus'], "Unknown option '--bogus'"],
    [['--video', 'demo', '--now', '1000000000000000000000'], '--now must be Unix seconds'],
    [['--video', 'demo', '--now', '9007199254740991'], '--now must be Unix seconds from 0 to'],
    [['--video', 'demo', '--now', String(MAX_NOW_SECONDS + 1)], '--now must be Unix seconds'],
    [['--video', 'demo', '--now=-5'], '--now must be Unix seconds'],
    [['--video', 'demo', '--video', 'other'], '--video is given more than once'],
    [['--video', 'demo', '--print', 'token', '--print', 'url'], '--print is given more than once'],
    [['--video=demo', '--type', 'vod', '--type=live'], '--type is given more than once'],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(() => runSignCli(argv, env, NOW)).toThrow(UsageError)
    expect(() => runSignCli(argv, env, NOW)).toThrow(message)
  })
})

describe('--now at its limit', () => {
  it('signs exact expiries up to the latest clock that keeps them safe integers', () => {
    const argv = ['--video', 'demo', '--now', String(MAX_NOW_SECONDS), '--print', 'url']
    expect(runSignCli([...argv, '--expire', '1735689600'], env, NOW)).toContain(
      `/${Number.MAX_SAFE_INTEGER}/master.m3u8`,
    )
  })
})

describe('the proj-sign executable', () => {
  const bin = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const run = (argv: string[], runEnv: Record<string, string>) =>
    spawnSync(process.execPath, [bin, ...argv], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...runEnv },
    })

  it('prints a signed URL and exits 0', () => {
    const result = run(
      ['--video', 'demo', '--type', 'vod', '--expire', '1900000000', '--print', 'url'],
      env,
    )
    expect(result.status).toBe(0)
    expect(result.stdout).toBe(
      `https://cdn.example.com/videos/12345_demo/${md5url('12345_demo_s3cr3t_1900000000_')}/1900000000/master.m3u8\n`,
    )
  })

  it('exits 2 with usage on bad arguments and 1 naming a bad variable, never printing the secret', () => {
    const usage = run([], env)
    expect(usage.status).toBe(2)
    expect(usage.stderr).toContain('--video is required')
    expect(usage.stderr).toContain('Usage: proj-sign')
    const config = run(['--video', 'demo'], { ...env, CDN_DOMAIN: 'not a host' })
    expect(config.status).toBe(1)
    expect(config.stderr).toBe(
      'proj-sign: bad configuration: CDN_DOMAIN must be a host name, optionally with :port\n',
    )
    expect(config.stderr + config.stdout).not.toContain('s3cr3t')
  })

  it('refuses a repeated option with exit 2 naming it, and documents the exit codes', () => {
    const twice = run(['--video', 'demo', '--video', 'other', '--print', 'url'], env)
    expect(twice.status).toBe(2)
    expect(twice.stdout).toBe('')
    expect(twice.stderr).toContain('proj-sign: --video is given more than once')
    const help = run(['--help'], env)
    expect(help.status).toBe(0)
    expect(help.stdout).toContain(
      'Exit codes: 0 ok, 1 bad configuration (names the variable),\n2 bad arguments',
    )
  })
})
