import { viewerNetwork } from '@proj/signing'
import { HTTPException } from 'hono/http-exception'
import { ConfigError } from './config.ts'
import { StoreUnavailableError } from './store-unavailable.ts'

/**
 * What the Workers Rate Limiting binding offers (`env.TOKEN_RATE_LIMITER.limit({ key })`); the
 * in-memory limiter offers the same, so the app does not care which one it has.
 */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>
}

/** How many token requests one viewer may make per period. */
export interface RateLimitConfig {
  requests: number
  /** Seconds: 10 or 60, the periods the Workers binding supports. */
  periodSeconds: 10 | 60
}

/** Whether one more token request of a viewer is allowed now, else after how many seconds. */
export interface ViewerLimit {
  check(key: string): Promise<{ allowed: true } | { allowed: false; retryAfter: number }>
}

// what a TOKEN_RATE_LIMITER that is no Rate Limiting binding is: a 500 naming it
const notABinding = () =>
  new ConfigError(
    'TOKEN_RATE_LIMITER',
    'must be a Rate Limiting binding',
    'declare it under "ratelimits" in wrangler.jsonc, not "vars"; or remove it to count per isolate',
  )

/**
 * The Workers Rate Limiting binding as a {@link ViewerLimit}. The binding does not say when its
 * window ends, so `Retry-After` is the whole period: never too soon. `TOKEN_RATE_LIMITER` bound
 * to anything else (a variable of that name, another kind of binding) is a `ConfigError` naming
 * it (a 500 that says what to fix, as any bad variable is), and so is one whose `limit` answers
 * no `success`. A binding that throws could not count: a {@link StoreUnavailableError} (a 503,
 * never "allowed").
 *
 * @example
 * ```ts
 * const limit = bindingLimit(env.TOKEN_RATE_LIMITER, 60)
 * ```
 */
export function bindingLimit(binding: RateLimiter, periodSeconds: number): ViewerLimit {
  // the type says RateLimiter; wrangler.jsonc may still bind "vars": {"TOKEN_RATE_LIMITER": …}
  if (typeof (binding as Partial<RateLimiter> | null)?.limit !== 'function') throw notABinding()
  return {
    async check(key) {
      let answer: unknown
      try {
        answer = await binding.limit({ key })
      } catch (cause) {
        throw new StoreUnavailableError('the TOKEN_RATE_LIMITER binding did not answer', { cause })
      }
      const success = (answer as { success?: unknown } | null | undefined)?.success
      if (typeof success !== 'boolean') throw notABinding()
      return success ? { allowed: true } : { allowed: false, retryAfter: periodSeconds }
    },
  }
}

/**
 * A fixed-window counter per key, for Node and for Workers without the binding (there it counts
 * per isolate only). Ended windows are dropped at the next period, so memory is bounded by the
 * viewers of one period; `Retry-After` is the rest of the viewer's window.
 *
 * @example
 * ```ts
 * const limit = memoryLimit({ requests: 20, periodSeconds: 60 })
 * await limit.check('net:203.0.113.7') // { allowed: true }
 * ```
 */
export function memoryLimit(
  { requests, periodSeconds }: RateLimitConfig,
  now: () => number = Date.now,
): ViewerLimit & { readonly size: number } {
  const periodMs = periodSeconds * 1000
  const windows = new Map<string, { start: number; count: number }>()
  let swept = now()
  return {
    async check(key) {
      const at = now()
      if (at - swept >= periodMs) {
        for (const [other, window] of windows)
          if (at - window.start >= periodMs) windows.delete(other)
        swept = at
      }
      let window = windows.get(key)
      if (!window || at - window.start >= periodMs) {
        window = { start: at, count: 0 }
        windows.set(key, window)
      }
      if (++window.count <= requests) return { allowed: true }
      return {
        allowed: false,
        retryAfter: Math.max(1, Math.ceil((window.start + periodMs - at) / 1000)),
      }
    },
    get size() {
      return windows.size
    },
  }
}

/**
 * Who a request counts against: the JWT subject when the viewer is authenticated, else the
 * client's network (the address; an IPv6 address's /64).
 *
 * @example
 * ```ts
 * viewerKey('user-42', '203.0.113.7')          // 'sub:user-42'
 * viewerKey(undefined, '2001:db8:1:2::99')     // 'net:2001:db8:1:2::/64'
 * ```
 */
export function viewerKey(subject: string | undefined, clientIp: string): string {
  if (subject !== undefined && subject !== '') return `sub:${subject}`
  return `net:${viewerNetwork(clientIp) ?? clientIp}`
}

/**
 * Counts one request of `key` and throws the 429 `{error}` with `Retry-After` when it is over.
 *
 * @example
 * ```ts
 * await enforceLimit(limit, viewerKey(subject, clientIp))
 * ```
 */
export async function enforceLimit(limit: ViewerLimit, key: string): Promise<void> {
  const verdict = await limit.check(key)
  if (verdict.allowed) return
  throw new HTTPException(429, {
    message: `too many token requests: retry after ${verdict.retryAfter} s`,
    res: new Response(null, {
      status: 429,
      headers: { 'Retry-After': String(verdict.retryAfter) },
    }),
  })
}
