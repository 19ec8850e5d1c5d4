import type { ZodError } from 'zod'
import { ApiError } from '../errors.ts'

/**
 * The one validation hook of every sub-app: a failed parse becomes an {@link ApiError} 400, which
 * `onError` renders in the request's error family.
 *
 * @example
 * ```ts
 * const cloud = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
 * ```
 */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError },
): void {
  if (!result.success) throw ApiError.fromZod(result.error)
}
