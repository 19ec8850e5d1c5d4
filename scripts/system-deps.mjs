// The suite needs Debian packages: chromium (the browser; Playwright never downloads one here),
// nginx-light (the token-validating CDN), redis-server (the shared state of several Node
// instances: the unit tests of the Redis stores and the e2e fleet), and the HLS clients nobody
// here wrote that play session URLs: ffmpeg and VLC (vlc-bin + vlc-plugin-base, without VLC's
// desktop recommends). `npm test` installs them when missing and it can (root with apt-get, as on
// these machines and in CI); otherwise it says what to install. CHROMIUM_PATH and NGINX_PATH
// name a browser or an nginx installed elsewhere (e2e/support/browser.ts, e2e/servers/nginx.mjs).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const NEEDED = [
  { pkg: 'chromium', paths: [process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'] },
  { pkg: 'nginx-light', paths: [process.env.NGINX_PATH ?? '/usr/sbin/nginx', '/usr/bin/nginx'] },
  { pkg: 'ffmpeg', paths: ['/usr/bin/ffmpeg'] },
  // the server alone (its recommends: none needed)
  { pkg: 'redis-server', paths: ['/usr/bin/redis-server'], bare: true },
  // VLC without its recommends (the desktop, Qt, X): the headless player only
  { pkg: 'vlc-bin', paths: ['/usr/bin/cvlc'], bare: true },
  {
    pkg: 'vlc-plugin-base',
    bare: true,
    paths: [
      '/usr/lib/x86_64-linux-gnu/vlc/plugins/demux/libts_plugin.so',
      '/usr/lib/aarch64-linux-gnu/vlc/plugins/demux/libts_plugin.so',
    ],
  },
]

/** Installs what is missing; returns false (after saying why) when it cannot. */
export const ensureSystemDeps = () => {
  const absent = NEEDED.filter(({ paths }) => !paths.some((path) => existsSync(path)))
  const missing = absent.map(({ pkg }) => pkg)
  if (missing.length === 0) return true
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')
  if (!canInstall) {
    console.error(`[check] the e2e suite needs: sudo apt-get install -y ${missing.join(' ')}`)
    return false
  }
  console.log(`[check] installing ${missing.join(' ')} with apt-get (once, about 30 s)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const full = absent.filter(({ bare }) => !bare).map(({ pkg }) => pkg)
  const bare = absent.filter(({ bare }) => bare).map(({ pkg }) => pkg)
  for (const args of [
    ['update', '-qq'],
    ...(full.length ? [['install', '-y', '-qq', ...full]] : []),
    ...(bare.length ? [['install', '-y', '-qq', '--no-install-recommends', ...bare]] : []),
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env })
    if (result.status !== 0) {
      console.error(`[check] apt-get ${args[0]} failed`)
      return false
    }
  }
  return true
}
