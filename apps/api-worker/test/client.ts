import { exports } from 'cloudflare:workers'

export const CLIENT = 'APIKey test-client-key'
export const RESELLER = 'APIKey test-reseller-key'
/** A key of the second client account (1002), which owns none of client 1001's resources. */
export const OTHER_CLIENT = 'APIKey other-client-key'

/** A request to the deployed entry point (wrangler.jsonc + src/worker.ts) inside workerd. */
export function api(path: string, init: RequestInit & { auth?: string | null } = {}) {
  const { auth = CLIENT, headers, ...rest } = init
  const merged = new Headers(headers)
  if (auth) merged.set('authorization', auth)
  return exports.default.fetch(`http://api.test${path}`, { ...rest, headers: merged })
}

/** GET and parse JSON, asserting nothing: callers check status and body. */
export async function getJson<T = Record<string, unknown>>(
  path: string,
  init: RequestInit & { auth?: string | null } = {},
) {
  const res = await api(path, init)
  return { res, status: res.status, body: (await res.json()) as T }
}
