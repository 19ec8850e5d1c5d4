import { OpenAPIHono } from '@hono/zod-openapi'
import type { ApiEnv } from '../env.ts'
import { validationHook } from '../lib/validation.ts'
import { networks } from './networks.ts'

/** The cloud product family, mounted at `/cloud`. */
export const cloud = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).route('/', networks)
