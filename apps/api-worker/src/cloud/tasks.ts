import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { owns } from '../auth.ts'
import { apiConfig } from '../config.ts'
import { createRng, hash32 } from '../data/rng.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { formatOffset } from '../lib/dates.ts'
import type { JsonValue } from '../lib/json.ts'
import { uuid } from '../lib/query.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, ok } from '../schemas.ts'
import type { StoredTask } from '../state/emulator-state.ts'
import { stateOf } from '../state/state-access.ts'

const TaskSchema = z
  .object({
    id: z.string(),
    state: z.enum(['NEW', 'RUNNING', 'FINISHED', 'ERROR']),
    task_type: z.string(),
    user_id: z.number().int(),
    client_id: z.number().int(),
    project_id: z.number().int(),
    region_id: z.number().int(),
    created_on: z.string(),
    updated_on: z.string().nullable(),
    finished_on: z.string().nullable(),
    error: z.string().nullable(),
    created_resources: z.record(z.string(), z.array(z.string())).nullable(),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'The request that created the task.' }),
  })
  .openapi('Task')

/**
 * Where a task is at `now`: NEW for one step, RUNNING for the next, then FINISHED (or ERROR when it
 * was created with `Prefer: task=error`). Derived from the clock, so every isolate agrees.
 *
 * @example
 * ```ts
 * taskView(task, task.created_on + 2.5 * step, step).state // 'FINISHED'
 * ```
 */
export function taskView(task: StoredTask, now: number, stepMs: number) {
  const elapsed = now - task.created_on
  const done = elapsed >= 2 * stepMs
  const state: 'NEW' | 'RUNNING' | 'FINISHED' | 'ERROR' =
    elapsed < stepMs ? 'NEW' : !done ? 'RUNNING' : task.outcome === 'error' ? 'ERROR' : 'FINISHED'
  const rng = createRng(hash32(task.id))
  const request = JSON.parse(task.request) as { servers_count: number } & Record<string, JsonValue>
  const finishedAt = task.created_on + 2 * stepMs
  return {
    id: task.id,
    state,
    task_type: task.task_type,
    user_id: task.user_id,
    client_id: task.client_id,
    project_id: task.project_id,
    region_id: task.region_id,
    created_on: formatOffset(task.created_on),
    updated_on:
      elapsed < stepMs ? null : formatOffset(done ? finishedAt : task.created_on + stepMs),
    finished_on: done ? formatOffset(finishedAt) : null,
    error:
      state === 'ERROR'
        ? 'Not enough baremetal GPU servers of the requested flavor are available in the region.'
        : null,
    created_resources:
      state !== 'FINISHED'
        ? null
        : (task.created_resources ?? {
            ai_clusters: [rng.uuid()],
            servers: Array.from({ length: request.servers_count }, () => rng.uuid()),
          }),
    data: request,
  }
}

/** `GET /cloud/v1/tasks/{task_id}`: poll an asynchronous operation until FINISHED or ERROR. */
export const tasks = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/v1/tasks/{task_id}',
    operationId: 'getTask',
    tags: ['Cloud'],
    summary: 'Get an asynchronous task',
    request: { params: z.object({ task_id: uuid() }) },
    responses: {
      200: ok('The task', TaskSchema),
      ...CloudErrors,
    },
  }),
  async function getTask(c) {
    const { task_id } = c.req.valid('param')
    // Tasks this emulator ran (state object), else a seeded one (a network's creator_task_id).
    const task = (await stateOf(c.env).getTask(task_id)) ?? c.get('data').tasks.get(task_id)
    // Another client's task does not exist for this caller; a reseller sees its clients' tasks.
    if (!task || !owns(c.get('principal'), task.client_id)) {
      throw new ApiError(404, `Task ${task_id} not found.`)
    }
    return c.json(taskView(task, Date.now(), apiConfig(c.env).taskStepMs), 200)
  },
)
