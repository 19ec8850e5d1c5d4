import { describe, expect, it } from 'vitest'
import { isLayoutSource, layoutProblems, namedPaths } from './check-layout.mjs'

const LAYOUT = `# Layout

Prose names src/prose.ts, never read.

\`\`\`
packages/signing/        @proj/signing
  src/token.ts           MD5 → base64url
  src/testing/           what tests share
    fake-time.ts         a manual clock
                         e.g. a description continued
  src/url.ts             the pair
e2e/
  nginx/nginx.conf.template  the CDN
scripts/check.mjs        the steps
\`\`\`
`

describe('isLayoutSource', () => {
  it('selects the source files of the named folders', () => {
    for (const path of [
      'packages/signing/src/token.ts',
      'apps/demo/index.html',
      'apps/demo/src/style.css',
      'e2e/nginx/token.conf.template',
      'e2e/support/browser-witness.sh',
      'scripts/check.mjs',
      'stack/services.ts',
      'bench/playback/playback.spec.ts',
      'packages/token-backend/src/session/store-conformance.test-suite.ts',
    ])
      expect(isLayoutSource(path), path).toBe(true)
  })

  it('leaves out tests, declarations, tool configuration, media and other folders', () => {
    for (const path of [
      'packages/signing/src/token.test.ts',
      'packages/token-backend/src/config/config-docs.node.test.ts',
      'packages/token-backend/src/app.test-d.ts',
      'scripts/check-packs-rules.test.mjs',
      'packages/token-backend/test/env.d.ts',
      'packages/signing/vitest.config.ts',
      'e2e/playwright.config.ts',
      'packages/hlsjs-token-refresh/vite.iife.config.ts',
      'apps/cdn-emulator/media/vod/v0/seg_000.ts',
      'packages/signing/package.json',
      'docs/layout.md',
      'vitest.config.ts',
    ])
      expect(isLayoutSource(path), path).toBe(false)
  })
})

describe('namedPaths', () => {
  it('resolves each path against the nearest less-indented folder above it, in code blocks only', () => {
    expect(namedPaths(LAYOUT).map(({ path, line }) => [path, line])).toEqual([
      ['packages/signing/', 6],
      ['packages/signing/src/token.ts', 7],
      ['packages/signing/src/testing/', 8],
      ['packages/signing/src/testing/fake-time.ts', 9],
      ['packages/signing/src/url.ts', 11],
      ['e2e/', 12],
      ['e2e/nginx/nginx.conf.template', 13],
      ['scripts/check.mjs', 14],
    ])
  })

  it('reads a path followed by one space as prose, so a missing file shows', () => {
    expect(namedPaths('```\nstack/\n  index.ts the entry\n```').map(({ path }) => path)).toEqual([
      'stack/',
    ])
  })
})

describe('layoutProblems', () => {
  const files = [
    'packages/signing/src/token.ts',
    'packages/signing/src/token.test.ts',
    'packages/signing/src/testing/fake-time.ts',
    'packages/signing/src/url.ts',
    'e2e/nginx/nginx.conf.template',
    'scripts/check.mjs',
  ]
  const exists = (path) => path.endsWith('/') || files.includes(path)

  it('passes a layout that names every source file and nothing else', () => {
    expect(layoutProblems({ markdown: LAYOUT, files, exists })).toEqual({ missing: [], stale: [] })
  })

  it('names an unnamed file with the line to add, under its deepest folder', () => {
    const added = [
      ...files,
      'packages/signing/src/testing/tiny-cdn.ts',
      'packages/signing/src/ip-range.ts',
      'stack/index.ts',
    ]
    expect(layoutProblems({ markdown: LAYOUT, files: added, exists }).missing).toEqual([
      'packages/signing/src/ip-range.ts: add under packages/signing/ (line 6): "  src/ip-range.ts  <what it is>"',
      'packages/signing/src/testing/tiny-cdn.ts: add under packages/signing/src/testing/ (line 8): "    tiny-cdn.ts  <what it is>"',
      'stack/index.ts: add at the top level: "stack/index.ts  <what it is>"',
    ])
  })

  it('names a line whose file or folder is gone', () => {
    const left = files.filter((path) => path !== 'packages/signing/src/url.ts')
    const problems = layoutProblems({
      markdown: LAYOUT,
      files: left,
      exists: (path) => (path.endsWith('/') ? path !== 'e2e/' : left.includes(path)),
    })
    expect(problems.stale).toEqual([
      'packages/signing/src/url.ts (line 11): no such file',
      'e2e/ (line 12): no such folder',
    ])
  })
})
