import type { Context, Next } from 'hono'
import { apiConfig } from '../config.ts'
import { datasetFor } from '../data/dataset.ts'
import type { ApiBindings, ApiEnv } from '../env.ts'

/**
 * The single state Durable Object of this deployment.
 *
 * @example
 * ```ts
 * await stateOf(c.env).getTask(id)
 * ```
 */
export function stateOf(env: ApiBindings) {
  return env.STATE.get(env.STATE.idFromName(apiConfig(env).stateName))
}

/** The configured default seed (`SEED`). */
export function defaultSeed(env: ApiBindings): number {
  return apiConfig(env).seed
}

/**
 * Puts the dataset of the current generation on the context (`c.get('data')`).
 *
 * @example
 * ```ts
 * app.use(loadDataset)
 * ```
 */
export async function loadDataset(c: Context<ApiEnv>, next: Next): Promise<Response | void> {
  c.set('data', datasetFor(await stateOf(c.env).generation(defaultSeed(c.env))))
  await next()
}
