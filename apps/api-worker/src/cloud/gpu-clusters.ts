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
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const Ref = z.object({ id: z.string().min(1) })

const Interface = z.object({
  type: z.string().min(1).openapi({ example: 'external' }),
  ip_family: z.enum(['ipv4', 'ipv6', 'dual']).default('ipv4'),
  name: z.string().min(1).max(63).optional(),
  port_security_enabled: z.boolean().optional(),
  security_groups: z.array(Ref).optional(),
})

/** The cluster creation body (spec 2.3). */
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
    servers_count: z.number().int().min(1, 'Ensure this value is greater than or equal to 1.'),
    servers_settings: z.object({
      interfaces: z.array(Interface).min(1, 'At least one interface is required.'),
      credentials: z
        .object({
          username: z.string().min(1).optional(),
          password: z.string().min(8).optional(),
          ssh_key_name: z.string().min(1).optional(),
        })
        .optional(),
      file_shares: z
        .array(
          z.object({
            id: z.string().min(1),
            mount_path: z.string().regex(/^\//, 'Must be an absolute path.'),
          }),
        )
        .optional(),
      security_groups: z.array(Ref).optional(),
      user_data: z
        .string()
        .refine((text) => BASE64.test(text), 'Must be base64-encoded text.')
        .optional(),
    }),
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
  async (c) => {
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
