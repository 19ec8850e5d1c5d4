import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ZodError, z } from 'zod'
import { issueMessage } from './lib/issue-messages.ts'
import type { CloudError } from './schemas.ts'

/**
 * Which error body a path answers with (spec 7): the edge apps API uses `{error}`,
 * the JWT login/refresh methods use `{errors: {field: [messages]}}`, everything else the vendor's
 * cloud style `{exception_class, message, request_id, invalid_fields?}`.
 */
export type ErrorFamily = 'cloud' | 'edge' | 'login'

/**
 * The error family of a request path.
 *
 * @example
 * ```ts
 * errorFamily('/edge/v1/admin/apps')     // 'edge'
 * errorFamily('/iam/auth/jwt/login')     // 'login'
 * errorFamily('/waap/v1/domains')        // 'cloud'
 * ```
 */
export function errorFamily(path: string): ErrorFamily {
  if (path.startsWith('/edge/')) return 'edge'
  if (path.startsWith('/iam/auth/jwt/')) return 'login'
  return 'cloud'
}

const EXCEPTION_CLASS: Partial<Record<number, string>> = {
  400: 'ValidationError',
  401: 'AuthenticationFailed',
  403: 'PermissionDenied',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  410: 'Gone',
  412: 'PreconditionFailed',
  413: 'ContentTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'Throttled',
  500: 'InternalError',
  501: 'NotImplemented',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
}

/**
 * The `exception_class` of a status: its own name when it has one, else the class of its range,
 * so a `Prefer: code=418` or `599` scenario still tells a client error from a server error.
 *
 * @example
 * ```ts
 * exceptionClass(415) // 'UnsupportedMediaType'
 * exceptionClass(418) // 'ClientError'
 * exceptionClass(599) // 'ServerError'
 * ```
 */
export function exceptionClass(status: number): string {
  return EXCEPTION_CLASS[status] ?? (status >= 500 ? 'ServerError' : 'ClientError')
}

/**
 * The challenge of every 401 (RFC 9110 §11.6.1 requires one): the two schemes of spec 5,
 * `Authorization: APIKey <key>` and `Authorization: Bearer <access JWT>`.
 */
export const AUTH_CHALLENGE = 'APIKey realm="api", Bearer realm="api"'

/** Field name → messages, as in `invalid_fields` and the login `errors` body. */
export type FieldErrors = Record<string, string[]>

/**
 * Every error the emulator answers with: thrown anywhere, rendered once by {@link renderError}
 * in the shape of the request's {@link ErrorFamily}.
 *
 * @example
 * ```ts
 * throw new ApiError(404, 'Task 6f1c… not found')
 * throw ApiError.validation({ limit: ['must be at most 1000'] })
 * ```
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: ContentfulStatusCode
  readonly fields: FieldErrors | undefined
  readonly headers: Record<string, string>

  constructor(
    status: ContentfulStatusCode,
    message: string,
    fields?: FieldErrors,
    headers: Record<string, string> = {},
  ) {
    super(message)
    this.status = status
    this.fields = fields
    this.headers = headers
  }

  /** A 400 listing what is wrong with each field. */
  static validation(fields: FieldErrors): ApiError {
    const summary = Object.entries(fields)
      .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
      .join('; ')
    return new ApiError(400, `Validation Error: ${summary}`, fields)
  }

  /**
   * A 400 from a failed zod parse: one entry per field path, each issue in the API's words, or in
   * `reword`'s when it has some for the issue (the validation hook's knowledge of the request).
   */
  static fromZod(
    error: ZodError,
    reword: (issue: z.core.$ZodIssue) => string | undefined = () => undefined,
  ): ApiError {
    // A Map, not `{}`: a field path is the caller's text, and `fields['constructor']` or
    // `fields['__proto__']` on an object would find (or set) what it inherits.
    const fields = new Map<string, string[]>()
    for (const issue of error.issues) {
      const field = issue.path.length ? issue.path.join('.') : 'non_field_errors'
      fields.set(field, [...(fields.get(field) ?? []), reword(issue) ?? issueMessage(issue)])
    }
    return ApiError.validation(Object.fromEntries(fields))
  }
}

/** The `{exception_class, message, request_id, invalid_fields?}` body: the `CloudError` schema's type. */
export type CloudErrorBody = z.infer<typeof CloudError>

/**
 * Renders an {@link ApiError} in the family of the request path: the only place an error body is
 * built.
 *
 * @example
 * ```ts
 * app.onError((err, c) => renderError(c, err instanceof ApiError ? err : new ApiError(500, 'internal error')))
 * ```
 */
export function renderError(c: Context, error: ApiError): Response {
  // The challenge here, not at each throw: every 401 (auth, login, refresh, a Prefer scenario)
  // gets it; an error's own WWW-Authenticate, set after it, replaces it.
  if (error.status === 401) c.header('WWW-Authenticate', AUTH_CHALLENGE)
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value)
  const family = errorFamily(c.req.path)
  if (family === 'edge') return c.json({ error: error.message }, error.status)
  if (family === 'login') {
    return c.json({ errors: error.fields ?? { non_field_errors: [error.message] } }, error.status)
  }
  const body: CloudErrorBody = {
    exception_class: exceptionClass(error.status),
    message: error.message,
    request_id: (c.get('requestId') as string | undefined) ?? '',
    ...(error.fields && { invalid_fields: error.fields }),
  }
  return c.json(body, error.status)
}
