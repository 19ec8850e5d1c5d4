// The TypeScript and JavaScript blocks of the documentation, as files an adopter's compiler checks.
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
  const lines = markdown.split('\n')
  const blocks: ReadmeBlock[] = []
  for (let index = 0; index < lines.length; index++) {
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
    const extension = LANGUAGES[language.toLowerCase()]
    if (!extension) continue
    const before = lines[start - 1] ?? ''
    blocks.push({
      source,
      line: start + 1,
      extension,
      code: body.join('\n'),
      prelude: PRELUDE.exec(before)?.[1],
      skipped: SKIP.exec(before)?.[1],
    })
  }
  return blocks
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
