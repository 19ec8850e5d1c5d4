#!/usr/bin/env node
// Renders nginx/*.template into a private prefix and runs nginx in the foreground as an ordinary
// process; SIGTERM/SIGINT stop it by PID (SIGQUIT: graceful). Used by playwright.config.ts.
//   NGINX_PLAIN_PORT, NGINX_IP_PORT, ORIGIN_PORT, SECRET_KEY, NGINX_PREFIX (a scratch directory)
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
}
if (!/^[A-Za-z0-9._~+-]+$/.test(values.SECRET)) {
  console.error('nginx.mjs: SECRET_KEY must be set (letters, digits and ._~+- only)')
  process.exit(2)
}
const render = (name) =>
  readFileSync(join(here, '..', 'nginx', `${name}.template`), 'utf8').replace(
    /\{\{(\w+)\}\}/g,
    (_, key) => values[key],
  )
rmSync(prefix, { recursive: true, force: true })
mkdirSync(join(prefix, 'conf'), { recursive: true })
mkdirSync(join(prefix, 'tmp'), { recursive: true })
writeFileSync(join(prefix, 'conf', 'nginx.conf'), render('nginx.conf'))
writeFileSync(join(prefix, 'conf', 'token.conf'), render('token.conf'))

const binary = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => {
  try {
    readFileSync(path)
    return true
  } catch {
    return false
  }
})
if (!binary) {
  console.error('nginx.mjs: nginx not found; install it with: apt-get install -y nginx-light')
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
nginx.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)))
