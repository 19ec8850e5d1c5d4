import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ConfigError } from './config.ts'
import { answerHeaders } from './response-headers.ts'
import { StoreUnavailableError } from './store-unavailable.ts'
import type { TokenAppEnv } from './types.ts'

/**
 * Every error the worker sends has this one shape: `error` for people, and for a refusal a
 * program acts on (a stream limit), a `code` and what it needs beside it.
 */
export interface ErrorBody {
  error: string
  /** A refusal's machine-readable kind (`stream_limit`, `stream_ended`); absent on the others. */
  code?: string
}

/** What a refusal carries beside its message, by the exception that carries it. */
const details = new WeakMap<HTTPException, { code: string } & Record<string, unknown>>()

/**
 * Throws the `{error}` response for `status`: handlers and hooks call this, `onError` renders it.
 * `extra` (a `code` and its fields) goes into the body after `error`.
 *
 * @example
 * ```ts
 * if (!video) fail(400, 'video is required')
 * fail(409, 'stream limit reached: 2 of 2 streams are playing', { code: 'stream_limit', limit: 2 })
 * ```
 */
export function fail(
  status: ContentfulStatusCode,
  message: string,
  extra?: { code: string } & Record<string, unknown>,
): never {
  const error = new HTTPException(status, { message })
  if (extra !== undefined) details.set(error, extra)
  throw error
}

const render = (
  c: Context<TokenAppEnv>,
  status: ContentfulStatusCode,
  error: string,
  extra?: Record<string, unknown>,
) => c.json<ErrorBody, ContentfulStatusCode>({ error, ...extra }, status, answerHeaders(c))

/**
 * The app's single `onError`: HTTP errors keep their status and message (and a JWT challenge
 * its `WWW-Authenticate`, a 503 its `Retry-After`); configuration errors are 500s naming the variable;
 * a {@link StoreUnavailableError} (the session store or the rate limit did not answer) is a 503 with
 * its `Retry-After`, failing closed, its detail not sent (it names hosts and ports) nor logged per
 * request (`connectRedis` reports an outage once); anything else is a 500 whose detail goes to the
 * log only.
 *
 * @example
 * ```ts
 * app.onError(handleError)
 * ```
 */
export function handleError(err: Error, c: Context<TokenAppEnv>): Response {
  if (err instanceof HTTPException) {
    for (const name of ['WWW-Authenticate', 'Retry-After']) {
      const value = err.res?.headers.get(name)
      if (value) c.header(name, value)
    }
    return render(
      c,
      err.status as ContentfulStatusCode,
      err.message || 'request failed',
      details.get(err),
    )
  }
  if (err instanceof StoreUnavailableError) {
    c.header('Retry-After', String(err.retryAfter))
    return render(c, 503, `shared state unavailable: retry after ${err.retryAfter} s`)
  }
  if (err instanceof ConfigError) {
    console.error(err.message)
    return render(c, 500, err.message)
  }
  console.error('token-backend: unexpected error', err)
  return render(c, 500, 'internal error')
}

/**
 * The app's `notFound`: a JSON 404 that names what was asked for.
 *
 * @example
 * ```ts
 * app.notFound(handleNotFound)
 * ```
 */
export function handleNotFound(c: Context<TokenAppEnv>): Response {
  return render(c, 404, `no route for ${c.req.method} ${c.req.path}`)
}
