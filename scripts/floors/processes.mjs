// What the floors check's runs share: a failed expectation, the processes they start (killed
// whatever happens), npm as a user runs it, and the token record of spec 4.14 recomputed here.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'

/** A run that takes longer is stuck: it is killed and the check fails. */
const RUN_LIMIT_MS = 20_000

/** A failed expectation: reported as FAIL, the processes still running killed. */
export class CheckFailure extends Error {}

/**
 * Fails the check with `message`.
 *
 * @param {string} message
 * @returns {never}
 * @example if (status !== 200) fail(`GET /token answered ${status}`)
 */
export function fail(message) {
  throw new CheckFailure(message)
}

/** The processes started and not yet exited. */
const running = new Set()

/** Kills every process a run left behind (at the end of the check, passed or failed). */
export function killLeftovers() {
  for (const child of running) child.kill('SIGKILL')
}

/**
 * Starts `node script …args` in `cwd` with exactly `env`; `listening` resolves with the port it
 * says it listens on (`listening on http://127.0.0.1:<port>/` on its stderr, as
 * `proj-token-backend` prints it), or `undefined` once it has exited. Killed after 20 s.
 *
 * @example
 * ```js
 * const run = startProcess(node, bin, ['--port', '0'], env, project)
 * const port = await run.listening
 * ```
 */
export function startProcess(node, script, args, env, cwd) {
  const child = spawn(node, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
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

/**
 * Starts a process that must serve; resolves with its port, or fails with what it printed.
 *
 * @example const { port, run } = await serving('instance A', startProcess(…))
 */
export async function serving(label, run) {
  const port = await run.listening
  if (port === undefined) fail(`${label}: exited before listening:\n${run.output.stderr}`)
  return { port, run }
}

/**
 * Stops a served process with SIGTERM; fails unless it exits 0.
 *
 * @example await stopped('instance A', run)
 */
export async function stopped(label, run) {
  run.child.kill('SIGTERM')
  const { code, signal } = await run.exited
  if (code !== 0)
    fail(`${label}: SIGTERM ended it with ${signal ?? `exit ${code}`}:\n${run.output.stderr}`)
}

/**
 * `npm …args` in `cwd` as a user runs it (none of pnpm's npm_config_*), quiet; fails with its
 * output.
 *
 * @example npm(['install', 'hono@4.11.2'], project)
 */
export function npm(args, cwd) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  )
  const run = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (run.status !== 0) fail(`npm ${args.join(' ')} failed:\n${run.stdout}${run.stderr}`)
}

/**
 * spec 4.14's token: MD5 → base64url of `{client_id}_{video}_{secret}_{expires}_{ip}`.
 *
 * @example md5Token('12345', 'demo', 'secret', 1800000000) // 'sxPo…'
 */
export const md5Token = (clientId, video, secret, expires, ip = '') =>
  createHash('md5').update(`${clientId}_${video}_${secret}_${expires}_${ip}`).digest('base64url')

/**
 * What is wrong with a record of GET /token, recomputed here from the secret (spec 4.14), or
 * `undefined` when every field is right.
 *
 * @example checkRecord(await response.json(), { ...signing, video: 'demo', ip: '127.0.0.1' })
 */
export function checkRecord(record, { clientId, secret, cdnDomain, cdnDomainIp, video, ip }) {
  const fields = ['token', 'token_ip', 'client_ip', 'expires', 'url', 'url_ip']
  if (JSON.stringify(Object.keys(record).sort()) !== JSON.stringify([...fields].sort()))
    return `fields ${Object.keys(record).join(',')}, not the six of spec 4.14`
  const { expires } = record
  const token = md5Token(clientId, video, secret, expires)
  const tokenIp = md5Token(clientId, video, secret, expires, ip)
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
 * What is wrong with a session's leaf redirect (`Location` of the 302), or `undefined`: a CDN URL
 * of the video's directory whose token the secret signs, without an address (spec 4.14).
 *
 * @example checkLeaf(location, { ...signing, video: 'demo', file: 'v0/seg_000.ts' })
 */
export function checkLeaf(location, { clientId, secret, cdnDomain, video, file }) {
  const match = new RegExp(
    `^https://${cdnDomain.replaceAll('.', '\\.')}/videos/${clientId}_${video}/([\\w-]+)/(\\d+)/${file}$`,
  ).exec(location ?? '')
  if (!match) return `the redirect ${location} is not a CDN URL of ${video}'s ${file}`
  const [, token, expires] = match
  if (token !== md5Token(clientId, video, secret, Number(expires)))
    return `the redirect's token ${token} is not signed with the secret`
  if (Number(expires) * 1000 < Date.now()) return `the redirect expired at ${expires}`
  return undefined
}
