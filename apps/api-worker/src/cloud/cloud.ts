import { OpenAPIHono } from '@hono/zod-openapi'
import type { ApiEnv } from '../env.ts'
import { validationHook } from '../lib/validation.ts'
import { gpuClusters } from './gpu-clusters.ts'
import { limitRequests } from './limit-requests.ts'
import { networks } from './networks.ts'
import { tasks } from './tasks.ts'

/** The cloud product family, mounted at `/cloud`. */
export const cloud = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .route('/', networks)
  .route('/', gpuClusters)
  .route('/', tasks)
  .route('/', limitRequests)
