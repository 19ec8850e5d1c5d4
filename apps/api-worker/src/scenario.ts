import type { Context, Next } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { apiConfig } from './config.ts'
import type { ApiEnv } from './env.ts'
import { ApiError } from './errors.ts'
import { stateOf } from './state/state-access.ts'

/** Whether the emulator controls (`/__admin`, `Prefer`) are on. */
export function adminEnabled(env: ApiEnv['Bindings']): boolean {
  return apiConfig(env).admin
}

const MAX_DELAY_MS = 30_000

/** What a `Prefer` header asks for. */
export interface Preference {
  code?: number
  delay?: number
  /** How an asynchronous cloud task created by this request ends (`task=error`). */
  task?: 'finished' | 'error'
}

/**
 * Parses `Prefer: code=503, delay=250, task=error` (also `;` or spaces between). Unknown preferences are
 * ignored, as RFC 7240 asks; a malformed `code` or `delay` is an error.
 *
 * @example
 * ```ts
 * parsePrefer('code=429; delay=100') // { code: 429, delay: 100 }
 * ```
 */
export function parsePrefer(header: string | undefined): Preference {
  const preference: Preference = {}
  for (const token of (header ?? '').split(/[,;\s]+/).filter(Boolean)) {
    const [name, value = ''] = token.split('=')
    if (name === 'code') {
      // A Response can only carry 200–599 (1xx are interim answers, never a final one).
      if (!/^[2-5]\d\d$/.test(value))
        throw ApiError.validation({ Prefer: ['code must be an HTTP status from 200 to 599.'] })
      preference.code = Number(value)
    } else if (name === 'task') {
      if (value !== 'error' && value !== 'finished')
        throw ApiError.validation({ Prefer: ['task must be "error" or "finished".'] })
      preference.task = value
    } else if (name === 'delay') {
      if (!/^\d+$/.test(value) || Number(value) > MAX_DELAY_MS) {
        throw ApiError.validation({
          Prefer: [`delay must be whole milliseconds from 0 to ${MAX_DELAY_MS}.`],
        })
      }
      preference.delay = Number(value)
    }
  }
  return preference
}

/**
 * Per-request scenario selection, as users of Prism and WireMock expect: `Prefer: delay=<ms>`
 * waits first, `Prefer: code=<status>` answers that status with the endpoint family's error body
 * (or an empty 2xx/3xx) instead of running the handler. Off unless `EMULATOR_ADMIN` is `true`.
 *
 * @example
 * ```sh
 * curl -H 'Authorization: APIKey dev-client-key' -H 'Prefer: code=503' http://127.0.0.1:8788/waap/v1/domains
 * ```
 */
export async function preferScenario(c: Context<ApiEnv>, next: Next): Promise<Response | void> {
  if (!adminEnabled(c.env)) return next()
  const { code, delay } = parsePrefer(c.req.header('prefer'))
  if (delay) await new Promise((resolve) => setTimeout(resolve, delay))
  if (code === undefined) return next()
  c.header('Preference-Applied', `code=${code}${delay ? `, delay=${delay}` : ''}`)
  if (code >= 400) {
    const headers: Record<string, string> =
      code === 429 || code === 503 ? { 'Retry-After': '1' } : {}
    throw new ApiError(
      code as ContentfulStatusCode,
      `Simulated ${code} (Prefer: code=${code}).`,
      undefined,
      headers,
    )
  }
  return c.body(null, code as 200)
}

/**
 * Appends every request to the journal (`GET /__admin/requests`) after it is answered. Off unless
 * `EMULATOR_ADMIN` is `true`; admin calls themselves are not journaled.
 *
 * @example
 * ```ts
 * app.use(journal)
 * ```
 */
export async function journal(c: Context<ApiEnv>, next: Next): Promise<Response | void> {
  const started = Date.now()
  await next()
  if (!adminEnabled(c.env) || c.req.path.startsWith('/__admin')) return
  const url = new URL(c.req.url)
  const write = stateOf(c.env).record({
    id: c.get('requestId'),
    at: started,
    method: c.req.method,
    path: url.pathname,
    query: url.search,
    status: c.res.status,
    duration_ms: Date.now() - started,
    principal: c.get('principal')?.label ?? null,
  })
  try {
    c.executionCtx.waitUntil(write)
  } catch {
    await write
  }
}
