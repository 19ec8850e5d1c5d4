import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { ApiEnv } from '../env.ts'
import { integer } from '../lib/query.ts'
import { TagMap } from '../lib/tags.ts'
import { validationHook } from '../lib/validation.ts'
import { adminEnabled, parsePrefer } from '../scenario.ts'
import { CloudErrors, ok } from '../schemas.ts'
import { stateOf } from '../state/state-access.ts'

/** Subnet/cluster name rule (spec 2.2, 2.3): letter/digit, 1–61 of `[A-Za-z0-9 ._-]`, letter/digit/`.`/`_`. */
export const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{1,61}[A-Za-z0-9._]$/

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Most servers one cluster asks for. The spec gives no bound; without one, 4294967296 was accepted
 * and its task could never be shown (an array of that many server IDs).
 */
export const MAX_SERVERS_COUNT = 1000

/** Longest `user_data`, in base64 characters: the bound OpenStack Nova puts on a server's user data. */
export const MAX_USER_DATA_LENGTH = 65_535

/** `A–Z`, `a–z`, `0–9`, `+` or `/`, by character code. */
const inAlphabet = (code: number) =>
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  (code >= 48 && code <= 57) ||
  code === 43 ||
  code === 47

/**
 * Whether `text` is base64 (RFC 4648 §4: the standard alphabet, `=` padding to a multiple of four
 * characters); the empty string is (it encodes nothing). One pass over the characters: a regex
 * such as `/^(?:[A-Za-z0-9+/]{4})*…$/` backtracks once per quad and overflows the stack on
 * megabytes (a 500).
 *
 * @example
 * ```ts
 * isBase64(btoa('#cloud-config')) // true
 * isBase64('not base64!') // false
 * isBase64('abc') // false: not padded
 * ```
 */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  const end = text.length - padding
  for (let i = 0; i < end; i++) if (!inAlphabet(text.charCodeAt(i))) return false
  return true
}

// Every object of the body is strict, not only the top level: an unknown field anywhere is a
// 400 "Unknown field: …" naming it (a misspelt `security_group` must not vanish silently).

const Ref = z.object({ id: z.string().min(1) }).strict()

const Interface = z
  .object({
    type: z.string().min(1).openapi({ example: 'external' }),
    ip_family: z.enum(['ipv4', 'ipv6', 'dual']).default('ipv4'),
    name: z.string().min(1).max(63).optional(),
    port_security_enabled: z.boolean().optional(),
    security_groups: z.array(Ref).optional(),
  })
  .strict()

/** The cluster creation body (spec 2.3); unknown fields are refused at every level. */
export const ClusterBody = z
  .object({
    flavor: z.string().min(1).openapi({ example: 'bm3-ai-1xlarge-h100-80-8' }),
    image_id: z.string().regex(UUID, 'Must be a valid UUID.'),
    name: z
      .string()
      .max(63, 'Ensure this field has no more than 63 characters.')
      .regex(
        RESOURCE_NAME,
        'Must start with a letter or digit, contain letters, digits, spaces, ".", "_" or "-", and end with a letter, digit, "." or "_".',
      ),
    // The bounds first, each ending the checks when it fails: past 2^53 zod's `int()` would also
    // report its own bound (9007199254740991), a runtime's limit the API never states.
    servers_count: z
      .number()
      .min(1, { message: 'Ensure this value is greater than or equal to 1.', abort: true })
      .max(MAX_SERVERS_COUNT, {
        message: `Ensure this value is less than or equal to ${MAX_SERVERS_COUNT}.`,
        abort: true,
      })
      .int(),
    servers_settings: z
      .object({
        interfaces: z.array(Interface).min(1, 'At least one interface is required.'),
        credentials: z
          .object({
            username: z.string().min(1).optional(),
            password: z.string().min(8).optional(),
            ssh_key_name: z.string().min(1).optional(),
          })
          .strict()
          .optional(),
        file_shares: z
          .array(
            z
              .object({
                id: z.string().min(1),
                mount_path: z.string().regex(/^\//, 'Must be an absolute path.'),
              })
              .strict(),
          )
          .optional(),
        security_groups: z.array(Ref).optional(),
        user_data: z
          .string()
          .max(
            MAX_USER_DATA_LENGTH,
            `Ensure this field has no more than ${MAX_USER_DATA_LENGTH} characters.`,
          )
          .refine(isBase64, 'Must be base64-encoded text.')
          .optional(),
      })
      .strict(),
    tags: TagMap.optional(),
  })
  .strict()
  .openapi('CreateGpuClusterRequest')

/**
 * The body as the task keeps and shows it (`GET /cloud/v1/tasks/{id}` → `data`): without the
 * server password. A secret is accepted, never echoed.
 */
const withoutSecrets = (body: z.infer<typeof ClusterBody>) => {
  const { credentials, ...settings } = body.servers_settings
  if (!credentials) return body
  const { password: _password, ...rest } = credentials
  return { ...body, servers_settings: { ...settings, credentials: rest } }
}

const TaskIds = z
  .object({
    tasks: z.array(z.string()).openapi({ example: ['6f1cd7a3-6a3e-4d2f-9a0c-1b2c3d4e5f60'] }),
  })
  .openapi('TaskIdList')

/**
 * `POST /cloud/v3/gpu/baremetal/{project_id}/{region_id}/clusters` (spec 4.2): validates the body
 * and starts an asynchronous task; poll it with `GET /cloud/v1/tasks/{task_id}`.
 * `Prefer: task=error` makes the task end in ERROR.
 */
export const gpuClusters = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'post',
    path: '/v3/gpu/baremetal/{project_id}/{region_id}/clusters',
    operationId: 'createGpuCluster',
    tags: ['Cloud'],
    summary: 'Create a bare metal GPU cluster (asynchronous)',
    request: {
      params: z.object({ project_id: integer({ min: 1 }), region_id: integer({ min: 1 }) }),
      body: { required: true, content: { 'application/json': { schema: ClusterBody } } },
    },
    responses: {
      200: ok('Task started', TaskIds),
      ...CloudErrors,
    },
  }),
  async function createGpuCluster(c) {
    const { project_id, region_id } = c.req.valid('param')
    const body = c.req.valid('json')
    const principal = c.get('principal')
    const outcome = adminEnabled(c.env)
      ? (parsePrefer(c.req.header('prefer')).task ?? 'finished')
      : 'finished'
    const id = crypto.randomUUID()
    await stateOf(c.env).createTask({
      id,
      task_type: 'create_ai_cluster_gpu',
      project_id,
      region_id,
      user_id: principal.clientId * 10 + 1,
      client_id: principal.clientId,
      created_on: Date.now(),
      outcome,
      request: JSON.stringify(withoutSecrets(body)),
    })
    return c.json({ tasks: [id] }, 200)
  },
)
