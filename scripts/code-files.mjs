// The code files of a folder, as the repository's checks read them: TypeScript and JavaScript
// sources, without dependencies, build output or declaration files. The walk never enters
// node_modules or dist (a recursive readdir would list them all, then throw them away).
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const CODE = /\.(?:[cm]?[jt]s|tsx)$/
// media: test video (MPEG-TS segments end in .ts too)
const SKIPPED = new Set(['node_modules', 'dist', '.tmp', '.wrangler', 'media'])

/**
 * Paths (relative to `root`) of the code files under `folder`.
 *
 * @param {string} root the repository root
 * @param {string} folder a folder relative to it
 * @returns {string[]}
 * @example codeFiles(root, 'packages/signing') // ['packages/signing/src/token.ts', …]
 */
export function codeFiles(root, folder) {
  const found = []
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(path)
      } else if (entry.isFile() && CODE.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name))
        found.push(path)
    }
  }
  walk(folder)
  return found
}
