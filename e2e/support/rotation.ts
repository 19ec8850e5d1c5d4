// Servers of the secret-rotation spec: a private nginx (the suite's template) whose secrets can be
// changed with a reload, and the token worker's Node entry, restarted with each new secret.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CLIENT_ID, PORTS } from './stack.ts'

const root = join(import.meta.dirname, '..', '..')

const waitFor = async (url: string, child: ChildProcess, output: () => string) => {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: exited\n${output()}`)
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    )
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} did not come up\n${output()}`)
}

const run = (script: string, env: Record<string, string>) => {
  const child = spawn(process.execPath, [join(root, script)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

/** A private nginx on two ports: `rotate()` changes its secrets with a reload (no restart). */
export async function rotatingCdn(slot: number, secret: string) {
  const plain = PORTS.rotationCdn[slot * 2] ?? 0
  const ip = PORTS.rotationCdn[slot * 2 + 1] ?? 0
  const prefix = join(root, '.tmp', 'e2e', `nginx-rotation-${slot}`)
  const server = run('e2e/servers/nginx.mjs', {
    SECRET_KEY: secret,
    ORIGIN_PORT: String(PORTS.origin),
    NGINX_PLAIN_PORT: String(plain),
    NGINX_IP_PORT: String(ip),
    NGINX_PREFIX: prefix,
  })
  await waitFor(`http://127.0.0.1:${plain}/healthz`, server.child, server.output)
  return {
    plain,
    ip,
    /** Accept `secret` (and `previous`, during a transition window) from the next request on. */
    async rotate(next: { secret: string; previous?: string }) {
      writeFileSync(join(prefix, 'rotation.json'), JSON.stringify(next))
      server.child.kill('SIGHUP')
      // a reload starts new workers and lets the old ones finish: wait until the new secret rules
      await new Promise((resolve) => setTimeout(resolve, 500))
    },
    stop: () => stop(server.child),
  }
}

/** The token worker's Node entry signing for `cdn`; `restart(secret)` is a deploy with a new secret. */
export async function rotatingTokenWorker(
  slot: number,
  cdn: { plain: number; ip: number },
  secret: string,
) {
  const port = PORTS.rotationToken[slot] ?? 0
  const start = async (key: string) => {
    const server = run('apps/token-worker/src/node.ts', {
      CLIENT_ID,
      SECRET_KEY: key,
      CDN_DOMAIN: `127.0.0.1:${cdn.plain}`,
      CDN_DOMAIN_IP: `127.0.0.1:${cdn.ip}`,
      CDN_SCHEME: 'http',
      ALLOWED_ORIGINS: '*',
      AUTH_MODE: 'none',
      PORT: String(port),
    })
    await waitFor(`http://127.0.0.1:${port}/token?video=ready`, server.child, server.output)
    return server
  }
  let server = await start(secret)
  return {
    url: `http://127.0.0.1:${port}/token`,
    async restart(key: string) {
      await stop(server.child)
      server = await start(key)
    },
    stop: () => stop(server.child),
  }
}
