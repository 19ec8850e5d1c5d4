#!/usr/bin/env node
// The token backend on the oldest Node its package admits (issue 25): the lowest version the
// packed manifests' `engines.node` allow is installed from the npm registry (the `node` package,
// cached in .tmp/node-floor/<version>/), the tarballs of scripts/check-packs.mjs are installed with
// npm into a folder outside the repository as a user would, and that Node runs the package's bin,
// `proj-token-backend`: configured by the environment, by --config and by --env-file it must sign
// a correct token, write its audit line and stop with exit 0 on SIGTERM; a bad configuration must
// stop it with exit 2 naming the variable, never its value; SIGTERM during a request must let it
// finish. `node scripts/check-node-floor.mjs` after `pnpm check:packs`; a step of `npm test`.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readTarball } from './check-packs-rules.mjs'

/** The packages the bin needs from .tmp/packs/; the rest comes from the registry. */
const PACKED = ['@proj/token-backend', '@proj/signing']
/** A run that takes longer is stuck: it is killed and the check fails. */
const RUN_LIMIT_MS = 20_000

/**
 * The lowest version an `engines.node` range admits, as `[major, minor, patch]`. Understands
 * what package.json ranges use: `>=`, `^`, `~`, `=`, bare and partial versions (`20`, `20.12`,
 * `20.x`), spaces between comparators and `||`; an upper bound (`<25`) does not lower it.
 *
 * @param {string} range
 * @returns {[number, number, number]}
 * @throws {Error} for a range without a lower bound (`<25`, `*`) or one it cannot read.
 * @example lowestAdmitted('>=20.12') // [20, 12, 0]
 */
export function lowestAdmitted(range) {
  const lows = range.split('||').map((alternative) => {
    const bounds = alternative
      .trim()
      // ">= 20" is ">=20"
      .replace(/([<>]=?|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter((part) => part !== '' && !part.startsWith('<'))
    if (bounds.length !== 1)
      throw new Error(`engines.node "${range}": no single lower bound in "${alternative.trim()}"`)
    const match = /^(?:>=|\^|~|=|v)?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(bounds[0])
    if (!match) throw new Error(`engines.node "${range}": cannot read "${bounds[0]}"`)
    const number = (part) => (part === undefined || part === 'x' || part === '*' ? 0 : Number(part))
    return [Number(match[1]), number(match[2]), number(match[3])]
  })
  return lows.reduce((low, next) => (compare(next, low) < 0 ? next : low))
}

/** Orders versions as `[major, minor, patch]`. */
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

/** The node binary of the `node` package at `version`, installed into .tmp once. */
function floorNode(root, version) {
  const prefix = join(root, '.tmp', 'node-floor', version)
  const binary = join(prefix, 'node_modules', 'node', 'bin', 'node')
  const installed = () =>
    existsSync(binary) &&
    spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim() === `v${version}`
  if (installed()) return { binary, cached: true }
  console.log(`[node floor] installing node@${version} from the npm registry into .tmp/node-floor/`)
  npm(['install', '--prefix', prefix, `node@${version}`], root)
  if (!installed()) fail(`node@${version} installed, but ${binary} does not report v${version}`)
  return { binary, cached: false }
}

function npm(args, cwd) {
  const run = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (run.status !== 0) fail(`npm ${args.join(' ')} failed:\n${run.stdout}${run.stderr}`)
}

/** A failed expectation: reported as FAIL, the bins still running killed, the folder removed. */
class CheckFailure extends Error {}

function fail(message) {
  throw new CheckFailure(message)
}

/** The bins started and not yet exited. */
const running = new Set()

/**
 * Starts the bin with `node`, resolves once it listens (its port read from its stderr) or has
 * exited; the child is killed after RUN_LIMIT_MS whatever happens.
 */
function startBin(node, bin, args, env, cwd) {
  const child = spawn(node, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  const output = { stdout: '', stderr: '' }
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    output.stderr += chunk
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS)
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child)
      clearTimeout(killer)
      resolve({ code, signal })
    }),
  )
  const listening = new Promise((resolve) => {
    const look = () => {
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(output.stderr)?.[1]
      if (port) resolve(Number(port))
    }
    child.stderr.on('data', look)
    void exited.then(() => resolve(undefined))
  })
  return { child, output, exited, listening }
}

const md5url = (text) => createHash('md5').update(text).digest('base64url')

/** The record of GET /token as spec 4.14 defines it, recomputed here from the secret. */
function checkRecord(record, { clientId, secret, cdnDomain, cdnDomainIp, video, ip }) {
  const fields = ['token', 'token_ip', 'client_ip', 'expires', 'url', 'url_ip']
  if (JSON.stringify(Object.keys(record).sort()) !== JSON.stringify([...fields].sort()))
    return `fields ${Object.keys(record).join(',')}, not the six of spec 4.14`
  const { expires } = record
  const token = md5url(`${clientId}_${video}_${secret}_${expires}_`)
  const tokenIp = md5url(`${clientId}_${video}_${secret}_${expires}_${ip}`)
  const path = `videos/${clientId}_${video}`
  const expected = {
    token,
    token_ip: tokenIp,
    client_ip: ip,
    expires,
    url: `https://${cdnDomain}/${path}/${token}/${expires}/master.m3u8`,
    url_ip: `https://${cdnDomainIp}/${path}/${tokenIp}/${expires}/master.m3u8`,
  }
  const wrong = fields.filter((field) => record[field] !== expected[field])
  return wrong.length ? `wrong ${wrong.join(', ')}: ${JSON.stringify(record)}` : undefined
}

/**
 * One run of the bin that must serve: a token for `demo` (VOD, viewer IP by X-Real-IP) checked
 * field by field, then SIGTERM with the fetch's keep-alive connection still open: exit 0 in
 * well under the 10 s grace, the token's audit line on stdout.
 */
async function serveAndStop(label, node, bin, args, env, cwd, signing) {
  const at = performance.now()
  const run = startBin(node, bin, args, env, cwd)
  const port = await run.listening
  if (port === undefined) fail(`${label}: exited before listening:\n${run.output.stderr}`)
  const ip = '198.51.100.7'
  const response = await fetch(`http://127.0.0.1:${port}/token?video=demo&type=vod`, {
    headers: { 'x-real-ip': ip },
  })
  const body = await response.text()
  if (response.status !== 200) fail(`${label}: GET /token answered ${response.status}: ${body}`)
  const problem = checkRecord(JSON.parse(body), { ...signing, video: 'demo', ip })
  if (problem) fail(`${label}: ${problem}`)
  const { expires } = JSON.parse(body)
  const signalled = performance.now()
  run.child.kill('SIGTERM')
  const { code, signal } = await run.exited
  const stopMs = performance.now() - signalled
  if (code !== 0)
    fail(`${label}: SIGTERM ended it with ${signal ?? `exit ${code}`}:\n${run.output.stderr}`)
  if (stopMs > 5_000) fail(`${label}: took ${Math.round(stopMs)} ms to stop with nothing open`)
  const audit = run.output.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
  const line = audit.find((entry) => entry.event === 'token_issued' && entry.expires === expires)
  if (line?.video !== 'demo' || line.client_ip !== ip)
    fail(`${label}: no audit line for the token on stdout: ${run.output.stdout || '(empty)'}`)
  if (run.output.stdout.includes(signing.secret) || run.output.stderr.includes(signing.secret))
    fail(`${label}: the secret was printed`)
  console.log(
    `  ok    ${label}: token verified, audit line written, SIGTERM → exit 0 in ${Math.round(stopMs)} ms (run ${Math.round(performance.now() - at)} ms)`,
  )
}

/**
 * SIGTERM while a request is open: a session playlist whose upstream fetch (a CDN here that
 * answers after UPSTREAM_DELAY_MS) is under way. New connections must be refused at once, the
 * open request must still be answered, and the exit must be 0, after that answer.
 */
async function drainOnStop(label, node, bin, env, cwd, signing) {
  const UPSTREAM_DELAY_MS = 1500
  let upstreamHit
  const hit = new Promise((resolve) => {
    upstreamHit = resolve
  })
  const cdn = createServer((request, response) => {
    upstreamHit(request.url)
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' })
      response.end('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n')
    }, UPSTREAM_DELAY_MS)
  })
  cdn.listen(0, '127.0.0.1')
  await once(cdn, 'listening')
  const cdnHost = `127.0.0.1:${cdn.address().port}`
  try {
    const run = startBin(
      node,
      bin,
      ['--port', '0'],
      {
        ...env,
        CDN_SCHEME: 'http',
        CDN_DOMAIN: cdnHost,
        CDN_DOMAIN_IP: cdnHost,
        SESSION_SECRET: 'floor-session-secret-of-32-chars-ok',
      },
      cwd,
    )
    const port = await run.listening
    if (port === undefined) fail(`${label}: exited before listening:\n${run.output.stderr}`)
    const headers = { 'x-real-ip': '198.51.100.7' }
    const session = await fetch(`http://127.0.0.1:${port}/session?video=demo&type=vod`, {
      headers,
    })
    if (session.status !== 200) fail(`${label}: GET /session answered ${session.status}`)
    const { session_url: sessionUrl } = await session.json()
    const playlist = fetch(sessionUrl, { headers })
    await hit
    const signalled = performance.now()
    run.child.kill('SIGTERM')
    // the listening socket closes at once: a new connection is refused
    await new Promise((resolve) => setTimeout(resolve, 200))
    const refused = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.on('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.on('error', (error) => resolve(error.code === 'ECONNREFUSED'))
    })
    if (!refused) fail(`${label}: a new connection was accepted after SIGTERM`)
    const answer = await playlist
    const text = await answer.text()
    if (answer.status !== 200 || !text.startsWith('#EXTM3U'))
      fail(`${label}: the open request got ${answer.status}: ${text.slice(0, 200)}`)
    const { code, signal } = await run.exited
    const stopMs = performance.now() - signalled
    if (code !== 0)
      fail(`${label}: SIGTERM ended it with ${signal ?? `exit ${code}`}:\n${run.output.stderr}`)
    if (stopMs < UPSTREAM_DELAY_MS - 300)
      fail(`${label}: exited ${Math.round(stopMs)} ms after SIGTERM, before the open request ended`)
    if (run.output.stdout.includes(signing.secret) || run.output.stderr.includes(signing.secret))
      fail(`${label}: the secret was printed`)
    console.log(
      `  ok    ${label}: new connection refused, the open playlist request answered 200, exit 0 ${Math.round(stopMs)} ms after SIGTERM`,
    )
  } finally {
    cdn.closeAllConnections()
    cdn.close()
  }
}

/** A run that must refuse to start: exit 2, the variable named, neither value printed. */
async function refuse(label, node, bin, args, env, cwd, { variable, hidden }) {
  const run = startBin(node, bin, args, env, cwd)
  const { code } = await run.exited
  const printed = run.output.stdout + run.output.stderr
  if (code !== 2) fail(`${label}: exited ${code}, not 2:\n${printed}`)
  if (!printed.includes(variable))
    fail(`${label}: the message does not name ${variable}:\n${printed}`)
  for (const value of hidden)
    if (printed.includes(value)) fail(`${label}: a value was printed:\n${printed}`)
  console.log(`  ok    ${label}: exit 2, "${run.output.stderr.trim().split('\n')[0]}"`)
}

async function main() {
  const started = performance.now()
  const root = join(import.meta.dirname, '..')
  const packs = join(root, '.tmp', 'packs')
  const indexFile = join(packs, 'index.json')
  if (!existsSync(indexFile)) fail('no .tmp/packs/index.json: run `pnpm check:packs` first')
  const index = JSON.parse(readFileSync(indexFile, 'utf8'))
  const manifests = PACKED.map((name) => {
    if (!index[name]) fail(`${name} is not in .tmp/packs/index.json`)
    const files = readTarball(readFileSync(join(packs, index[name])))
    return JSON.parse(files.get('package.json').toString('utf8'))
  })
  const backend = manifests[0]
  if (backend.bin?.['proj-token-backend'] === undefined)
    fail('@proj/token-backend has no bin "proj-token-backend"')

  // the bin's package promises its floor; the packages it loads must not need more
  const floors = manifests.map((manifest) => {
    if (typeof manifest.engines?.node !== 'string') fail(`${manifest.name} has no engines.node`)
    return lowestAdmitted(manifest.engines.node)
  })
  const version = floors[0].join('.')
  for (const [i, floor] of floors.entries())
    if (compare(floor, floors[0]) > 0)
      fail(
        `${backend.name} admits Node ${version}, but ${manifests[i].name} needs ${floor.join('.')} (engines.node "${manifests[i].engines.node}")`,
      )
  console.log(
    `[node floor] engines.node: ${manifests.map((m) => `${m.name} "${m.engines.node}"`).join(', ')} → Node ${version}`,
  )
  let at = performance.now()
  const { binary: node, cached } = floorNode(root, version)
  console.log(
    `[node floor] node@${version} ${cached ? 'cached' : 'installed'} (${Math.round(performance.now() - at)} ms)`,
  )

  // as a user would: npm, a folder of their own, the tarballs and the peers from the registry
  const peers = Object.entries(backend.peerDependencies ?? {}).map(
    ([name, range]) => `${name}@${range}`,
  )
  const project = mkdtempSync(join(tmpdir(), 'node-floor-'))
  try {
    writeFileSync(join(project, 'package.json'), '{ "private": true, "type": "module" }\n')
    at = performance.now()
    npm(['install', ...PACKED.map((name) => join(packs, index[name])), ...peers], project)
    console.log(
      `[node floor] npm installed ${PACKED.join(', ')} (tarballs) and ${peers.join(', ')} in ${Math.round(performance.now() - at)} ms`,
    )
    const bin = join(project, 'node_modules', '.bin', 'proj-token-backend')

    // the shim itself: executable, its shebang finds the Node first on PATH (the floor's)
    const path = `${join(node, '..')}:${process.env.PATH}`
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8', env: { PATH: path } })
    if (help.status !== 0 || !help.stdout.startsWith('Usage: proj-token-backend'))
      fail(`node_modules/.bin/proj-token-backend --help: exit ${help.status}\n${help.stderr}`)
    console.log('  ok    node_modules/.bin/proj-token-backend --help (shebang, executable)')

    const signing = {
      clientId: '12345',
      secret: 'floor-secret-0f3c9a',
      cdnDomain: 'cdn.floor.test',
      cdnDomainIp: 'cdn-ip.floor.test',
    }
    const variables = {
      CLIENT_ID: signing.clientId,
      SECRET_KEY: signing.secret,
      CDN_DOMAIN: signing.cdnDomain,
      CDN_DOMAIN_IP: signing.cdnDomainIp,
      IP_HEADERS: 'x-real-ip',
      AUTH_MODE: 'none',
    }
    const bare = { PATH: path }
    await serveAndStop(
      'environment',
      node,
      bin,
      [],
      { ...bare, ...variables, PORT: '0' },
      project,
      signing,
    )
    const configFile = join(project, 'token-backend.json')
    writeFileSync(configFile, JSON.stringify({ ...variables, IP_HEADERS: ['x-real-ip'] }))
    await serveAndStop(
      '--config',
      node,
      bin,
      ['--config', configFile, '--port', '0'],
      bare,
      project,
      signing,
    )
    const envFile = join(project, '.env')
    writeFileSync(
      envFile,
      `# dotenv\n${Object.entries(variables)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n')}\n`,
    )
    await serveAndStop(
      '--env-file',
      node,
      bin,
      ['--env-file', envFile, '--port', '0'],
      bare,
      project,
      signing,
    )

    await drainOnStop(
      'SIGTERM during a request',
      node,
      bin,
      { ...bare, ...variables },
      project,
      signing,
    )

    await refuse(
      'bad CDN_DOMAIN in the environment',
      node,
      bin,
      ['--port', '0'],
      { ...bare, ...variables, CDN_DOMAIN: 'cdn floor/not-a-host' },
      project,
      { variable: 'CDN_DOMAIN', hidden: [signing.secret, 'cdn floor/not-a-host'] },
    )
    const { AUTH_MODE: _unset, ...unchosen } = variables
    await refuse(
      'AUTH_MODE unset (closed by default)',
      node,
      bin,
      ['--port', '0'],
      { ...bare, ...unchosen },
      project,
      { variable: 'AUTH_MODE', hidden: [signing.secret] },
    )
    const badFile = join(project, 'bad.json')
    writeFileSync(badFile, JSON.stringify({ ...variables, SECRET_KEY: '' }))
    await refuse(
      'empty SECRET_KEY in --config',
      node,
      bin,
      ['--config', badFile, '--port', '0'],
      bare,
      project,
      { variable: 'SECRET_KEY', hidden: [signing.secret] },
    )
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
  console.log(
    `[node floor] proj-token-backend runs on Node ${version}; the check took ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await main()
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error
    console.error(`[node floor] FAIL: ${error.message}`)
    process.exitCode = 1
  } finally {
    for (const child of running) child.kill('SIGKILL')
  }
  process.exit()
}
