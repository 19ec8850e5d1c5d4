import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { owns } from '../auth.ts'
import { AI_TASK_NAMES, AI_TASK_STATUSES, type AiTask } from '../data/ai-tasks.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { formatIso, parseDateTime } from '../lib/dates.ts'
import { containsText, integer, paginate, sortBy, uuid } from '../lib/query.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, ok } from '../schemas.ts'

const ORDERINGS = ['task_id', 'status', 'task_name', 'started_at'] as const

const Task = z
  .object({
    task_id: z.string(),
    task_name: z.enum(AI_TASK_NAMES),
    status: z.enum(AI_TASK_STATUSES),
    progress: z.number().int(),
    created_at: z.string(),
    processing_time: z.object({
      started_at: z.string().nullable(),
      completed_at: z.string().nullable(),
      total_time_sec: z.number().nullable(),
    }),
    task_data: z.record(z.string(), z.string()),
  })
  .openapi('AiTask')

const out = (task: AiTask) => ({
  task_id: task.task_id,
  task_name: task.task_name,
  status: task.status,
  progress: task.progress,
  created_at: formatIso(task.created_at),
  processing_time: {
    started_at: task.started_at === null ? null : formatIso(task.started_at),
    completed_at: task.completed_at === null ? null : formatIso(task.completed_at),
    total_time_sec:
      task.completed_at === null || task.started_at === null
        ? null
        : (task.completed_at - task.started_at) / 1000,
  },
  task_data: task.task_data,
})

/** Every string and number inside a JSON value: what a search matches (not keys, not punctuation). */
const valuesOf = (value: unknown): string[] => {
  if (value === null || value === undefined) return []
  if (typeof value === 'object') return Object.values(value).flatMap(valuesOf)
  return [String(value)]
}

const searchable = (task: AiTask) => [
  task.task_id,
  task.task_name,
  task.status,
  ...valuesOf(task.task_data),
]

/**
 * The page of 4.8: `next` and `previous` are typed string ("the query-string part pointing to the
 * next page"), not "uri or null" as the addendum links of 4.7, so a side with no page is `''`.
 */
const TaskPage = z
  .object({
    count: z.number().int().openapi({ default: 0 }),
    next: z.string().openapi({ description: 'Query string of the next page; empty on the last' }),
    previous: z
      .string()
      .openapi({ description: 'Query string of the previous page; empty on the first' }),
    results: z.array(Task),
  })
  .openapi('AiTaskPage')

/** The query string of another page: the request's own parameters with `page` replaced. */
const pageLink = (url: string, page: number) => {
  const params = new URL(url).searchParams
  params.set('page', String(page))
  return `?${params.toString()}`
}

/** Streaming: `GET /streaming/ai/tasks` (4.8), page-based. */
export const streaming = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/ai/tasks',
    operationId: 'listAiTasks',
    tags: ['Streaming'],
    summary: 'List AI tasks (pages from 1; default order: started_at descending)',
    request: {
      query: z.object({
        task_id: uuid().optional(),
        task_name: z.enum(AI_TASK_NAMES).optional(),
        status: z.enum(AI_TASK_STATUSES).optional(),
        date_created: z
          .string()
          .refine(
            (text) => parseDateTime(text, { dateOnly: true }) !== undefined,
            'Enter a valid ISO 8601 date or date-time.',
          )
          .optional()
          .openapi({ description: 'Tasks created on this UTC day (a date-time selects its day).' }),
        ordering: z.enum(ORDERINGS).optional(),
        search: z.string().max(255).optional(),
        page: integer({ min: 1 }).optional(),
        limit: integer({ min: 1, max: 1000 }).optional(),
      }),
    },
    responses: {
      200: ok('A page of tasks', TaskPage),
      ...CloudErrors,
    },
  }),
  function listAiTasks(c) {
    const q = c.req.valid('query')
    // a task is its creating account's (2.8: made by an API method that account called)
    const principal = c.get('principal')
    let tasks = c.get('data').aiTasks.filter((t) => owns(principal, t.client_id))
    if (q.task_id) tasks = tasks.filter((t) => t.task_id === q.task_id?.toLowerCase())
    if (q.task_name) tasks = tasks.filter((t) => t.task_name === q.task_name)
    if (q.status) tasks = tasks.filter((t) => t.status === q.status)
    if (q.date_created) {
      const day = Math.floor((parseDateTime(q.date_created, { dateOnly: true }) ?? 0) / 86_400_000)
      tasks = tasks.filter((t) => Math.floor(t.created_at / 86_400_000) === day)
    }
    const { search } = q
    // each value on its own: a search never matches across two fields, keys or punctuation
    if (search)
      tasks = tasks.filter((t) => searchable(t).some((field) => containsText(field, search)))
    tasks = q.ordering
      ? sortBy(tasks, [
          [(t) => (q.ordering === 'started_at' ? t.started_at : t[q.ordering ?? 'task_id']), 'asc'],
        ])
      : sortBy(tasks, [[(t) => t.started_at, 'desc']])
    const limit = q.limit ?? 10
    const page = q.page ?? 1
    const pages = Math.max(1, Math.ceil(tasks.length / limit))
    if (page > pages) throw new ApiError(404, 'Invalid page.')
    return c.json(
      {
        count: tasks.length,
        next: page < pages ? pageLink(c.req.url, page + 1) : '',
        previous: page > 1 ? pageLink(c.req.url, page - 1) : '',
        results: paginate(tasks, { limit, offset: (page - 1) * limit }).map(out),
      },
      200,
    )
  },
)
