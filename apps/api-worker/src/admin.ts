import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { findKey } from './auth.ts'
import { apiConfig } from './config.ts'
import { datasetFor, type Generation } from './data/dataset.ts'
import type { ApiEnv } from './env.ts'
import { ApiError } from './errors.ts'
import { integer } from './lib/query.ts'
import { validationHook } from './lib/validation.ts'
import { adminEnabled } from './scenario.ts'
import { AdminErrors, ok } from './schemas.ts'
import { defaultSeed, stateOf } from './state/state-access.ts'

/** What `/__admin/state` reports of the data's generation (the dataset's `Generation` described). */
const GenerationReport = z.object({
  seed: z.number().int(),
  generated_at: z.string().openapi({ description: 'The instant the data is relative to.' }),
  counts: z.record(z.string(), z.number().int()),
})

const JournalEntry = z.object({
  id: z.string(),
  at: z.string(),
  method: z.string(),
  path: z.string(),
  query: z.string(),
  status: z.number().int(),
  duration_ms: z.number().int(),
  principal: z.string().nullable().openapi({ description: 'Credential label, never the key.' }),
})

const describe = (generation: Generation): z.infer<typeof GenerationReport> => {
  const data = datasetFor(generation)
  const counts = Object.fromEntries(
    Object.entries(data)
      .filter(([, value]) => Array.isArray(value))
      .map(([name, value]) => [name, (value as unknown[]).length]),
  )
  return { seed: generation.seed, generated_at: new Date(generation.epoch).toISOString(), counts }
}

/**
 * Whether an `Authorization` header is `Bearer <token>` (scheme case-insensitive, one space),
 * compared in constant time ({@link findKey}: SHA-256 digests, so neither the length nor the
 * first differing character shows in timing).
 *
 * @example
 * ```ts
 * await presentsToken('Bearer s3cret-admin-token-0001', 's3cret-admin-token-0001') // true
 * ```
 */
export async function presentsToken(header: string | undefined, token: string): Promise<boolean> {
  const [scheme = '', credential = '', ...rest] = (header ?? '').split(' ')
  if (scheme.toLowerCase() !== 'bearer' || rest.length) return false
  return (await findKey(credential, [token])) === 0
}

/**
 * The emulator controls under `/__admin` (WireMock style): reseed, state, request journal. They
 * wipe state and show every caller's requests, so they answer 404 unless `EMULATOR_ADMIN` is
 * `true` (`.dev.vars` for `npm start`; never a shipped default), and, when `EMULATOR_ADMIN_TOKEN`
 * is set (do set it wherever the emulator is reachable by others), 401 without
 * `Authorization: Bearer <EMULATOR_ADMIN_TOKEN>`. The API's own keys do not open them.
 *
 * @example
 * ```sh
 * curl -X POST http://127.0.0.1:8788/__admin/reset -H 'content-type: application/json' -d '{"seed":7}'
 * curl -H "Authorization: Bearer $EMULATOR_ADMIN_TOKEN" https://emulator.example/__admin/requests
 * ```
 */
export const admin = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })

admin.use(async function adminOnlyWhenEnabled(c, next) {
  if (!adminEnabled(c.env)) throw new ApiError(404, `No route for ${c.req.method} ${c.req.path}`)
  const { adminToken } = apiConfig(c.env)
  if (adminToken !== undefined && !(await presentsToken(c.req.header('authorization'), adminToken)))
    throw new ApiError(
      401,
      'The emulator controls need Authorization: Bearer <EMULATOR_ADMIN_TOKEN>.',
      undefined,
      // its own challenge: an API key or login JWT does not open /__admin
      { 'WWW-Authenticate': 'Bearer realm="emulator-admin"' },
    )
  await next()
})

admin
  .openapi(
    createRoute({
      method: 'get',
      path: '/state',
      operationId: 'getEmulatorState',
      tags: ['Emulator'],
      summary: 'Current seed, the instant the data is relative to, and record counts',
      responses: {
        200: ok('State', GenerationReport),
        401: AdminErrors[401],
        404: AdminErrors[404],
      },
    }),
    async (c) => c.json(describe(await stateOf(c.env).generation(defaultSeed(c.env))), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/reset',
      operationId: 'resetEmulator',
      tags: ['Emulator'],
      summary: 'Reseed: regenerate all data (relative to now), drop tasks, journal and rate limits',
      request: {
        body: {
          required: false,
          content: {
            'application/json': {
              schema: z
                .object({
                  // bounds first, ending the checks: past 2^53 `int()` states a runtime's bound
                  seed: z
                    .number()
                    .min(0, { abort: true })
                    .max(2 ** 31 - 1, { abort: true })
                    .int()
                    .optional(),
                })
                .strict(),
            },
          },
        },
      },
      responses: {
        200: ok('The new state', GenerationReport),
        ...AdminErrors,
      },
    }),
    async (c) => {
      // The body is optional: a bare POST reseeds with the configured seed.
      const { seed = defaultSeed(c.env) } = c.req.valid('json') ?? {}
      return c.json(describe(await stateOf(c.env).reset(seed)), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/requests',
      operationId: 'listJournalRequests',
      tags: ['Emulator'],
      summary: 'The request journal, newest first (at most 1000 kept)',
      request: { query: z.object({ limit: integer({ min: 1, max: 1000 }).optional() }) },
      responses: {
        200: ok('Journal', z.object({ count: z.number().int(), results: z.array(JournalEntry) })),
        ...AdminErrors,
      },
    }),
    async (c) => {
      const { limit = 100 } = c.req.valid('query')
      const { total, entries } = await stateOf(c.env).journal(limit)
      return c.json(
        {
          count: total,
          results: entries.map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() })),
        },
        200,
      )
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/requests',
      operationId: 'clearJournalRequests',
      tags: ['Emulator'],
      summary: 'Clear the request journal',
      responses: {
        204: { description: 'Cleared' },
        401: AdminErrors[401],
        404: AdminErrors[404],
      },
    }),
    async (c) => {
      await stateOf(c.env).clearJournal()
      return c.body(null, 204)
    },
  )
