#!/usr/bin/env node
// A fault injector in front of a CDN (the multi-CDN spec's CDN A): an HTTP proxy on loopback
// ports, each forwarding to one port of the CDN (its plain host, its IP-bound host), with one fault
// schedule for all of them. Modes:
//   pass  forward the request as is (the CDN's own answer, CORS headers included)
//   403   refuse every request, valid tokens included (a secret pushed wrong at the CDN)
//   503   answer every request 503 (the CDN's servers failing)
//   hang  accept the request and never answer; requests hung while the fault is on stay hung
//         after it ends (a client must time out on its own)
// The refusals carry the CDN's CORS headers: a player on another origin sees the status, as it
// sees nginx's own 403.
//
//   INJECTOR_ROUTES  "listenPort:targetPort,…" (loopback; required)
//   INJECTOR_LOG     a file: one JSON line per request {at, port, method, path, mode, status}
//                    (status is "hung" for a request never answered, "failed" when the CDN could
//                    not be reached)
//
// Control, on any of its ports (never forwarded, never logged):
//   POST /__fault {"mode":"403","on_at_ms":30000,"off_at_ms":90000,"start":<epoch ms>?}
//     from start (default: now) + on_at_ms until start + off_at_ms the mode rules, pass otherwise;
//     without on_at_ms/off_at_ms the mode rules from now on
//   GET /__fault  {mode (now), schedule, requests, hung}
// SIGTERM/SIGINT: closes every connection (the hung ones too) and exits.
import { appendFileSync } from 'node:fs'
import { createServer, request } from 'node:http'

const MODES = new Set(['pass', '403', '503', 'hang'])
const routes = (process.env.INJECTOR_ROUTES ?? '')
  .split(',')
  .map((pair) => pair.split(':').map(Number))
  .filter(([listen, target]) => listen > 0 && target > 0)
if (routes.length === 0) {
  console.error('fault-injector.mjs: INJECTOR_ROUTES must name "listenPort:targetPort" pairs')
  process.exit(2)
}
const logFile = process.env.INJECTOR_LOG

/** The schedule: `mode` between `on` and `off` (epoch ms), pass outside. */
let schedule = { mode: 'pass', on: 0, off: Number.POSITIVE_INFINITY }
let requests = 0
const hung = new Set()
const sockets = new Set()

const modeAt = (now) => (now >= schedule.on && now < schedule.off ? schedule.mode : 'pass')

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Content-Length, Date',
  'timing-allow-origin': '*',
  'access-control-allow-headers': 'Range',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
}

const log = (entry) => {
  if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`)
}

const readBody = (req) =>
  new Promise((resolve) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => resolve(body))
  })

const control = async (req, res) => {
  if (req.method === 'POST') {
    let next
    try {
      next = JSON.parse(await readBody(req))
    } catch {
      next = undefined
    }
    if (!next || !MODES.has(String(next.mode))) {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `mode must be one of ${[...MODES].join(', ')}` }))
      return
    }
    const start = Number(next.start ?? Date.now())
    schedule = {
      mode: String(next.mode),
      on: start + Number(next.on_at_ms ?? 0),
      off: next.off_at_ms === undefined ? Number.POSITIVE_INFINITY : start + Number(next.off_at_ms),
    }
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify({
      mode: modeAt(Date.now()),
      schedule: { ...schedule, off: Number.isFinite(schedule.off) ? schedule.off : null },
      requests,
      hung: hung.size,
    }),
  )
}

const serve = (listen, target) => (req, res) => {
  const path = req.url ?? '/'
  if (path === '/__fault') return void control(req, res)
  requests++
  const at = Date.now()
  const mode = modeAt(at)
  const entry = { at, port: listen, method: req.method, path, mode }
  if (mode === 'hang') {
    // never answered; the socket is closed only by the client, or when the injector stops
    hung.add(res)
    res.on('close', () => hung.delete(res))
    log({ ...entry, status: 'hung' })
    return
  }
  if (mode === '403' || mode === '503') {
    res.writeHead(Number(mode), { ...CORS, 'content-type': 'text/plain' })
    res.end(
      mode === '403' ? 'Forbidden (fault injector)\n' : 'Service Unavailable (fault injector)\n',
    )
    log({ ...entry, status: Number(mode) })
    return
  }
  const upstream = request(
    { host: '127.0.0.1', port: target, method: req.method, path, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
      log({ ...entry, status: answer.statusCode })
    },
  )
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, CORS)
    res.end()
    log({ ...entry, status: 'failed', error: error.message })
  })
  req.pipe(upstream)
}

const servers = routes.map(([listen, target]) => {
  const server = createServer(serve(listen, target))
  server.keepAliveTimeout = 5000
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(listen, '127.0.0.1')
  return server
})

const shutdown = () => {
  for (const server of servers) server.close()
  for (const socket of sockets) socket.destroy()
  process.exit(0)
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)
