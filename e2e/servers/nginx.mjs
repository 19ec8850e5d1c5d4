#!/usr/bin/env node
// Renders nginx/*.template into a private prefix and runs nginx in the foreground as an ordinary
// process; SIGTERM/SIGINT stop it by PID (SIGQUIT: graceful). Used by playwright.config.ts.
//   NGINX_PLAIN_PORT, NGINX_IP_PORT, ORIGIN_PORT, SECRET_KEY, NGINX_PREFIX (a scratch directory),
//   PREVIOUS_SECRET_KEY (optional: also accepted during a rotation)
//   NGINX_BALANCER_PORT, NGINX_BALANCER_UPSTREAMS (optional: a round-robin balancer on that port
//   in front of the comma-separated loopback ports, nginx/balancer.conf.template; several
//   balancers separated by `;` in both, e.g. `18810;18820` and `18801,18802;18821,18822`),
//   NGINX_BALANCER_BIND (the loopback address it connects to them from; default 127.0.0.1),
//   NGINX_PATH (optional: the nginx binary; default Debian's /usr/sbin/nginx, else nginx on PATH)
// SIGHUP re-renders the configuration from NGINX_PREFIX/rotation.json ({ secret, previous }) when
// that file exists, then reloads nginx: the rotation e2e test rotates without a restart.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const here = import.meta.dirname
const env = process.env
const prefix = env.NGINX_PREFIX ?? join(here, '..', '..', '.tmp', 'nginx')
const values = {
  PREFIX: prefix,
  PLAIN_PORT: env.NGINX_PLAIN_PORT ?? '18080',
  IP_PORT: env.NGINX_IP_PORT ?? '18081',
  ORIGIN_PORT: env.ORIGIN_PORT ?? '18090',
  SECRET: env.SECRET_KEY ?? '',
  PREVIOUS_SECRET: env.PREVIOUS_SECRET_KEY ?? '',
  BALANCER_BIND: /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(env.NGINX_BALANCER_BIND ?? '')
    ? env.NGINX_BALANCER_BIND
    : '127.0.0.1',
}
// each balancer: its port and the `server` lines of its upstreams
const upstreamGroups = (env.NGINX_BALANCER_UPSTREAMS ?? '').split(';')
const balancers = (env.NGINX_BALANCER_PORT ?? '').split(';').flatMap((port, i) => {
  const servers = (upstreamGroups[i] ?? '')
    .split(',')
    .filter((upstream) => /^\d+$/.test(upstream))
    .map((upstream) => `  server 127.0.0.1:${upstream};`)
  return /^\d+$/.test(port) && servers.length > 0
    ? [{ BALANCER_PORT: port, BALANCER_SERVERS: servers.join('\n') }]
    : []
})
// the secret is set, and both are text nginx takes inside double quotes as is
const validSecrets = (secret, previous) =>
  /^[A-Za-z0-9._~+-]+$/.test(secret) && /^[A-Za-z0-9._~+-]*$/.test(previous)
if (!validSecrets(values.SECRET, values.PREVIOUS_SECRET)) {
  console.error(
    'nginx.mjs: SECRET_KEY must be set, and it and PREVIOUS_SECRET_KEY use letters, digits and ._~+- only',
  )
  process.exit(2)
}
const render = (name, more = {}) =>
  readFileSync(join(here, '..', 'nginx', `${name}.template`), 'utf8').replace(
    /\{\{(\w+)\}\}/g,
    (_, key) => ({ ...values, ...more })[key],
  )
const writeConfig = () => {
  writeFileSync(join(prefix, 'conf', 'nginx.conf'), render('nginx.conf'))
  writeFileSync(join(prefix, 'conf', 'token.conf'), render('token.conf'))
  const rendered = balancers.map((balancer) => render('balancer.conf', balancer))
  writeFileSync(join(prefix, 'conf', 'balancer.conf'), rendered.join('\n'))
}
rmSync(prefix, { recursive: true, force: true })
mkdirSync(join(prefix, 'conf'), { recursive: true })
mkdirSync(join(prefix, 'tmp'), { recursive: true })
writeConfig()

// NGINX_PATH names another nginx (a build of your own, Homebrew's); else Debian's, else PATH's
const binary = env.NGINX_PATH
  ? env.NGINX_PATH
  : (['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path)) ??
    spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim())
if (!binary || !existsSync(binary)) {
  console.error(
    env.NGINX_PATH
      ? `nginx.mjs: NGINX_PATH is ${env.NGINX_PATH}: no such file`
      : 'nginx.mjs: nginx not found; install it with: apt-get install -y nginx-light (or set NGINX_PATH)',
  )
  process.exit(2)
}
// the token check is ngx_http_secure_link_module, which nginx builds only when asked to
const built = spawnSync(binary, ['-V'], { encoding: 'utf8' })
if (!`${built.stdout}${built.stderr}`.includes('--with-http_secure_link_module')) {
  console.error(
    `nginx.mjs: ${binary} ${built.error ? `cannot run (${built.error.message})` : 'has no secure_link module (built without --with-http_secure_link_module)'}; Debian's nginx-light has it`,
  )
  process.exit(2)
}
const nginx = spawn(
  binary,
  ['-p', prefix, '-c', 'conf/nginx.conf', '-e', join(prefix, 'error.log')],
  {
    stdio: 'inherit',
  },
)
const stop = () => nginx.kill('SIGQUIT')
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.on('SIGHUP', () => {
  const rotation = join(prefix, 'rotation.json')
  try {
    const { secret, previous = '' } = JSON.parse(readFileSync(rotation, 'utf8'))
    if (!validSecrets(secret, previous)) throw new Error('bad secret text')
    values.SECRET = secret
    values.PREVIOUS_SECRET = previous
    writeConfig()
  } catch (error) {
    console.error(`nginx.mjs: ${rotation} not applied: ${error.message}`)
    return
  }
  nginx.kill('SIGHUP') // nginx reloads: new workers take the new secrets, old ones finish
})
nginx.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)))
