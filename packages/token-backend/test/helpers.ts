import { env } from 'cloudflare:test'
import type { TokenBackendEnv } from '../src/config.ts'

/** Fixed clock for tests: 2027-01-15T08:00:00Z. */
export const NOW_MS = 1_800_000_000_000
export const NOW_S = NOW_MS / 1000

/** The test bindings from vitest.config.ts, plus overrides (`undefined` removes a variable). */
export function testEnv(overrides: Record<string, string | undefined> = {}): TokenBackendEnv {
  const merged: Record<string, string | undefined> = {
    ...(env as unknown as Record<string, string>),
    ...overrides,
  }
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key]
  return merged as TokenBackendEnv
}

/** MD5 → base64url with workerd's own digest: independent of spark-md5, which the code uses. */
export async function independentToken(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('MD5', new TextEncoder().encode(text))
  return btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}
