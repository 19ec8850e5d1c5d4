// What the local stack (scripts/services.mjs, `npm start`) and the e2e stack (e2e/support/stack.ts)
// share: how a package's bin script is started, and wrangler's offline settings.
import { realpathSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')

/** wrangler without telemetry or Cloudflare lookups: nothing here needs Cloudflare's network. */
export const WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
}

/**
 * `[node, script]` of a package's bin script, run by this Node directly rather than through a
 * shim, so stopping the process (or its group) also stops what it spawned (wrangler's workerd).
 *
 * @param {string} cwd the workspace folder whose node_modules holds the package
 * @param {string} pkg the package name
 * @param {string} script the script inside the package
 * @returns {[string, string]}
 */
export const bin = (cwd, pkg, script) => [
  process.execPath,
  join(realpathSync(join(root, cwd, 'node_modules', pkg)), script),
]
