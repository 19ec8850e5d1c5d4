import { OpenAPIHono } from '@hono/zod-openapi'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { requestId } from 'hono/request-id'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { admin } from './admin.ts'
import { authenticate } from './auth.ts'
import { billing } from './billing/addendums.ts'
import { cloud } from './cloud/cloud.ts'
import { dns } from './dns/delegation-status.ts'
import { edge } from './edge/admin-apps.ts'
import type { ApiEnv } from './env.ts'
import { ApiError, renderError } from './errors.ts'
import { iam } from './iam/identity.ts'
import { allowedMethods } from './lib/allowed-methods.ts'
import { validationHook } from './lib/validation.ts'
import { journal, preferScenario } from './scenario.ts'
import { loadDataset } from './state/state-access.ts'
import { streaming } from './streaming/ai-tasks.ts'
import { waap } from './waap/waap.ts'

/**
 * Largest request body the emulator reads, in bytes (1 MiB). A cluster body is kept whole in one
 * row of the state Durable Object, and a deployed Durable Object refuses a row over 2 MB.
 */
export const MAX_BODY_BYTES = 1024 * 1024

// 413 in the request's error family for a body over MAX_BODY_BYTES: refused from its
// Content-Length before it is read, or as soon as a chunked body grows past it.
const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(
      413,
      `Request body too large: at most ${MAX_BODY_BYTES} bytes (1 MiB) are accepted.`,
    )
  },
})

/**
 * The API emulator: one sub-app per product family, one `onError` rendering every error in its
 * family's shape, and the OpenAPI 3.1 document of every route at `/openapi.json`.
 *
 * @example
 * ```ts
 * import { hc } from 'hono/client'
 * import type { ApiApp } from '@proj/api-worker'
 * const api = hc<ApiApp>('http://127.0.0.1:8788', { headers: { Authorization: 'APIKey dev-client-key' } })
 * ```
 */
export function createApiApp() {
  const app = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  app.onError((err, c) => {
    if (err instanceof ApiError) return renderError(c, err)
    // Hono's own (a malformed JSON body is a 400 from its validator) keep their status. Checked by
    // shape too: under the test runner hono's validator can load as another module instance.
    if (err instanceof HTTPException || (err.name === 'HTTPException' && 'status' in err)) {
      const status = (err as HTTPException).status as ContentfulStatusCode
      if (status === 400) {
        return renderError(
          c,
          ApiError.validation({ non_field_errors: [err.message || 'Malformed request.'] }),
        )
      }
      return renderError(c, new ApiError(status, err.message))
    }
    console.error('api-worker: unexpected error', err)
    return renderError(c, new ApiError(500, 'Internal server error.'))
  })
  app.notFound((c) => {
    const allow = allowedMethods(app.routes, c.req.path)
    if (allow.length === 0)
      return renderError(c, new ApiError(404, `No route for ${c.req.method} ${c.req.path}`))
    return renderError(
      c,
      new ApiError(
        405,
        `Method ${c.req.method} is not allowed here: use ${allow.join(', ')}.`,
        undefined,
        {
          Allow: allow.join(', '),
        },
      ),
    )
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'APIKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Permanent API token: `Authorization: APIKey <key>` (scheme case-insensitive).',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access JWT from POST /iam/auth/jwt/login.',
  })
  // X-Request-Id on every answer (and request_id in cloud-style errors): an incoming valid id is kept
  app.use(requestId(), journal)
  app.route('/__admin', admin)
  // authentication first: a scenario (Prefer) never answers, or delays, an unauthenticated call,
  // and no body is read for one
  app.use(authenticate, limitBody, preferScenario, loadDataset)
  const routes = app
    .route('/billing', billing)
    .route('/cloud', cloud)
    .route('/dns', dns)
    .route('/edge', edge)
    .route('/iam', iam)
    .route('/streaming', streaming)
    .route('/waap', waap)
  app.doc31('/openapi.json', (c) => openApiHeader(new URL(c.req.url).origin))
  return routes
}

/**
 * The top of the OpenAPI 3.1 document (`/openapi.json`) for a server at `origin`; the paths come
 * from the routes.
 *
 * @example
 * ```ts
 * const document = createApiApp().getOpenAPI31Document(openApiHeader('http://127.0.0.1:8788'))
 * ```
 */
export function openApiHeader(origin: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Multi-product REST API emulator',
      version: '1.0.0',
      description:
        'Validated, stateful, seeded emulation of the vendor API (spec sections 4.1–4.13).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: origin }],
    security: [{ APIKey: [] }, { Bearer: [] }],
  }
}

/** The app's type, for `hc<ApiApp>()`. */
export type ApiApp = ReturnType<typeof createApiApp>
