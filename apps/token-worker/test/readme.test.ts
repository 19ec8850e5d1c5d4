import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWranglerDev, type WranglerDev } from './wrangler-dev.ts'

// The curl examples of docs/token-api.md, replayed against the real `wrangler dev` with the committed local
// values (.dev.vars.example), so the documented output is what the code prints.
const root = join(import.meta.dirname, '..')
const readme = readFileSync(join(root, '..', '..', 'docs', 'token-api.md'), 'utf8')
const PORT = 18788
const DOC_ORIGIN = 'http://127.0.0.1:8787'

interface Example {
  url: string
  method: string
  headers: Record<string, string>
  expected: string
}

/** `curl` lines followed by a ```json block, or by a `# {…}` comment line. */
const examples = (): Example[] => {
  const found: Example[] = []
  const curl = /^curl (?:-s )?(?:-X (\w+) )?'([^']+)'((?: -H '[^']+')*)$/
  const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)]
  blocks.forEach(([, lang, body], i) => {
    if (lang !== 'sh' || !body) return
    const lines = body.trim().split('\n')
    lines.forEach((line, j) => {
      const match = curl.exec(line)
      if (!match?.[2]?.startsWith(DOC_ORIGIN)) return
      const headers = Object.fromEntries(
        [...(match[3] ?? '').matchAll(/-H '([^:]+): ([^']+)'/g)].map(([, k, v]) => [
          k ?? '',
          v ?? '',
        ]),
      )
      const comment = lines[j + 1]?.startsWith('# {') ? lines[j + 1]?.slice(2) : undefined
      const next = blocks[i + 1]
      const expected =
        comment ?? (next?.[1] === 'json' && lines.length === 1 ? next[2]?.trim() : undefined)
      if (expected) found.push({ url: match[2], method: match[1] ?? 'GET', headers, expected })
    })
  })
  return found
}

let dev: WranglerDev

beforeAll(async () => {
  dev = await startWranglerDev(PORT, ['--env-file', '.dev.vars.example'])
}, 70_000)

afterAll(() => dev.stop())

describe('README examples against wrangler dev', () => {
  it("signs the README's relative example with tokens an independent MD5 (node:crypto) confirms", async () => {
    const secret = /^SECRET_KEY=(.+)$/m.exec(
      readFileSync(join(root, '.dev.vars.example'), 'utf8'),
    )?.[1]
    const res = await fetch(`http://127.0.0.1:${PORT}/token?video=demo&type=vod&expire=600`, {
      headers: { 'x-real-ip': '198.51.100.23' },
    })
    const body = (await res.json()) as { token: string; token_ip: string; expires: number }
    const md5 = (text: string) => createHash('md5').update(text).digest('base64url')
    expect(body.token).toBe(md5(`12345_demo_${secret}_${body.expires}_`))
    expect(body.token_ip).toBe(md5(`12345_demo_${secret}_${body.expires}_198.51.100.23`))
    expect(Math.abs(body.expires - (Date.now() / 1000 + 600))).toBeLessThan(5)
  })

  it('finds the documented examples', () => {
    expect(examples().length).toBeGreaterThanOrEqual(6)
  })

  it.each(examples().map((e) => [`${e.method} ${e.url.slice(DOC_ORIGIN.length)}`, e] as const))(
    '%s prints what the README shows',
    async (_, example) => {
      expect(dev.output()).toContain('Ready on')
      const res = await fetch(example.url.replace(DOC_ORIGIN, `http://127.0.0.1:${PORT}`), {
        method: example.method,
        headers: example.headers,
      })
      // Compared as JSON text with key order kept: the README's blocks are pretty-printed.
      expect(JSON.stringify(await res.json())).toBe(JSON.stringify(JSON.parse(example.expected)))
    },
  )
})
