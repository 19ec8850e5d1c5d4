// Servers of the secret-rotation spec: a private nginx (the suite's template) whose secrets can be
// changed with a reload, and the token worker's Node entry, restarted with each new secret.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { root, run, stop, waitFor } from './processes.ts'
import { CLIENT_ID, PORTS } from './stack.ts'

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
  await waitFor(`http://127.0.0.1:${plain}/healthz`, server)
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
    await waitFor(`http://127.0.0.1:${port}/token?video=ready`, server)
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
