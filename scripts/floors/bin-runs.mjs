// The runs of `proj-token-backend` itself (the packed bin, on the floors; `{ node, bin, cwd }`
// names the floor's Node, the installed bin and the user's folder): it serves a correct
// token configured by the environment, --config or --env-file and stops with exit 0 on SIGTERM;
// SIGTERM during a request lets that request finish; a bad configuration stops it with exit 2
// naming the variable, never its value.
import { once } from 'node:events'
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { checkRecord, fail, serving, startProcess } from './processes.mjs'

/**
 * One run of the bin that must serve: a token for `demo` (VOD, the viewer's address from
 * X-Real-IP as the variables trust it) checked field by field, then SIGTERM with the fetch's
 * keep-alive connection still open: exit 0 in well under the 10 s grace, the token's audit line
 * on stdout, the secret printed nowhere.
 *
 * @example await serveAndStop('environment', { node, bin, cwd }, [], env, signing)
 */
export async function serveAndStop(label, { node, bin, cwd }, args, env, signing) {
  const at = performance.now()
  const { port, run } = await serving(label, startProcess(node, bin, args, env, cwd))
  const ip = '198.51.100.7'
  const response = await fetch(`http://127.0.0.1:${port}/token?video=demo&type=vod`, {
    headers: { 'x-real-ip': ip },
  })
  const body = await response.text()
  if (response.status !== 200) fail(`${label}: GET /token answered ${response.status}: ${body}`)
  const problem = checkRecord(JSON.parse(body), { ...signing, video: 'demo', ip })
  if (problem) fail(`${label}: ${problem}`)
  const { expires } = JSON.parse(body)
  const signalled = performance.now()
  run.child.kill('SIGTERM')
  const { code, signal } = await run.exited
  const stopMs = performance.now() - signalled
  if (code !== 0)
    fail(`${label}: SIGTERM ended it with ${signal ?? `exit ${code}`}:\n${run.output.stderr}`)
  if (stopMs > 5_000) fail(`${label}: took ${Math.round(stopMs)} ms to stop with nothing open`)
  const audit = run.output.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
  const line = audit.find((entry) => entry.event === 'token_issued' && entry.expires === expires)
  if (line?.video !== 'demo' || line.client_ip !== ip)
    fail(`${label}: no audit line for the token on stdout: ${run.output.stdout || '(empty)'}`)
  if (run.output.stdout.includes(signing.secret) || run.output.stderr.includes(signing.secret))
    fail(`${label}: the secret was printed`)
  console.log(
    `  ok    ${label}: token verified, audit line written, SIGTERM → exit 0 in ${Math.round(stopMs)} ms (run ${Math.round(performance.now() - at)} ms)`,
  )
}

/**
 * SIGTERM while a request is open: a session playlist whose upstream fetch (a CDN here that
 * answers after UPSTREAM_DELAY_MS) is under way. New connections must be refused at once, the
 * open request must still be answered, and the exit must be 0, after that answer.
 *
 * @example await drainOnStop('SIGTERM during a request', { node, bin, cwd }, env, signing)
 */
export async function drainOnStop(label, { node, bin, cwd }, env, signing) {
  const UPSTREAM_DELAY_MS = 1500
  let upstreamHit
  const hit = new Promise((resolve) => {
    upstreamHit = resolve
  })
  const cdn = createServer((request, response) => {
    upstreamHit(request.url)
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' })
      response.end('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n')
    }, UPSTREAM_DELAY_MS)
  })
  cdn.listen(0, '127.0.0.1')
  await once(cdn, 'listening')
  const cdnHost = `127.0.0.1:${cdn.address().port}`
  try {
    const sessionEnv = {
      ...env,
      CDN_SCHEME: 'http',
      CDN_DOMAIN: cdnHost,
      CDN_DOMAIN_IP: cdnHost,
      SESSION_SECRET: 'floor-session-secret-of-32-chars-ok',
    }
    const { port, run } = await serving(
      label,
      startProcess(node, bin, ['--port', '0'], sessionEnv, cwd),
    )
    const headers = { 'x-real-ip': '198.51.100.7' }
    const session = await fetch(`http://127.0.0.1:${port}/session?video=demo&type=vod`, {
      headers,
    })
    if (session.status !== 200) fail(`${label}: GET /session answered ${session.status}`)
    const { session_url: sessionUrl } = await session.json()
    const playlist = fetch(sessionUrl, { headers })
    await hit
    const signalled = performance.now()
    run.child.kill('SIGTERM')
    // the listening socket closes at once: a new connection is refused
    await new Promise((resolve) => setTimeout(resolve, 200))
    const refused = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.on('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.on('error', (error) => resolve(error.code === 'ECONNREFUSED'))
    })
    if (!refused) fail(`${label}: a new connection was accepted after SIGTERM`)
    const answer = await playlist
    const text = await answer.text()
    if (answer.status !== 200 || !text.startsWith('#EXTM3U'))
      fail(`${label}: the open request got ${answer.status}: ${text.slice(0, 200)}`)
    const { code, signal } = await run.exited
    const stopMs = performance.now() - signalled
    if (code !== 0)
      fail(`${label}: SIGTERM ended it with ${signal ?? `exit ${code}`}:\n${run.output.stderr}`)
    if (stopMs < UPSTREAM_DELAY_MS - 300)
      fail(`${label}: exited ${Math.round(stopMs)} ms after SIGTERM, before the open request ended`)
    if (run.output.stdout.includes(signing.secret) || run.output.stderr.includes(signing.secret))
      fail(`${label}: the secret was printed`)
    console.log(
      `  ok    ${label}: new connection refused, the open playlist request answered 200, exit 0 ${Math.round(stopMs)} ms after SIGTERM`,
    )
  } finally {
    cdn.closeAllConnections()
    cdn.close()
  }
}

/**
 * A run that must refuse to start: exit 2, the variable named, neither value printed.
 *
 * @example await refuse('AUTH_MODE unset', { node, bin, cwd }, ['--port', '0'], env, { variable: 'AUTH_MODE', hidden: [secret] })
 */
export async function refuse(label, { node, bin, cwd }, args, env, { variable, hidden }) {
  const run = startProcess(node, bin, args, env, cwd)
  const { code } = await run.exited
  const printed = run.output.stdout + run.output.stderr
  if (code !== 2) fail(`${label}: exited ${code}, not 2:\n${printed}`)
  if (!printed.includes(variable))
    fail(`${label}: the message does not name ${variable}:\n${printed}`)
  for (const value of hidden)
    if (printed.includes(value)) fail(`${label}: a value was printed:\n${printed}`)
  console.log(`  ok    ${label}: exit 2, "${run.output.stderr.trim().split('\n')[0]}"`)
}
