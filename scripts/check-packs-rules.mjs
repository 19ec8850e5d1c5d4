// What a packed tarball must be for a registry to carry it, as pure functions over the tarball's
// files and package.json (scripts/check-packs.mjs packs and reports; the test feeds fixtures).
import { gunzipSync } from 'node:zlib'

const DEPENDENCY_KINDS = [
  'dependencies',
  'peerDependencies',
  'optionalDependencies',
  'devDependencies',
]
// the ones a consumer's install resolves
const RUNTIME_KINDS = new Set(['dependencies', 'peerDependencies', 'optionalDependencies'])
// protocols only a pnpm workspace understands; `pnpm pack` replaces them
const WORKSPACE_PROTOCOLS = /^(?:workspace|catalog):/
const LOCAL_PROTOCOLS = /^(?:link|file|portal):/
const ENTRY_FIELDS = ['main', 'module', 'types', 'typings', 'browser', 'unpkg', 'jsdelivr']
const METADATA_FIELDS = ['license', 'repository', 'homepage', 'bugs', 'engines']
// TypeScript source a consumer's Node or bundler would have to compile; declarations are fine
const TYPESCRIPT_SOURCE = /\.(?:[cm]?ts|tsx)$/
const DECLARATION = /\.d\.[cm]?ts$/

/**
 * The files of a gzipped tarball as `npm pack`/`pnpm pack` write it, by path without the leading
 * `package/` folder. Reads ustar, pax (`x`) and GNU long-name (`L`) headers.
 *
 * @param {Buffer} gzipped the .tgz file's bytes
 * @returns {Map<string, Buffer>}
 * @example readTarball(readFileSync('.tmp/packs/proj-signing-0.1.0.tgz')).get('package.json')
 */
export function readTarball(gzipped) {
  const tar = gunzipSync(gzipped)
  const files = new Map()
  let longName
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512)
    if (header.every((byte) => byte === 0)) break
    const text = (from, length) =>
      header
        .subarray(from, from + length)
        .toString('utf8')
        .replace(/\0[\s\S]*$/, '')
    const size = Number.parseInt(text(124, 12).trim() || '0', 8)
    const type = text(156, 1) || '0'
    const body = tar.subarray(at + 512, at + 512 + size)
    at += 512 + Math.ceil(size / 512) * 512
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1] ?? longName
      continue
    }
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0[\s\S]*$/, '')
      continue
    }
    const prefix = text(345, 155)
    const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100))
    longName = undefined
    if (type === '0' || type === '7') files.set(name.replace(/^[^/]+\//, ''), Buffer.from(body))
  }
  return files
}

/**
 * The problems of one packed package, each naming the field or file: `[]` when a registry can
 * carry it and a consumer's npm, Node and bundler can use it as it is.
 *
 * @param {object} pack
 * @param {Record<string, unknown>} pack.manifest the tarball's package.json
 * @param {Map<string, Buffer>} pack.files the tarball's files (see readTarball)
 * @param {string} pack.directory the package's folder relative to the repository root
 * @param {{ repository?: { url?: string }, license?: string }} pack.root the root package.json
 * @param {string} [pack.license] the root LICENSE text, which every tarball carries unchanged
 * @param {Set<string>} [pack.unpublished] names of the workspace's private packages
 * @param {Record<string, unknown>} [pack.source] the package.json in the repository, when known
 * @returns {string[]}
 * @example checkPack({ manifest, files, directory: 'packages/signing', root }) // []
 */
export function checkPack({
  manifest,
  files,
  directory,
  root,
  license,
  unpublished = new Set(),
  source,
}) {
  return [
    ...(source ? sourceProblems(source) : []),
    ...dependencyProblems(manifest, unpublished),
    ...entryProblems(manifest, files),
    ...metadataProblems(manifest, directory, root),
    ...fileProblems(files, license),
  ]
}

// pnpm drops `prepack` from the packed manifest: it is read in the repository's package.json
function sourceProblems(source) {
  const prepack = source.scripts?.prepack ?? ''
  return /^node (?:\.\.\/)+scripts\/prepack\.mjs(?:\s|$)/.test(prepack)
    ? []
    : [
        `scripts.prepack is ${JSON.stringify(prepack)}: it must start with scripts/prepack.mjs (refuses npm pack, copies LICENSE)`,
      ]
}

function dependencyProblems(manifest, unpublished) {
  const problems = []
  for (const kind of DEPENDENCY_KINDS) {
    for (const [name, range] of Object.entries(manifest[kind] ?? {})) {
      const field = `${kind}["${name}"]`
      if (WORKSPACE_PROTOCOLS.test(range))
        problems.push(`${field} is "${range}": only pnpm inside this workspace resolves it`)
      else if (RUNTIME_KINDS.has(kind) && LOCAL_PROTOCOLS.test(range))
        problems.push(`${field} is "${range}": a path on this machine`)
      else if (RUNTIME_KINDS.has(kind) && unpublished.has(name))
        problems.push(`${field}: ${name} is private, never published`)
    }
  }
  return problems
}

/** Every file an entry field points at, as [field, target]: exports walked through conditions. */
function entryTargets(manifest) {
  const targets = []
  const walk = (field, value) => {
    if (typeof value === 'string') targets.push([field, value])
    else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(`${field}[${index}]`, item)
    } else if (value && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) walk(`${field}["${key}"]`, item)
  }
  walk('exports', manifest.exports)
  for (const field of ENTRY_FIELDS) {
    const value = manifest[field]
    // browser's object form maps module specifiers, which may be bare names or `false`
    if (field === 'browser' && value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value))
        if (typeof item === 'string' && item.startsWith('.'))
          targets.push([`browser["${key}"]`, item])
    } else walk(field, value)
  }
  walk('bin', manifest.bin)
  return targets
}

function entryProblems(manifest, files) {
  const problems = []
  for (const [field, target] of entryTargets(manifest)) {
    const path = target.replace(/^\.\//, '')
    if (TYPESCRIPT_SOURCE.test(path) && !DECLARATION.test(path))
      problems.push(`${field} is "${target}": TypeScript source, not JavaScript or a declaration`)
    else if (!resolves(field, path, files))
      problems.push(`${field} is "${target}": no such file in the tarball`)
  }
  return problems
}

function resolves(field, path, files) {
  if (path.includes('*')) {
    // a subpath pattern: at least one file must match it
    const pattern = new RegExp(
      `^${path
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.+')}$`,
    )
    return [...files.keys()].some((file) => pattern.test(file))
  }
  if (files.has(path)) return true
  // only `main` keeps CommonJS's extension and folder resolution
  return field === 'main' && [`${path}.js`, `${path}/index.js`].some((file) => files.has(file))
}

/**
 * The web address of the repository, from a package.json `repository` URL.
 *
 * @param {string} url
 * @returns {string}
 * @example repositoryWeb('git+https://github.com/proj-video/edge-delivery.git') // 'https://github.com/proj-video/edge-delivery'
 */
export function repositoryWeb(url) {
  return url.replace(/^git\+/, '').replace(/\.git$/, '')
}

function metadataProblems(manifest, directory, root) {
  const problems = METADATA_FIELDS.filter((field) => manifest[field] == null).map(
    (field) => `${field} is missing`,
  )
  const rootUrl = root.repository?.url
  if (!rootUrl) return [...problems, 'the root package.json has no repository.url to agree with']
  const web = repositoryWeb(rootUrl)
  const { repository, homepage, bugs, engines, license } = manifest
  if (repository != null) {
    if (repository.url !== rootUrl)
      problems.push(
        `repository.url is ${JSON.stringify(repository.url)}, not the root's "${rootUrl}"`,
      )
    if (repository.directory !== directory)
      problems.push(
        `repository.directory is ${JSON.stringify(repository.directory)}, not "${directory}"`,
      )
  }
  if (homepage != null && !String(homepage).startsWith(`${web}/`))
    problems.push(`homepage is ${JSON.stringify(homepage)}, not under ${web}/`)
  const bugsUrl = typeof bugs === 'string' ? bugs : bugs?.url
  if (bugs != null && !String(bugsUrl).startsWith(web))
    problems.push(`bugs.url is ${JSON.stringify(bugsUrl)}, not under ${web}`)
  if (engines != null && typeof engines.node !== 'string')
    problems.push('engines.node is missing: the Node versions the package runs on')
  if (license != null && root.license && license !== root.license)
    problems.push(`license is ${JSON.stringify(license)}, not the root's "${root.license}"`)
  return problems
}

function fileProblems(files, license) {
  const problems = []
  const packed = files.get('LICENSE')
  if (!packed) problems.push('LICENSE is missing from the tarball')
  else if (license != null && packed.toString('utf8') !== license)
    problems.push('LICENSE differs from the root LICENSE')
  const readme = files.get('README.md')
  if (!readme) problems.push('README.md is missing from the tarball')
  else
    for (const link of relativeLinks(readme.toString('utf8')))
      problems.push(`README.md links to "${link}": relative, broken on a registry page`)
  return problems
}

/**
 * The link targets of a Markdown text that only resolve inside the repository: relative paths,
 * not URLs or `#anchors`. Code blocks and inline code are skipped.
 *
 * @param {string} markdown
 * @returns {string[]}
 * @example relativeLinks('[spec](../../docs/protocol.md)') // ['../../docs/protocol.md']
 */
export function relativeLinks(markdown) {
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '')
  const targets = [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)/g)].map((match) => match[1]),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]),
    ...[...prose.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]),
  ]
  return targets.filter((target) => !/^(?:[a-z][a-z0-9+.-]*:|#|\/\/)/i.test(target))
}
