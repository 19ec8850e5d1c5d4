import type { MiddlewareHandler } from 'hono/types'
import { datasetFor } from '../data/dataset.ts'
import type { ApiBindings, ApiEnv } from '../env.ts'

/** Default seed when `SEED` is unset. */
export const DEFAULT_SEED = 42

/**
 * The single state Durable Object of this deployment.
 *
 * @example
 * ```ts
 * await stateOf(c.env).getTask(id)
 * ```
 */
export const stateOf = (env: ApiBindings) =>
  env.STATE.get(env.STATE.idFromName(env.STATE_NAME || 'emulator'))

/** The configured default seed. */
export const defaultSeed = (env: ApiBindings): number => {
  const seed = Number(env.SEED ?? DEFAULT_SEED)
  return Number.isSafeInteger(seed) && seed >= 0 ? seed : DEFAULT_SEED
}

/**
 * Puts the dataset of the current generation on the context (`c.get('data')`).
 *
 * @example
 * ```ts
 * app.use(loadDataset)
 * ```
 */
export const loadDataset: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set('data', datasetFor(await stateOf(c.env).generation(defaultSeed(c.env))))
  await next()
}
