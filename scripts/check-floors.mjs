#!/usr/bin/env node
// The token backend on the floors its package admits (issues 25 and 31): the lowest Node of the
// packed manifests' `engines.node` (the `node` package from the npm registry, cached in
// .tmp/node-floor/<version>/) and the lowest release of each peer dependency its
// `peerDependencies` admit (hono, @hono/node-server, redis), installed exactly, with npm, beside
// the tarballs of scripts/check-packs.mjs in a folder outside the repository, as a user would.
// On them:
// - the bin, `proj-token-backend`: configured by the environment, --config and --env-file it
//   signs a correct token, writes its audit line and stops with exit 0 on SIGTERM; SIGTERM during
//   a request lets it finish; a bad configuration stops it with exit 2 naming the variable, never
//   its value (floors/bin-runs.mjs);
// - sessions: a leaf redirect signed right, a revocation that binds; two instances on one
//   redis-server sharing revocations and the rate limit (floors/session-runs.mjs);
// - the library in a user's Hono app under /video, type-checked against the floor peers'
//   declarations (floors/library-run.mjs).
// The workspace's own tests run the newest releases: the two ends of each range are tested.
// `node scripts/check-floors.mjs [--peer name@version…]` after `pnpm check:packs`, a step of
// `npm test`; `--peer hono@4.10.0` tries a candidate floor instead of the manifest's (installed
// with --legacy-peer-deps, so a dependency's own peer range is not checked then).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { readTarball } from './check-packs-rules.mjs'
import { drainOnStop, refuse, serveAndStop } from './floors/bin-runs.mjs'
import { libraryApp } from './floors/library-run.mjs'
import { admittedFloors, compareVersions, lowestAdmitted } from './floors/lowest-admitted.mjs'
import { CheckFailure, fail, killLeftovers, npm } from './floors/processes.mjs'
import { sessionLane, sharedRedis } from './floors/session-runs.mjs'

/** The packages the bin needs from .tmp/packs/; the rest comes from the registry. */
const PACKED = ['@proj/token-backend', '@proj/signing']

/** The node binary of the `node` package at `version`, installed into .tmp once. */
function floorNode(root, version) {
  const prefix = join(root, '.tmp', 'node-floor', version)
  const binary = join(prefix, 'node_modules', 'node', 'bin', 'node')
  const installed = () =>
    existsSync(binary) &&
    spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim() === `v${version}`
  if (installed()) return { binary, cached: true }
  console.log(`[floors] installing node@${version} from the npm registry into .tmp/node-floor/`)
  npm(['install', '--prefix', prefix, `node@${version}`], root)
  if (!installed()) fail(`node@${version} installed, but ${binary} does not report v${version}`)
  return { binary, cached: false }
}

/** The packed manifests of {@link PACKED}, from .tmp/packs/ (check:packs wrote them). */
function packedManifests(packs) {
  const indexFile = join(packs, 'index.json')
  if (!existsSync(indexFile)) fail('no .tmp/packs/index.json: run `pnpm check:packs` first')
  const index = JSON.parse(readFileSync(indexFile, 'utf8'))
  return PACKED.map((name) => {
    if (!index[name]) fail(`${name} is not in .tmp/packs/index.json`)
    const files = readTarball(readFileSync(join(packs, index[name])))
    return { tarball: join(packs, index[name]), ...JSON.parse(files.get('package.json')) }
  })
}

/** The Node the bin's package promises; the packages it loads must not need more. */
function nodeFloor(manifests) {
  const floors = manifests.map((manifest) => {
    if (typeof manifest.engines?.node !== 'string') fail(`${manifest.name} has no engines.node`)
    return lowestAdmitted(manifest.engines.node)
  })
  for (const [i, floor] of floors.entries())
    if (compareVersions(floor, floors[0]) > 0)
      fail(
        `${manifests[0].name} admits Node ${floors[0].join('.')}, but ${manifests[i].name} needs ${floor.join('.')} (engines.node "${manifests[i].engines.node}")`,
      )
  return floors[0].join('.')
}

/**
 * The peer versions to install, as sets of `[name, version]`: set k takes each peer's k-th floor
 * (the lowest release of each `||` alternative, its last one when it has fewer), so every
 * alternative's floor is tested once: `^1.11.4 || ^2.0.0` is tested at 1.11.4 and at 2.0.0.
 * `--peer name@version` replaces a peer's floors with that version.
 */
function floorSets(manifest, tried) {
  const peers = Object.entries(manifest.peerDependencies ?? {}).map(([name, range]) => [
    name,
    tried.has(name)
      ? [tried.get(name)]
      : admittedFloors(range, `peerDependencies["${name}"]`).map((floor) => floor.join('.')),
  ])
  for (const name of tried.keys())
    if (!peers.some(([peer]) => peer === name))
      fail(`--peer ${name}: not a peer of ${manifest.name}`)
  const count = Math.max(1, ...peers.map(([, floors]) => floors.length))
  return Array.from({ length: count }, (_, k) =>
    peers.map(([name, floors]) => [name, floors[Math.min(k, floors.length - 1)]]),
  )
}

/** The bin's settings: a secret, two CDN hosts, no authorization, the address from X-Real-IP. */
const SIGNING = {
  clientId: '12345',
  secret: 'floor-secret-0f3c9a',
  cdnDomain: 'cdn.floor.test',
  cdnDomainIp: 'cdn-ip.floor.test',
}
const VARIABLES = {
  CLIENT_ID: SIGNING.clientId,
  SECRET_KEY: SIGNING.secret,
  CDN_DOMAIN: SIGNING.cdnDomain,
  CDN_DOMAIN_IP: SIGNING.cdnDomainIp,
  IP_HEADERS: 'x-real-ip',
  AUTH_MODE: 'none',
}

/**
 * Installs the tarballs and one set of peer versions with npm into a folder of its own (as a
 * user would), then runs every check on them with the floor's `node`.
 */
async function checkOn({ root, node, manifests, peers, candidates }) {
  const project = mkdtempSync(join(tmpdir(), 'floors-'))
  try {
    writeFileSync(join(project, 'package.json'), '{ "private": true, "type": "module" }\n')
    const at = performance.now()
    const exact = peers.map(([name, peer]) => `${name}@${peer}`)
    const nodeTypes = `@types/node@${spawnSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim()}`
    // a candidate the packed range does not admit yet would be an ERESOLVE: npm is told to
    // leave the peer ranges alone then (for everyone: a dependency's own peers too)
    const legacy = candidates ? ['--legacy-peer-deps'] : []
    npm(['install', ...legacy, ...manifests.map((m) => m.tarball), ...exact, nodeTypes], project)
    for (const [name, peer] of peers) {
      const installed = JSON.parse(
        readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8'),
      ).version
      if (installed !== peer) fail(`npm installed ${name}@${installed}, not the floor ${peer}`)
    }
    console.log(
      `[floors] ${exact.join(', ')}: npm installed them, ${PACKED.join(', ')} (tarballs) and ${nodeTypes} in ${Math.round(performance.now() - at)} ms`,
    )
    const bin = join(project, 'node_modules', '.bin', 'proj-token-backend')

    // the shim itself: executable, its shebang finds the Node first on PATH (the floor's)
    const path = `${join(node, '..')}:${process.env.PATH}`
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8', env: { PATH: path } })
    if (help.status !== 0 || !help.stdout.startsWith('Usage: proj-token-backend'))
      fail(`node_modules/.bin/proj-token-backend --help: exit ${help.status}\n${help.stderr}`)
    console.log('  ok    node_modules/.bin/proj-token-backend --help (shebang, executable)')

    const bare = { PATH: path }
    const env = { ...bare, ...VARIABLES }
    const target = { node, bin, cwd: project }
    await serveAndStop('environment', target, [], { ...env, PORT: '0' }, SIGNING)
    const configFile = join(project, 'token-backend.json')
    writeFileSync(configFile, JSON.stringify({ ...VARIABLES, IP_HEADERS: ['x-real-ip'] }))
    await serveAndStop('--config', target, ['--config', configFile, '--port', '0'], bare, SIGNING)
    const envFile = join(project, '.env')
    const dotenv = Object.entries(VARIABLES).map(([name, value]) => `${name}=${value}`)
    writeFileSync(envFile, `# dotenv\n${dotenv.join('\n')}\n`)
    await serveAndStop('--env-file', target, ['--env-file', envFile, '--port', '0'], bare, SIGNING)
    await drainOnStop('SIGTERM during a request', target, env, SIGNING)
    await sessionLane('sessions', target, env, SIGNING)
    await sharedRedis('two instances, one Redis', target, env, SIGNING, root)
    const tsc = join(root, 'node_modules', '.bin', 'tsc')
    await libraryApp('the library in your Hono app', target, tsc, env, SIGNING)

    const noPort = ['--port', '0']
    const badHost = 'cdn floor/not-a-host'
    await refuse(
      'bad CDN_DOMAIN in the environment',
      target,
      noPort,
      { ...env, CDN_DOMAIN: badHost },
      {
        variable: 'CDN_DOMAIN',
        hidden: [SIGNING.secret, badHost],
      },
    )
    const { AUTH_MODE: _unset, ...unchosen } = VARIABLES
    await refuse(
      'AUTH_MODE unset (closed by default)',
      target,
      noPort,
      { ...bare, ...unchosen },
      {
        variable: 'AUTH_MODE',
        hidden: [SIGNING.secret],
      },
    )
    const badFile = join(project, 'bad.json')
    writeFileSync(badFile, JSON.stringify({ ...VARIABLES, SECRET_KEY: '' }))
    await refuse('empty SECRET_KEY in --config', target, ['--config', badFile, ...noPort], bare, {
      variable: 'SECRET_KEY',
      hidden: [SIGNING.secret],
    })
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
}

async function main() {
  const started = performance.now()
  const { values } = parseArgs({ options: { peer: { type: 'string', multiple: true } } })
  const tried = new Map(
    (values.peer ?? []).map((spec) => {
      const at = spec.lastIndexOf('@')
      if (at <= 0) fail(`--peer ${spec}: not name@version`)
      return [spec.slice(0, at), spec.slice(at + 1)]
    }),
  )
  const root = join(import.meta.dirname, '..')
  const manifests = packedManifests(join(root, '.tmp', 'packs'))
  const backend = manifests[0]
  if (backend.bin?.['proj-token-backend'] === undefined)
    fail('@proj/token-backend has no bin "proj-token-backend"')
  const version = nodeFloor(manifests)
  const sets = floorSets(backend, tried)
  const ranges = Object.entries(backend.peerDependencies ?? {})
  console.log(
    `[floors] engines.node: ${manifests.map((m) => `${m.name} "${m.engines.node}"`).join(', ')} → Node ${version}; peerDependencies: ${ranges.map(([name, range]) => `${name} "${range}"${tried.has(name) ? ` (--peer ${tried.get(name)})` : ''}`).join(', ')}`,
  )
  const at = performance.now()
  const { binary: node, cached } = floorNode(root, version)
  console.log(
    `[floors] node@${version} ${cached ? 'cached' : 'installed'} (${Math.round(performance.now() - at)} ms)`,
  )
  for (const peers of sets)
    await checkOn({ root, node, manifests, peers, candidates: tried.size > 0 })
  console.log(
    `[floors] @proj/token-backend runs on Node ${version} with ${sets.map((peers) => peers.map(([name, peer]) => `${name}@${peer}`).join(', ')).join('; and with ')}; the check took ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await main()
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error
    console.error(`[floors] FAIL: ${error.message}`)
    process.exitCode = 1
  } finally {
    killLeftovers()
  }
  process.exit()
}
