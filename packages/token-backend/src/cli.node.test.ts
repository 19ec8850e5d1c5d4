import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseCommandLine, settingsOf, UsageError } from './cli.ts'

const folder = mkdtempSync(join(tmpdir(), 'token-backend-cli-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const path = join(folder, name)
  writeFileSync(path, text)
  return path
}
const serve = (over: Partial<Extract<ReturnType<typeof parseCommandLine>, { help: false }>>) => ({
  help: false as const,
  config: undefined,
  envFile: undefined,
  port: undefined,
  host: undefined,
  ...over,
})

describe('parseCommandLine', () => {
  it('reads the options, in either form', () => {
    expect(
      parseCommandLine(['--config', 'a.json', '--env-file=.env', '--port', '0', '--host=::1']),
    ).toEqual({ help: false, config: 'a.json', envFile: '.env', port: '0', host: '::1' })
    expect(parseCommandLine([])).toEqual(serve({}))
  })

  it('answers --help and -h whatever else is given', () => {
    expect(parseCommandLine(['-h'])).toEqual({ help: true })
    expect(parseCommandLine(['--port', '1', '--help'])).toEqual({ help: true })
  })

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['serve'], 'Unexpected argument'],
    [['--config'], "Option '--config <value>' argument missing"],
    [['--help=yes'], "Option '-h, --help' does not take an argument"],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError)
    expect(() => parseCommandLine(argv)).toThrow(message)
  })
})

describe('settingsOf', () => {
  const env = { SECRET_KEY: 'from-env', CDN_DOMAIN: 'env.test', HOME: '/root', PORT: '9001' }

  it('takes only settings from the environment, PORT and HOST apart', () => {
    const settings = settingsOf(serve({}), env)
    expect(settings.variables).toEqual({ SECRET_KEY: 'from-env', CDN_DOMAIN: 'env.test' })
    expect(settings).toMatchObject({ port: 9001, hostname: '127.0.0.1' })
    expect(settingsOf(serve({}), {})).toMatchObject({ port: 8787, hostname: '127.0.0.1' })
  })

  it('takes the variables of each listed CDN, from the environment and from files', () => {
    const envFile = file(
      'cdns.env',
      'CDNS=b,eu-west\nCDN_EU_WEST_DOMAIN=eu.test\nSECRET_KEY_EU_WEST=e\n',
    )
    const settings = settingsOf(serve({ envFile }), {
      CDN_B_DOMAIN: 'b.test',
      CDN_B_DOMAIN_IP: 'b-ip.test',
      SECRET_KEY_B: 'b',
      CDN_ID: 'main',
      CDN_COLOR: 'blue',
    })
    expect(settings.variables).toEqual({
      CDN_ID: 'main',
      CDNS: 'b,eu-west',
      CDN_B_DOMAIN: 'b.test',
      CDN_B_DOMAIN_IP: 'b-ip.test',
      SECRET_KEY_B: 'b',
      CDN_EU_WEST_DOMAIN: 'eu.test',
      SECRET_KEY_EU_WEST: 'e',
    })
  })

  it('lays the --env-file, then the --config over the environment, then --port/--host', () => {
    const envFile = file(
      'layers.env',
      'CDN_DOMAIN=file.test\nCLIENT_ID="12345" # quoted\nHOST=0.0.0.0\n',
    )
    const config = file('layers.json', '{"CDN_DOMAIN":"json.test","PORT":9100}')
    const settings = settingsOf(serve({ envFile, config }), env)
    expect(settings.variables).toEqual({
      SECRET_KEY: 'from-env',
      CDN_DOMAIN: 'json.test',
      CLIENT_ID: '12345',
    })
    expect(settings).toMatchObject({ port: 9100, hostname: '0.0.0.0' })
    expect(settings.sources.get('CDN_DOMAIN')).toBe(`--config ${config}`)
    expect(settings.sources.get('CLIENT_ID')).toBe(`--env-file ${envFile}`)
    expect(settings.sources.has('SECRET_KEY')).toBe(false)
    expect(settingsOf(serve({ config, port: '0', host: '::1' }), env)).toMatchObject({
      port: 0,
      hostname: '::1',
    })
  })

  it('reads JSON numbers, booleans and lists as the variables would hold them', () => {
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'abc' }] }
    const config = file(
      'types.json',
      JSON.stringify({
        CLIENT_ID: 12345,
        JWT_REQUIRE_EXP: false,
        ALLOWED_ORIGINS: ['https://a.test', 'https://b.test'],
        JWT_JWKS: jwks,
      }),
    )
    expect(settingsOf(serve({ config }), {}).variables).toEqual({
      CLIENT_ID: '12345',
      JWT_REQUIRE_EXP: 'false',
      ALLOWED_ORIGINS: 'https://a.test,https://b.test',
      JWT_JWKS: JSON.stringify(jwks),
    })
  })

  it.each([
    ['typo.json', '{"AUTH_MDOE":"jwt"}', 'AUTH_MDOE is not a setting of proj-token-backend'],
    ['array.json', '["SECRET_KEY"]', 'must be a JSON object of variables'],
    ['nested.json', '{"CDN_DOMAIN":{"host":"a"}}', 'CDN_DOMAIN must be a string, a number'],
  ])('refuses the --config %s: %s', (name, text, message) => {
    const config = file(name, text)
    expect(() => settingsOf(serve({ config }), {})).toThrow(`--config ${config}: ${message}`)
  })

  it('says a file is not JSON without quoting it (it may hold a secret)', () => {
    const config = file('broken.json', '{"SECRET_KEY": hunter2-secret}')
    expect(() => settingsOf(serve({ config }), {})).toThrow(`--config ${config}: not valid JSON`)
    try {
      settingsOf(serve({ config }), {})
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2')
    }
  })

  it('refuses an --env-file naming no setting, and a file it cannot read', () => {
    const envFile = file('typo.env', 'SECRET_KEY=x\nSESION_SECRET=y\n')
    expect(() => settingsOf(serve({ envFile }), {})).toThrow(
      `--env-file ${envFile}: SESION_SECRET is not a setting`,
    )
    expect(() => settingsOf(serve({ config: join(folder, 'absent.json') }), {})).toThrow(
      'cannot read it (ENOENT)',
    )
  })

  it.each([
    [{ port: '65536' }, {}, '--port must be a port number'],
    [{ port: '-1' }, {}, '--port must be a port number'],
    [{}, { PORT: 'http' }, 'PORT must be a port number'],
    [{ host: '' }, {}, '--host must not be empty'],
  ])('refuses %j with %j: %s', (flags, environment, message) => {
    expect(() => settingsOf(serve(flags), environment)).toThrow(message)
  })

  it('names the file a bad PORT came from', () => {
    const config = file('port.json', '{"PORT":"eighty"}')
    expect(() => settingsOf(serve({ config }), {})).toThrow(
      `PORT (--config ${config}) must be a port number`,
    )
  })
})

// a process each, its TypeScript stripped by Node at start: seconds on a busy machine
describe('the proj-token-backend executable (bin.ts, on this Node)', { timeout: 30_000 }, () => {
  const bin = join(import.meta.dirname, 'bin.ts')
  const signing = {
    CLIENT_ID: '12345',
    SECRET_KEY: 'cli-secret-7d1e',
    CDN_DOMAIN: 'cdn.cli.test',
    CDN_DOMAIN_IP: 'cdn-ip.cli.test',
    AUTH_MODE: 'none',
  }
  const start = (argv: string[], env: Record<string, string>) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      env: { PATH: process.env.PATH ?? '', ...env },
    })
    const output = { stdout: '', stderr: '' }
    child.stdout.on('data', (chunk) => {
      output.stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      output.stderr += chunk
    })
    return { child, output }
  }
  const exitOf = async (child: ChildProcess) => {
    const [code, signal] = await once(child, 'exit')
    return { code, signal }
  }

  it('fails a bad configuration with exit 2, naming the variable, not its value', async () => {
    const { child, output } = start(['--port', '0'], { ...signing, SESSION_SECRET: 'too-short' })
    expect(await exitOf(child)).toEqual({ code: 2, signal: null })
    expect(output.stderr).toContain('bad configuration: SESSION_SECRET must be at least 32')
    expect(output.stderr + output.stdout).not.toContain('too-short')
    expect(output.stderr + output.stdout).not.toContain(signing.SECRET_KEY)
  })

  it('fails an unset AUTH_MODE with exit 2, naming the two choices', async () => {
    const { AUTH_MODE: _unset, ...unchosen } = signing
    const { child, output } = start(['--port', '0'], unchosen)
    expect(await exitOf(child)).toEqual({ code: 2, signal: null })
    expect(output.stderr).toContain(
      'bad configuration: AUTH_MODE is required: it must be "jwt" (viewers need a JWT: set JWT_SECRET, JWT_JWKS_URL or JWT_JWKS) or "none" (anyone may get tokens)',
    )
  })

  it('serves tokens, and on SIGTERM stops with exit 0 after writing their audit lines', async () => {
    const { child, output } = start(['--port', '0'], signing)
    const [port] = await new Promise<string[]>((resolve, reject) => {
      child.stderr.on('data', () => {
        const found = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(output.stderr)
        if (found?.[1]) resolve([found[1]])
      })
      child.on('exit', () => reject(new Error(`exited before listening: ${output.stderr}`)))
    })
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((video) => fetch(`http://127.0.0.1:${port}/token?video=${video}`)),
    )
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    const records = (await Promise.all(answers.map((answer) => answer.json()))) as {
      expires: number
    }[]
    child.kill('SIGTERM')
    // the fetches' keep-alive connections are still open: closed as idle, not waited for
    expect(await exitOf(child)).toEqual({ code: 0, signal: null })
    const lines = output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => [line.event, line.video, line.expires])).toEqual(
      ['a', 'b', 'c'].map((video, i) => ['token_issued', video, records[i]?.expires]),
    )
    expect(output.stderr).toContain('SIGTERM: not accepting connections')
    expect(output.stderr).toContain('proj-token-backend: stopped')
  })
})
