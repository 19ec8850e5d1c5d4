import { z } from '@hono/zod-openapi'

/** The vendor's cloud-style error body (documented once, referenced by every cloud-style route). */
export const CloudError = z
  .object({
    exception_class: z.string().openapi({ example: 'ValidationError' }),
    message: z.string().openapi({
      example: 'Validation Error: limit: Ensure this value is less than or equal to 1000.',
    }),
    request_id: z.string(),
    invalid_fields: z.record(z.string(), z.array(z.string())).optional(),
  })
  .openapi('CloudError')

/** The edge apps API error body. */
export const EdgeError = z.object({ error: z.string() }).openapi('EdgeError')

/** The login/refresh error body. */
export const LoginError = z
  .object({ errors: z.record(z.string(), z.array(z.string())) })
  .openapi('LoginError')

const responses = (schema: z.ZodType) => {
  const content = { 'application/json': { schema } }
  return {
    400: { description: 'Invalid parameters', content },
    401: { description: 'Missing or invalid credentials', content },
  }
}

/**
 * The error responses of the emulator controls (`/__admin`): 404 while `EMULATOR_ADMIN` is not
 * `true`, 401 without the `EMULATOR_ADMIN_TOKEN` when one is set, 400 for a bad body or query,
 * all in the cloud style.
 */
export const AdminErrors = {
  400: {
    description: 'Invalid body or query',
    content: { 'application/json': { schema: CloudError } },
  },
  401: {
    description: 'EMULATOR_ADMIN_TOKEN is set and Authorization: Bearer <it> was not presented',
    content: { 'application/json': { schema: CloudError } },
  },
  404: {
    description: 'The emulator controls are off (EMULATOR_ADMIN is not "true")',
    content: { 'application/json': { schema: CloudError } },
  },
}

/** The error responses of cloud-style routes. */
export const CloudErrors = responses(CloudError)
/** The error responses of edge routes. */
export const EdgeErrors = responses(EdgeError)

/**
 * A JSON 200 response declaration for a route.
 *
 * @example
 * ```ts
 * responses: { 200: ok('Domains', DomainList), ...CloudErrors }
 * ```
 */
export function ok<T extends z.ZodType>(description: string, schema: T) {
  return {
    description,
    content: { 'application/json': { schema } },
  }
}

/**
 * `{count, next, previous, results}`: lists paged by links (billing, streaming).
 * @example ok('Addendums', linkedPage(AddendumSchema))
 */
export function linkedPage<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  })
}

/**
 * `{count, limit, offset, results}`: lists that echo their window (WAAP).
 * @example ok('Domains', offsetPage(DomainSchema))
 */
export function offsetPage<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    results: z.array(item),
  })
}
