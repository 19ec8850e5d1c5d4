// The library on the floors, as an app of a user's: `@proj/token-backend` mounted under /video
// in their Hono app served by their @hono/node-server (every Node entry imported: `.`, `./node`,
// `./redis`; `./session-registry` is the Workers' one, built by the adoption step), run by the
// floor's Node and type-checked against the floor peers' declarations (checkJs, strict,
// skipLibCheck off: a type the package names and a peer lacks fails): routes under the mount
// path, the connection's address from node-server's socket, a session URL with the prefix.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkLeaf, checkRecord, fail, serving, startProcess } from './processes.mjs'

/** The user's app: JavaScript checked by TypeScript (`// @ts-check`), so Node 20 runs it as is. */
const APP = `// @ts-check
import { serve } from '@hono/node-server'
import { configFromEnv, createTokenApp } from '@proj/token-backend'
import { createNodeTokenApp } from '@proj/token-backend/node'
import { connectRedis, redisSessionStore } from '@proj/token-backend/redis'
import { Hono } from 'hono'

const tokens = createNodeTokenApp({
  config: {
    signing: {
      clientId: process.env.CLIENT_ID ?? '',
      secretKey: process.env.SECRET_KEY ?? '',
      cdnDomain: process.env.CDN_DOMAIN ?? '',
      cdnDomainIp: process.env.CDN_DOMAIN_IP ?? '',
    },
    auth: { mode: 'none' },
    session: { secret: process.env.SESSION_SECRET ?? '' },
  },
})
const app = new Hono().get('/', (c) => c.text('my app')).route('/video', tokens)
// the other entries load, and their types line up with the peers installed
const loaded = [configFromEnv, createTokenApp, connectRedis, redisSessionStore]
if (!loaded.every((entry) => typeof entry === 'function')) throw new Error('an entry is missing')
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  console.error(\`listening on http://127.0.0.1:\${info.port}/\`)
})
`

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    allowJs: true,
    checkJs: true,
    strict: true,
    noEmit: true,
    // the peers' and the package's declarations are checked too: a type the floor lacks fails
    skipLibCheck: false,
    types: ['node'],
  },
  files: ['app.mjs'],
}

/**
 * tsc's errors, split: in the app or in this project's declarations (`node_modules/@proj/…`),
 * which fail the check, and in a peer's own declarations (@hono/node-server 2.0.0's name `ws`,
 * which it does not depend on), which a user sees with or without this package.
 */
function typeErrors(output) {
  const errors = output.split('\n').filter((line) => /: error TS\d+:/.test(line))
  const theirs = errors.filter(
    (line) => line.startsWith('node_modules/') && !line.startsWith('node_modules/@proj/'),
  )
  return { ours: errors.filter((line) => !theirs.includes(line)), theirs }
}

/**
 * Writes the app into the project, type-checks it with `tsc` (the repository's), runs it with
 * `node` and checks its answers.
 *
 * @example await libraryApp('the library in your Hono app', { node, cwd }, tsc, env, signing)
 */
export async function libraryApp(label, { node, cwd }, tsc, env, signing) {
  writeFileSync(join(cwd, 'app.mjs'), APP)
  writeFileSync(join(cwd, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))
  const checked = spawnSync(tsc, ['-p', cwd, '--pretty', 'false'], { cwd, encoding: 'utf8' })
  const { ours, theirs } = typeErrors(`${checked.stdout}${checked.stderr}`)
  if (ours.length > 0 || (checked.status !== 0 && theirs.length === 0))
    fail(
      `${label}: the app does not type-check on these peers:\n${ours.join('\n') || checked.stdout + checked.stderr}`,
    )
  const notes = theirs.length
    ? ` (not ours: ${theirs.length} error${theirs.length > 1 ? 's' : ''} in the peers' own declarations, first: ${theirs[0]})`
    : ''

  const appEnv = { ...env, SESSION_SECRET: 'floor-session-secret-of-32-chars-ok' }
  const { port, run } = await serving(label, startProcess(node, 'app.mjs', [], appEnv, cwd))
  const base = `http://127.0.0.1:${port}`
  const own = await fetch(`${base}/`)
  if ((await own.text()) !== 'my app') fail(`${label}: the app's own route answered ${own.status}`)
  const token = await fetch(`${base}/video/token?video=demo&type=vod`)
  const body = await token.text()
  if (token.status !== 200) fail(`${label}: GET /video/token answered ${token.status}: ${body}`)
  // the viewer is the connection's peer, from node-server's socket: no header says it
  const problem = checkRecord(JSON.parse(body), { ...signing, video: 'demo', ip: '127.0.0.1' })
  if (problem) fail(`${label}: ${problem}`)
  const session = await fetch(`${base}/video/session?video=demo&type=vod`)
  const sessionText = await session.text()
  if (session.status !== 200)
    fail(`${label}: GET /video/session answered ${session.status}: ${sessionText}`)
  const sessionUrl = JSON.parse(sessionText).session_url
  if (!sessionUrl.startsWith(`${base}/video/s/demo/`))
    fail(`${label}: the session URL ${sessionUrl} does not carry the mount path /video`)
  const leaf = await fetch(sessionUrl.replace(/master\.m3u8$/, 'v0/seg_000.ts'), {
    redirect: 'manual',
  })
  const leafProblem =
    leaf.status === 302
      ? checkLeaf(leaf.headers.get('location'), {
          ...signing,
          video: 'demo',
          file: 'v0/seg_000.ts',
        })
      : `answered ${leaf.status}`
  if (leafProblem) fail(`${label}: the session's leaf under /video: ${leafProblem}`)
  const unknown = await fetch(`${base}/video/nothing-here`)
  if (unknown.status !== 404 || !(await unknown.text()).includes('"error"'))
    fail(`${label}: an unknown path under /video answered ${unknown.status}, not the JSON 404`)
  // the user's app has no signal handling of its own: it only has to go
  run.child.kill('SIGTERM')
  await run.exited
  console.log(
    `  ok    ${label}: type-checked (strict, skipLibCheck off${notes}); token (viewer from the socket), session URL and leaf under /video, JSON 404`,
  )
}
