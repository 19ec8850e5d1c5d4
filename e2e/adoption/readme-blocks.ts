// The TypeScript and JavaScript blocks of the documentation, as files an adopter's compiler checks,
// and the Workers it prints (the files a section's blocks name), as projects wrangler builds.
// Every block is checked unless the line right before its fence says why not:
//   <!-- not checked: the reason -->
// A block that uses names a previous block or the surrounding text defines gets them from a
// one-line prelude in the same place, compiled before the block (so the README stays short):
//   <!-- checked with: declare const video: HTMLVideoElement -->

/** One fenced code block in TypeScript or JavaScript. */
export interface ReadmeBlock {
  /** The Markdown file, relative to the repository root. */
  source: string
  /** The line of the opening fence (1-based). */
  line: number
  /** File extension the block is checked as. */
  extension: 'ts' | 'tsx' | 'js'
  code: string
  /** The `checked with:` code, if any. */
  prelude: string | undefined
  /** The `not checked:` reason, if any. */
  skipped: string | undefined
}

const LANGUAGES: Record<string, ReadmeBlock['extension']> = {
  ts: 'ts',
  typescript: 'ts',
  tsx: 'tsx',
  js: 'js',
  javascript: 'js',
}
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/
const SKIP = /^\s*<!--\s*not checked:\s*(.+?)\s*-->\s*$/
const PRELUDE = /^\s*<!--\s*checked with:\s*(.+?)\s*-->\s*$/

/** One fenced block of any language, with the line above its fence and its section. */
interface Fence {
  /** The line of the opening fence (1-based). */
  line: number
  language: string
  code: string
  /** The line right before the fence (where the directives are). */
  before: string
  /** The heading the block is under (`On Cloudflare Workers`), `''` before the first. */
  section: string
}

/** Every fenced block of a Markdown file, in order. */
function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n')
  const found: Fence[] = []
  let section = ''
  for (let index = 0; index < lines.length; index++) {
    const heading = /^#{1,6}\s+(.+?)\s*$/.exec(lines[index] ?? '')
    if (heading) section = heading[1] ?? ''
    const open = FENCE.exec(lines[index] ?? '')
    if (!open) continue
    const [, fence = '```', language = ''] = open
    const start = index
    const body: string[] = []
    for (index++; index < lines.length; index++) {
      const line = lines[index] ?? ''
      if (line.trimStart().startsWith(fence) && line.trim().replaceAll(fence[0] ?? '`', '') === '')
        break
      body.push(line)
    }
    const before = lines[start - 1] ?? ''
    found.push({
      line: start + 1,
      language: language.toLowerCase(),
      code: body.join('\n'),
      before,
      section,
    })
  }
  return found
}

/**
 * The TypeScript/JavaScript blocks (`ts`, `typescript`, `tsx`, `js`, `javascript` fences) of one
 * Markdown file, with their directives.
 *
 * @example
 * ```ts
 * readmeBlocks(readFileSync('README.md', 'utf8'), 'README.md').filter((block) => !block.skipped)
 * ```
 */
export function readmeBlocks(markdown: string, source: string): ReadmeBlock[] {
  return fences(markdown).flatMap(({ line, language, code, before }) => {
    const extension = LANGUAGES[language]
    if (!extension) return []
    return [
      {
        source,
        line,
        extension,
        code,
        prelude: PRELUDE.exec(before)?.[1],
        skipped: SKIP.exec(before)?.[1],
      },
    ]
  })
}

/** A file a block names on its first line, `// wrangler.jsonc` or `// src/worker.ts`. */
export interface NamedFile {
  /** The line of the block's opening fence (1-based). */
  line: number
  /** Relative to the project the block belongs to. */
  path: string
  /** The whole block, its naming line included (as a reader copies it). */
  code: string
}

/** A Worker a documentation file prints: the files named in one section with a wrangler configuration. */
export interface WorkerProject {
  source: string
  /** The line of the configuration's fence. */
  line: number
  section: string
  files: NamedFile[]
}

// a first line that is only a comment naming a relative file: `// wrangler.jsonc`, `# wrangler.toml`
const NAMES_FILE =
  /^\s*(?:\/\/|#)\s*((?:[\w-][\w.-]*\/)*[\w-][\w.-]*\.(?:jsonc?|toml|[cm]?[jt]sx?))\s*$/
const WRANGLER_CONFIG = /^wrangler\.(?:jsonc?|toml)$/

/**
 * The Workers of one Markdown file, to be built as printed: each section with a block that names
 * `wrangler.jsonc` (`.json`, `.toml`) on its first line, with every file its blocks name.
 *
 * @example
 * ```ts
 * workerProjects(readFileSync('packages/token-backend/README.md', 'utf8'), 'packages/token-backend/README.md')
 * // [{ section: 'On Cloudflare Workers', files: [{ path: 'src/worker.ts', … }, { path: 'wrangler.jsonc', … }], … }]
 * ```
 */
export function workerProjects(markdown: string, source: string): WorkerProject[] {
  const bySection = new Map<string, NamedFile[]>()
  for (const { line, code, section } of fences(markdown)) {
    const path = NAMES_FILE.exec(code.split('\n')[0] ?? '')?.[1]
    if (path === undefined) continue
    bySection.set(section, [...(bySection.get(section) ?? []), { line, path, code }])
  }
  return [...bySection].flatMap(([section, files]) => {
    const config = files.find((file) => WRANGLER_CONFIG.test(file.path))
    return config ? [{ source, line: config.line, section, files }] : []
  })
}

/** The file a block is checked as: named after its source and line, `README-L528.ts`. */
export function blockFileName(block: ReadmeBlock): string {
  const source = block.source.replace(/\.md$/i, '').replace(/[^A-Za-z0-9]+/g, '-')
  return `${source}-L${block.line}.${block.extension}`
}

/**
 * The block as a module of its own (`export {}`: top-level names of different blocks never
 * collide). Line 1 is the prelude, so line n of the file is line `block.line + n - 1` of the
 * Markdown file: line 1 falls on the directive comment, right above the fence.
 */
export function blockModule(block: ReadmeBlock): string {
  return `${block.prelude ?? ''}\n${block.code}\nexport {}\n`
}
