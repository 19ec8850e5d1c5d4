// The e2e suite needs two Debian packages: chromium (the browser; Playwright never downloads one
// here) and nginx-light (the token-validating CDN). `npm test` installs them when missing and it
// can (root with apt-get, as on these machines and in CI); otherwise it says what to install.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const NEEDED = [
  { pkg: 'chromium', paths: [process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'] },
  { pkg: 'nginx-light', paths: ['/usr/sbin/nginx', '/usr/bin/nginx'] },
]

/** Installs what is missing; returns false (after saying why) when it cannot. */
export const ensureSystemDeps = () => {
  const missing = NEEDED.filter(({ paths }) => !paths.some((path) => existsSync(path))).map(
    ({ pkg }) => pkg,
  )
  if (missing.length === 0) return true
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')
  if (!canInstall) {
    console.error(`[check] the e2e suite needs: sudo apt-get install -y ${missing.join(' ')}`)
    return false
  }
  console.log(`[check] installing ${missing.join(' ')} with apt-get (once, about 30 s)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...missing],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env })
    if (result.status !== 0) {
      console.error(`[check] apt-get ${args[0]} failed`)
      return false
    }
  }
  return true
}
