import { DEV_CLIENT_ID } from './accounts.ts'
import type { Rng } from './rng.ts'

/** AI task statuses (spec 3) and names (spec 2.8). */
export const AI_TASK_STATUSES = [
  'FAILURE',
  'PENDING',
  'RECEIVED',
  'RETRY',
  'REVOKED',
  'STARTED',
  'SUCCESS',
] as const
export const AI_TASK_NAMES = ['transcription', 'content-moderation'] as const

/** A streaming AI task; times in epoch ms (`completed_at` null until done). */
export interface AiTask {
  task_id: string
  /** The client account whose API call created the task: only it (and the reseller) sees it. */
  client_id: number
  task_name: (typeof AI_TASK_NAMES)[number]
  status: (typeof AI_TASK_STATUSES)[number]
  progress: number
  created_at: number
  started_at: number | null
  completed_at: number | null
  // What the creating method was given: the media URL and a language or moderation category.
  task_data: Record<string, string>
}

const LANGUAGES = ['eng', 'deu', 'fra', 'spa', 'jpn', 'por']
const CATEGORIES = ['nsfw', 'sport', 'hard_nudity', 'soft_nudity', 'child_pornography']

/**
 * `count` AI tasks of client `clientId` over the last 60 days, every status and both names
 * represented (1,000 for client 1001 when not told otherwise).
 *
 * @example
 * ```ts
 * generateAiTasks(createRng(42), Date.now()).length // 1000
 * ```
 */
export function generateAiTasks(
  rng: Rng,
  now: number,
  { clientId = DEV_CLIENT_ID, count = 1000 }: { clientId?: number; count?: number } = {},
): AiTask[] {
  return Array.from({ length: count }, (_, i) => {
    const status = AI_TASK_STATUSES[i % AI_TASK_STATUSES.length] as AiTask['status']
    const task_name = AI_TASK_NAMES[rng.int(0, 1)] as AiTask['task_name']
    const created = now - rng.int(60, 60 * 86400) * 1000
    const started =
      status === 'PENDING' || status === 'RECEIVED' ? null : created + rng.int(1, 120) * 1000
    const finished = status === 'SUCCESS' || status === 'FAILURE' || status === 'REVOKED'
    const video = `video-${rng.int(1000, 9999)}`
    return {
      task_id: rng.uuid(),
      client_id: clientId,
      task_name,
      status,
      progress: finished ? 100 : status === 'STARTED' || status === 'RETRY' ? rng.int(1, 99) : 0,
      created_at: created,
      started_at: started,
      completed_at: finished && started !== null ? started + rng.int(5, 1800) * 1000 : null,
      task_data:
        task_name === 'transcription'
          ? {
              task_name,
              url: `https://storage.example.com/videos/${video}.mp4`,
              audio_language: rng.pick(LANGUAGES),
            }
          : {
              task_name,
              url: `https://storage.example.com/videos/${video}.mp4`,
              category: rng.pick(CATEGORIES),
            },
    }
  })
}
