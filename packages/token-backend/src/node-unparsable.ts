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

/**
 * The 400 of an HTTP/1.1 request without `Host` (RFC 9112 §3.2), which Node would answer with an
 * empty body: `undefined` for any other request. `env` is `@hono/node-server`'s (`incoming`).
 *
 * @example
 * ```ts
 * getRequestListener((request, env) => withoutHost(env) ?? app.fetch(request, env))
 * ```
 */
export function withoutHost(env: unknown): Response | undefined {
  const incoming = (env as { incoming?: { httpVersion?: string; headers?: { host?: string } } })
    ?.incoming
  if (incoming?.httpVersion !== '1.1' || incoming.headers?.host !== undefined) return undefined
  return Response.json(
    { error: 'bad request: missing host header' },
    { status: 400, headers: JSON_ANSWER_HEADERS },
  )
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
