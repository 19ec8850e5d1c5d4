import type { Server } from 'node:http'
import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveTokenApp } from './node.ts'

// Requests the app never sees (Node's parser or @hono/node-server refuse them), sent as raw bytes
// over a real socket: each must still get the backend's {error} JSON, not an empty body.
/** A backend with sessions on `hostname`, any port: the server and the port it took. */
function startBackend(hostname = '127.0.0.1'): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const started = serveTokenApp(
      {
        port: 0,
        hostname,
        signals: false,
        audit: () => undefined,
        log: () => undefined,
        config: {
          signing: {
            clientId: '777',
            secretKey: 'unparsable-secret',
            cdnDomain: 'cdn.test',
            cdnDomainIp: 'cdn-ip.test',
          },
          auth: { mode: 'none' },
          session: { secret: 'unparsable-session-secret-of-32-chars' },
        },
      },
      (info) => resolve({ server: started, port: info.port }),
    ) as Server
    started.once('error', reject)
  })
}

const stopBackend = (stopped: Server) =>
  new Promise((resolve) => {
    stopped.closeAllConnections()
    stopped.close(resolve)
  })

let server: Server
let port: number

beforeAll(async () => {
  ;({ server, port } = await startBackend())
})

afterAll(() => stopBackend(server))

/** Sends `raw` and reads the whole answer (the server closes after these answers). */
function rawRequest(
  raw: string,
  // half-closed once sent, as `nc` does; Node then drops an answer still awaited (a session's)
  halfClose = true,
  to: { port: number; host: string } = { port, host: '127.0.0.1' },
): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(to.port, to.host)
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      text += chunk
    })
    socket.on('error', reject)
    socket.on('end', () => {
      const split = text.indexOf('\r\n\r\n')
      resolve({
        status: Number(text.slice(9, 12)),
        headers: text.slice(0, split).toLowerCase(),
        body: text.slice(split + 4),
      })
    })
    if (halfClose) socket.end(raw)
    else socket.write(raw)
  })
}

describe('requests the app cannot see: answered with {error} JSON', () => {
  it('a backslash in the path: 400 naming it', async () => {
    const answer = await rawRequest(
      'GET /token\\..\\x?video=demo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    )
    expect(answer.status).toBe(400)
    expect(answer.headers).toContain('content-type: application/json')
    expect(answer.headers).toContain('cache-control: no-store')
    expect(JSON.parse(answer.body)).toEqual({ error: 'bad request: backslash in request path' })
  })

  it('a Host that is no host name: 400, the header not echoed', async () => {
    const answer = await rawRequest(
      'GET /token?video=demo HTTP/1.1\r\nHost: bad host<script>\r\nConnection: close\r\n\r\n',
    )
    expect(answer.status).toBe(400)
    const body = JSON.parse(answer.body) as { error: string }
    expect(body.error).toMatch(/^bad request/)
    expect(body.error).not.toContain('script')
  })

  it('a request line and headers over Node’s limit: 431 with a body', async () => {
    const answer = await rawRequest(
      `GET /token?video=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    )
    expect(answer.status).toBe(431)
    expect(answer.headers).toContain('connection: close')
    expect(JSON.parse(answer.body)).toEqual({ error: 'request line and headers too large' })
  })

  it('an HTTP/1.1 request without Host: 400 naming it; HTTP/1.0 needs none', async () => {
    const answer = await rawRequest('GET /token?video=demo HTTP/1.1\r\nConnection: close\r\n\r\n')
    expect(answer.status).toBe(400)
    expect(answer.headers).toContain('content-type: application/json')
    expect(JSON.parse(answer.body)).toEqual({ error: 'bad request: missing host header' })
    const old = await rawRequest('GET /token?video=demo HTTP/1.0\r\n\r\n')
    expect(old.status).toBe(200)
  })

  it('a Host no URL can be built from: 400 naming it (empty on HTTP/1.1, not a host name)', async () => {
    for (const [host, error] of [
      ['', 'bad request: empty host header'],
      ['x"y', 'bad request: invalid host header'],
      ['a{b}c', 'bad request: invalid host header'],
    ]) {
      const answer = await rawRequest(
        `GET /session?video=demo HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      )
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body)).toEqual({ error })
    }
    for (const host of ['localhost', `127.0.0.1:${port}`, 'tokens.example.com', '[::1]:8787'])
      expect(
        (
          await rawRequest(
            `GET /token?video=demo HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
          )
        ).status,
      ).toBe(200)
  })

  it('an absolute request target names the host, checked as a Host is (escapes decoded)', async () => {
    for (const target of [
      'http://x%22y/session?video=demo',
      'http://a%7Bb%7Dc/session?video=demo',
    ]) {
      const answer = await rawRequest(
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
        false,
      )
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body)).toEqual({ error: 'bad request: invalid host' })
    }
    // HTTP/1.0 without Host: the target's host, not the socket's (RFC 9112 §3.2.2)
    const answer = await rawRequest(
      'GET http://tokens.example/session?video=demo HTTP/1.0\r\n\r\n',
      false,
    )
    expect(answer.status).toBe(200)
    const { session_url: url } = JSON.parse(answer.body) as { session_url: string }
    expect(url.startsWith('http://tokens.example/s/demo/')).toBe(true)
  })

  it('an HTTP/1.0 request without Host: the session URL names the address and port it reached', async () => {
    for (const raw of [
      'GET /session?video=demo HTTP/1.0\r\n\r\n',
      'GET /session?video=demo HTTP/1.0\r\nHost: \r\n\r\n',
    ]) {
      // an HTTP/1.0 answer closes the connection: the socket stays open until then
      const answer = await rawRequest(raw, false)
      expect(answer.status).toBe(200)
      const { session_url: url } = JSON.parse(answer.body) as { session_url: string }
      expect(url.startsWith(`http://127.0.0.1:${port}/s/demo/`)).toBe(true)
    }
  })

  it('bytes that are not HTTP: 400 with a body', async () => {
    const answer = await rawRequest('HELLO THERE\r\n\r\n')
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: 'malformed HTTP request' })
  })

  it('the server still answers a well-formed request afterwards', async () => {
    const answer = await rawRequest(
      'GET /token?video=demo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    )
    expect(answer.status).toBe(200)
  })
})

const ipv6Loopback = Object.values(networkInterfaces()).some((addresses) =>
  addresses?.some((address) => address.internal && address.address === '::1'),
)

describe.skipIf(!ipv6Loopback)('listening on an IPv6 address', () => {
  it('an HTTP/1.0 request without Host: the session URL names [::1] and the port', async () => {
    const v6 = await startBackend('::1')
    try {
      const answer = await rawRequest('GET /session?video=demo HTTP/1.0\r\n\r\n', false, {
        port: v6.port,
        host: '::1',
      })
      expect(answer.status).toBe(200)
      const { session_url: url } = JSON.parse(answer.body) as { session_url: string }
      expect(url.startsWith(`http://[::1]:${v6.port}/s/demo/`)).toBe(true)
    } finally {
      await stopBackend(v6.server)
    }
  })
})
