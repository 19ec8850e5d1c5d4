import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { ROOT } from '@proj/stack'
import { workerScript } from '@proj/sw-token-refresh/vite'
import { build } from 'esbuild'

/** A user's page on a server of its own (see {@link serveUserPage}). */
export interface UserPage {
  /** The page's address, without a query. */
  url: string
  /** Every path the browser asked the site for, in order. */
  asked: string[]
  /**
   * With `splitting`: the page's files it imports on demand (`import()`), by path, e.g.
   * `/after-failure-X2Q7.js`; the files its first load needs are the others.
   */
  onDemand: string[]
  close(): Promise<void>
}

/** How {@link serveUserPage} builds the page. */
export interface UserPageOptions {
  /**
   * Code splitting, as a bundler does for a page: what the packages import on demand becomes
   * files of their own (else one file, dynamic imports inlined).
   */
  splitting?: boolean
}

/**
 * `e2e/pages/<name>.ts` with the packages it imports, as browser modules by path: `/page.js`,
 * and with `splitting` its chunks; `onDemand` lists the dynamic imports' files.
 */
async function bundle(
  name: string,
  splitting: boolean,
): Promise<{ files: Map<string, string>; onDemand: string[] }> {
  const page = join(ROOT, 'e2e', 'pages', `${name}.ts`)
  const { outputFiles, metafile } = await build({
    entryPoints: { page },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    splitting,
    metafile: true,
    outdir: '/site',
  })
  const files = new Map(outputFiles.map((file) => [file.path.slice('/site'.length), file.text]))
  // every output file with an entry point but the page's own is a dynamic import's
  const onDemand = Object.entries(metafile.outputs)
    .filter(([, output]) => output.entryPoint && !page.endsWith(output.entryPoint))
    .map(([path]) => `/${path.split('/').pop()}`)
  return { files, onDemand }
}

/**
 * Serves the user page `e2e/pages/<name>.ts` as a site of its own on a free loopback port, the
 * way a user deploys the README's code: the page (one `<video autoplay muted>`), its bundle
 * (esbuild, like a user's build) and the package's worker script at `/token-refresh-sw.js`.
 * Nothing of the demo page is in it. A real server, not `page.route`: Chromium lets a page it
 * got from a route (no address) reach no loopback service.
 *
 * @example
 * ```ts
 * const site = await serveUserPage('native-readme')
 * await page.goto(`${site.url}?${new URLSearchParams({ token: tokenRequestUrl, lead: '6' })}`)
 * await site.close()
 * ```
 */
export async function serveUserPage(
  name: string,
  { splitting = false }: UserPageOptions = {},
): Promise<UserPage> {
  const [scripts, worker] = await Promise.all([bundle(name, splitting), workerScript()])
  const files: Record<string, [string, string]> = {
    '/': [
      'text/html',
      `<!doctype html><title>${name}</title><video autoplay muted playsinline></video><script type="module" src="/page.js"></script>`,
    ],
    '/token-refresh-sw.js': ['text/javascript', worker],
  }
  for (const [path, text] of scripts.files) files[path] = ['text/javascript', text]
  const asked: string[] = []
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname
    asked.push(path)
    const file = files[path]
    response.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain' })
    response.end(file?.[1] ?? 'not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    asked,
    onDemand: scripts.onDemand,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
