import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkPack, readTarball, relativeLinks } from './check-packs-rules.mjs'

const LICENSE = 'MIT License\n\nCopyright (c) 2026 the proj contributors\n'
const WEB = 'https://github.com/proj-video/edge-delivery'
const root = { license: 'MIT', repository: { type: 'git', url: `git+${WEB}.git` } }

/** A tarball's worth of a publishable @proj/example, as `pnpm pack` should leave it. */
function fixture(changes = {}) {
  const manifest = {
    name: '@proj/example',
    version: '1.0.0',
    license: 'MIT',
    type: 'module',
    repository: { type: 'git', url: `git+${WEB}.git`, directory: 'packages/example' },
    homepage: `${WEB}/tree/main/packages/example#readme`,
    bugs: { url: `${WEB}/issues` },
    engines: { node: '>=20' },
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './sw': './dist/sw.js',
    },
    unpkg: './dist/example.iife.js',
    dependencies: { '@proj/signing': '^1.0.0' },
    peerDependencies: { 'hls.js': '^1.7.0' },
    ...changes,
  }
  const files = new Map(
    [
      ['package.json', JSON.stringify(manifest)],
      ['LICENSE', LICENSE],
      ['README.md', `# @proj/example\n\nSee [the protocol](${WEB}/blob/main/docs/protocol.md).\n`],
      ['dist/index.js', ''],
      ['dist/index.d.ts', ''],
      ['dist/sw.js', ''],
      ['dist/example.iife.js', ''],
    ].map(([path, text]) => [path, Buffer.from(text)]),
  )
  return { manifest, files, directory: 'packages/example', root, license: LICENSE }
}

describe('checkPack', () => {
  it('passes a tarball a registry can carry', () => {
    expect(checkPack(fixture())).toEqual([])
  })

  it('names a planted workspace: range, in any kind of dependency', () => {
    const pack = fixture({
      dependencies: { '@proj/signing': '^1.0.0', '@proj/token-refresh': 'workspace:^' },
      devDependencies: { '@proj/stack': 'workspace:*' },
    })
    expect(checkPack(pack)).toEqual([
      'dependencies["@proj/token-refresh"] is "workspace:^": only pnpm inside this workspace resolves it',
      'devDependencies["@proj/stack"] is "workspace:*": only pnpm inside this workspace resolves it',
    ])
  })

  it('names an entry that is TypeScript source, and accepts declarations', () => {
    const pack = fixture({
      exports: {
        '.': { types: './dist/index.d.ts', default: './src/index.ts' },
        './sw': './dist/sw.js',
      },
      module: 'src/index.mts',
    })
    expect(checkPack(pack)).toEqual([
      'exports["."]["default"] is "./src/index.ts": TypeScript source, not JavaScript or a declaration',
      'module is "src/index.mts": TypeScript source, not JavaScript or a declaration',
    ])
  })

  it('names an entry whose file is not in the tarball', () => {
    const pack = fixture({ bin: { example: './dist/cli.js' }, jsdelivr: './dist/missing.js' })
    expect(checkPack(pack)).toEqual([
      'jsdelivr is "./dist/missing.js": no such file in the tarball',
      'bin["example"] is "./dist/cli.js": no such file in the tarball',
    ])
  })

  it('matches subpath patterns against the tarball', () => {
    expect(checkPack(fixture({ exports: { './*': './dist/*.js' } }))).toEqual([])
    expect(checkPack(fixture({ exports: { './*': './lib/*.js' } }))).toEqual([
      'exports["./*"] is "./lib/*.js": no such file in the tarball',
    ])
  })

  it('names missing metadata and a repository that disagrees with the root', () => {
    const pack = fixture({
      homepage: undefined,
      bugs: undefined,
      engines: undefined,
      license: undefined,
      repository: { type: 'git', url: 'git+https://github.com/someone/else.git' },
    })
    expect(checkPack(pack)).toEqual([
      'license is missing',
      'homepage is missing',
      'bugs is missing',
      'engines is missing',
      `repository.url is "git+https://github.com/someone/else.git", not the root's "git+${WEB}.git"`,
      'repository.directory is undefined, not "packages/example"',
    ])
  })

  it('names a dependency on a private workspace package', () => {
    expect(checkPack({ ...fixture(), unpublished: new Set(['@proj/signing']) })).toEqual([
      'dependencies["@proj/signing"]: @proj/signing is private, never published',
    ])
  })

  it('names a missing or edited LICENSE, a missing README and a relative README link', () => {
    const pack = fixture()
    pack.files.set('LICENSE', Buffer.from('All rights reserved.\n'))
    expect(checkPack(pack)).toEqual(['LICENSE differs from the root LICENSE'])
    pack.files.delete('LICENSE')
    pack.files.set('README.md', Buffer.from('[spec](../../docs/protocol.md)\n'))
    expect(checkPack(pack)).toEqual([
      'LICENSE is missing from the tarball',
      'README.md links to "../../docs/protocol.md": relative, broken on a registry page',
    ])
    pack.files.delete('README.md')
    expect(checkPack(pack)).toContain('README.md is missing from the tarball')
  })
  it('names a package whose prepack would let npm pack it, or forget the LICENSE', () => {
    const guarded = { scripts: { prepack: 'node ../../scripts/prepack.mjs && tsc -p .' } }
    expect(checkPack({ ...fixture(), source: guarded })).toEqual([])
    expect(checkPack({ ...fixture(), source: { scripts: { prepack: 'tsc -p .' } } })).toEqual([
      'scripts.prepack is "tsc -p .": it must start with scripts/prepack.mjs (refuses npm pack, copies LICENSE)',
    ])
  })
})

describe('relativeLinks', () => {
  it('finds inline, reference and HTML links that only resolve in the repository', () => {
    const markdown = [
      '[a](../../docs/a.md) [b](https://example.com/b) [c](#usage) ![d](./d.png)',
      '[e]: docs/e.md',
      '<img src="f.svg"> <a href="mailto:x@example.com">x</a>',
      '`[not](a/link.md)`',
      '```md',
      '[not](a/link/either.md)',
      '```',
    ].join('\n')
    expect(relativeLinks(markdown)).toEqual(['../../docs/a.md', './d.png', 'docs/e.md', 'f.svg'])
  })
})

describe('readTarball', () => {
  const dir = mkdtempSync(join(tmpdir(), 'check-packs-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // longer than the 100 bytes of a ustar name: written as a pax or GNU long-name header
  const deep = `dist/${'nested/'.repeat(16)}index.js`

  it.each(['pax', 'gnu', 'ustar'])('reads a %s tarball as npm and pnpm lay it out', (format) => {
    const tree = join(dir, format, 'package')
    for (const [path, text] of [
      ['package.json', '{"name":"x"}'],
      [deep, 'export {}\n'],
    ]) {
      mkdirSync(dirname(join(tree, path)), { recursive: true })
      writeFileSync(join(tree, path), text)
    }
    const tgz = join(dir, `${format}.tgz`)
    const tar = spawnSync('tar', [
      `--format=${format}`,
      '-czf',
      tgz,
      '-C',
      dirname(tree),
      'package',
    ])
    expect(tar.status, tar.stderr?.toString()).toBe(0)
    const files = readTarball(readFileSync(tgz))
    expect(files.get('package.json')?.toString()).toBe('{"name":"x"}')
    expect(files.get(deep)?.toString()).toBe('export {}\n')
    expect([...files.keys()].sort()).toEqual([deep, 'package.json'].sort())
  })
})
