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
  close(): Promise<void>
}

/** `e2e/pages/<name>.ts` with the packages it imports, as one browser module. */
async function bundle(name: string): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [join(ROOT, 'e2e', 'pages', `${name}.ts`)],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
  })
  return outputFiles[0]?.text ?? ''
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
export async function serveUserPage(name: string): Promise<UserPage> {
  const [script, worker] = await Promise.all([bundle(name), workerScript()])
  const files: Record<string, [string, string]> = {
    '/': [
      'text/html',
      `<!doctype html><title>${name}</title><video autoplay muted playsinline></video><script type="module" src="/page.js"></script>`,
    ],
    '/page.js': ['text/javascript', script],
    '/token-refresh-sw.js': ['text/javascript', worker],
  }
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://page').pathname]
    response.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain' })
    response.end(file?.[1] ?? 'not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
