import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ConfigError } from './config.ts'
import { answerHeaders } from './response-headers.ts'
import { StoreUnavailableError } from './store-unavailable.ts'
import type { TokenAppEnv } from './types.ts'

/** Every error the worker sends has this one shape. */
export interface ErrorBody {
  error: string
}

/**
 * Throws the `{error}` response for `status`: handlers and hooks call this, `onError` renders it.
 *
 * @example
 * ```ts
 * if (!video) fail(400, 'video is required')
 * ```
 */
export function fail(status: ContentfulStatusCode, message: string): never {
  throw new HTTPException(status, { message })
}

const render = (c: Context<TokenAppEnv>, status: ContentfulStatusCode, error: string) =>
  c.json<ErrorBody, ContentfulStatusCode>({ error }, status, answerHeaders(c))

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
    return render(c, err.status as ContentfulStatusCode, err.message || 'request failed')
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
