/**
 * What the Node server answers to a request it cannot turn into a `Request` (the app never sees
 * it): the same `{error}` JSON as every other answer of the backend, not the empty bodies of
 * Node's and `@hono/node-server`'s defaults, so that a client (or a QA log) learns what was wrong.
 */
import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { JSON_ANSWER_HEADERS } from './response-headers.ts'

/**
 * `@hono/node-server`'s `errorHandler` for a request it could not build (a backslash in the
 * path, a `Host` that is no host name, an absolute URL of another scheme): a 400 naming the
 * reason. Its messages are fixed texts of the adapter, never the request's bytes.
 *
 * @example
 * ```ts
 * createAdaptorServer({ fetch: app.fetch, errorHandler: unparsableRequest })
 * ```
 */
export function unparsableRequest(error: unknown): Response {
  const reason = error instanceof Error && error.name === 'RequestError' ? error.message : ''
  return Response.json(
    { error: reason ? `bad request: ${reason.toLowerCase()}` : 'bad request' },
    { status: 400, headers: JSON_ANSWER_HEADERS },
  )
}

/** What the Host checks read of `@hono/node-server`'s `env.incoming`. */
interface Incoming {
  httpVersion?: string
  /** The request target: a path, or an absolute URL (which then names the host, not `Host`). */
  url?: string
  headers?: { host?: string }
  socket?: { localAddress?: string; localPort?: number }
}

const incomingOf = (env: unknown): Incoming | undefined =>
  (env as { incoming?: Incoming } | undefined)?.incoming

/** An absolute request target (`GET http://host/… HTTP/1.1`): it names the host, not `Host`. */
const absoluteTarget = (incoming: Incoming | undefined): boolean =>
  incoming?.url !== undefined && !incoming.url.startsWith('/')

/**
 * A host a URL is built from: a name or IPv4 address (letters, digits, `.`, `-`, `_`, `~`) or a
 * bracketed IPv6 address, and an optional port. `@hono/node-server` lets through what the URL
 * parser keeps (`x"y`, `a{b}`), which would then name the server in session URLs.
 */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

const badRequest = (error: string) =>
  Response.json({ error }, { status: 400, headers: JSON_ANSWER_HEADERS })

/**
 * The 400 of a request whose `Host` no URL can be built from, which Node would answer with an
 * empty body or `@hono/node-server` let through: an HTTP/1.1 request without it or with an
 * empty one (RFC 9112 §3.2), or a `Host` that is no host name. `undefined` for any other
 * request (an HTTP/1.0 one may come without: {@link withLocalHost}). `env` is
 * `@hono/node-server`'s (`incoming`).
 *
 * @example
 * ```ts
 * getRequestListener((request, env) => hostRefusal(request, env) ?? app.fetch(request, env))
 * ```
 */
export function hostRefusal(request: Request, env: unknown): Response | undefined {
  const incoming = incomingOf(env)
  // an absolute target (`GET http://host/… HTTP/1.1`) names the URL's host, escapes decoded
  if (absoluteTarget(incoming))
    return HOST.test(new URL(request.url).host)
      ? undefined
      : badRequest('bad request: invalid host')
  const host = incoming?.headers?.host
  if (host === undefined || host === '')
    return incoming?.httpVersion === '1.1'
      ? badRequest(`bad request: ${host === undefined ? 'missing' : 'empty'} host header`)
      : undefined
  return HOST.test(host) ? undefined : badRequest('bad request: invalid host header')
}

/**
 * `request` as the app should see it: an HTTP/1.0 request without `Host` (or with an empty one)
 * is given the address and port it reached, where `@hono/node-server` would put its listening
 * name without the port, and a session URL built from it would point at port 80.
 *
 * @example
 * ```ts
 * getRequestListener((request, env) => app.fetch(withLocalHost(request, env), env))
 * ```
 */
export function withLocalHost(request: Request, env: unknown): Request {
  const incoming = incomingOf(env)
  const host = incoming?.headers?.host
  const { localAddress, localPort } = incoming?.socket ?? {}
  if ((host !== undefined && host !== '') || !localAddress || !localPort) return request
  // an absolute target names its host (RFC 9112 §3.2.2)
  if (absoluteTarget(incoming)) return request
  // an IPv4 client of a dual-stack socket: its IPv4 form; IPv6 bracketed in a URL
  const address = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress
  const named = address.includes(':') ? `[${address}]` : address
  const url = new URL(request.url)
  url.host = `${named}:${localPort}`
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    ...(request.body !== null && { duplex: 'half' }),
  } as RequestInit)
}

/** Node's parser errors, by code, as Node's own `clientError` default answers them. */
const PARSER_ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'request line and headers too large',
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request not received in time'],
}

/**
 * Answers a request Node's HTTP parser refused (`clientError`): the status Node's default would
 * send (431, 413, 408, else 400), with an `{error}` body, then closes the connection. A socket
 * already answering or gone is only destroyed.
 *
 * @example
 * ```ts
 * answerClientErrors(server)
 * ```
 */
export function answerClientErrors(server: Server): void {
  server.on(
    'clientError',
    function answerClientError(error: NodeJS.ErrnoException, socket: Duplex) {
      const answering = (socket as { _httpMessage?: unknown })._httpMessage
      if (error.code === 'ECONNRESET' || !socket.writable || answering) {
        socket.destroy()
        return
      }
      const [status, text, message] = PARSER_ANSWERS[error.code ?? ''] ?? [
        400,
        'Bad Request',
        'malformed HTTP request',
      ]
      const body = JSON.stringify({ error: message })
      const head = Object.entries(JSON_ANSWER_HEADERS).map(
        ([name, value]) => `${name}: ${value}\r\n`,
      )
      socket.end(
        `HTTP/1.1 ${status} ${text}\r\n${head.join('')}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      )
    },
  )
}
