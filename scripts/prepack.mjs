#!/usr/bin/env node
// Every publishable package's `prepack` starts here (`node ../../scripts/prepack.mjs && <build>`),
// in the package's folder:
// - only pnpm may pack: a package.json here points its exports at ./src/*.ts and its internal
//   dependencies at `workspace:^`; `pnpm pack`/`pnpm publish` swap in publishConfig and real
//   ranges, `npm pack`/`npm publish` (or yarn) would ship both as they are, so they are refused
//   with the command to use instead;
// - the root LICENSE is the one source: it is copied into the package (git-ignored there), since
//   packers take LICENSE from the package's folder only.
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const folder = process.cwd()
const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
// "pnpm/12.21.0 npm/? node/v24.21.0 linux x64", "npm/11.19.1 node/v20.19.5 linux x64 …"
const tool = (process.env.npm_config_user_agent ?? '').split('/')[0] || 'this client'

if (tool !== 'pnpm') {
  const command = `${tool} ${process.env.npm_command ?? 'pack'}`
  console.error(
    [
      `${manifest.name}: \`${command}\` refused: it would ship this package.json as it is, with`,
      ...unpublishable(manifest).map((problem) => `  - ${problem}`),
      'pnpm applies publishConfig and replaces workspace: ranges. Use `pnpm pack` in this folder',
      'for a tarball, or `pnpm release` at the repository root to publish (README.md, "Releasing").',
    ].join('\n'),
  )
  process.exit(1)
}

copyFileSync(join(root, 'LICENSE'), join(folder, 'LICENSE'))

/** What the manifest as it stands would publish wrongly, one line each. */
function unpublishable(pkg) {
  const found = []
  const source = JSON.stringify(pkg.exports ?? {}).match(/"(\.\/[^"]*(?<!\.d)\.ts)"/)?.[1]
  if (pkg.publishConfig)
    found.push(`the development exports, not publishConfig's${source ? ` (${source})` : ''}`)
  const internal = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((kind) =>
    Object.entries(pkg[kind] ?? {})
      .filter(([, range]) => range.startsWith('workspace:'))
      .map(([name, range]) => `${name}@${range}`),
  )
  if (internal.length) found.push(`ranges no registry resolves: ${internal.join(', ')}`)
  return found.length ? found : ['a manifest pnpm would have rewritten']
}
