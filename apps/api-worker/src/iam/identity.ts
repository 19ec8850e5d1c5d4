import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { sign } from 'hono/jwt'
import { type SessionClaims, verifySession } from '../auth.ts'
import { apiConfig } from '../config.ts'
import { CLIENTS, LOGIN_USERS, RESELLER_ID } from '../data/accounts.ts'
import type { ApiBindings, ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, LoginError, ok } from '../schemas.ts'
import { verifyTotp } from './totp.ts'

const ACCESS_SECONDS = 3600
const REFRESH_SECONDS = 24 * 3600

/** A string field whose absence says "This field is required." (spec 7, login errors). */
const field = () =>
  z.string({
    error: (issue) =>
      issue.input === undefined ? 'This field is required.' : 'Not a valid string.',
  })

const Login = z
  .object({
    username: field().min(1, 'This field may not be blank.').email('Enter a valid email address.'),
    password: field().min(1, 'This field may not be blank.'),
    one_time_password: field()
      .regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app.')
      .optional(),
  })
  .openapi('LoginRequest')
const Tokens = z.object({ refresh: z.string(), access: z.string() }).openapi('LoginTokens')

const issue = async (
  env: ApiBindings,
  claims: Omit<SessionClaims, 'token_type' | 'exp' | 'iat'>,
  type: SessionClaims['token_type'],
) => {
  const { jwtSecret } = apiConfig(env)
  if (!jwtSecret) throw new ApiError(500, 'Emulator misconfigured: JWT_SECRET is not set.')
  const iat = Math.floor(Date.now() / 1000)
  const exp = iat + (type === 'access' ? ACCESS_SECONDS : REFRESH_SECONDS)
  return sign({ ...claims, token_type: type, iat, exp }, jwtSecret, 'HS256')
}

const loginErrors = { content: { 'application/json': { schema: LoginError } } }

/** Identity and access: JWT login and refresh (4.9, spec 5) and the caller's account (4.10). */
export const iam = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/jwt/login',
      operationId: 'loginJwt',
      tags: ['IAM'],
      summary: 'Log in: access JWT (1 h) and refresh JWT (24 h)',
      security: [],
      request: { body: { required: true, content: { 'application/json': { schema: Login } } } },
      responses: {
        200: ok('Tokens', Tokens),
        400: { description: 'Invalid body', ...loginErrors },
        401: { description: 'Wrong credentials or one-time password', ...loginErrors },
      },
    }),
    async function loginJwt(c) {
      const { username, password, one_time_password } = c.req.valid('json')
      const user = LOGIN_USERS.find((u) => u.username === username.toLowerCase())
      // One message for an unknown user and a wrong password: the emulator leaks no more than the API.
      if (!user || user.password !== password) {
        throw new ApiError(401, 'Unable to log in with provided credentials.', {
          non_field_errors: ['Unable to log in with provided credentials.'],
        })
      }
      if (user.totpSecret) {
        if (!one_time_password) {
          throw ApiError.validation({
            one_time_password: [
              'This field is required for accounts with two-factor authentication.',
            ],
          })
        }
        if (!(await verifyTotp(user.totpSecret, one_time_password, Date.now()))) {
          throw new ApiError(401, 'Invalid one-time password.', {
            one_time_password: ['Invalid one-time password.'],
          })
        }
      }
      const claims = { sub: user.username, client_id: user.clientId, kind: user.kind }
      return c.json(
        {
          refresh: await issue(c.env, claims, 'refresh'),
          access: await issue(c.env, claims, 'access'),
        },
        200,
      )
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/jwt/refresh',
      operationId: 'refreshJwt',
      tags: ['IAM'],
      summary: 'Exchange a refresh JWT for a new access JWT',
      security: [],
      request: {
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({ refresh: field().min(1, 'This field may not be blank.') }),
            },
          },
        },
      },
      responses: {
        200: ok('New access token', z.object({ access: z.string() })),
        400: { description: 'Invalid body', ...loginErrors },
        401: { description: 'Invalid or expired refresh token', ...loginErrors },
      },
    }),
    async function refreshJwt(c) {
      const claims = await verifySession(c.req.valid('json').refresh, c.env, 'refresh')
      if (!claims)
        throw new ApiError(401, 'Token is invalid or expired.', {
          refresh: ['Token is invalid or expired.'],
        })
      const access = await issue(
        c.env,
        { sub: claims.sub, client_id: claims.client_id, kind: claims.kind },
        'access',
      )
      return c.json({ access }, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/clients/me',
      operationId: 'getClientMe',
      tags: ['IAM'],
      summary: 'The account of the presented credential (a 200 confirms the credential is valid)',
      responses: {
        200: ok(
          'Account',
          z
            .object({
              id: z.number().int(),
              name: z.string(),
              company_name: z.string(),
              status: z.enum(['active', 'trial', 'suspended']),
              is_reseller: z.boolean(),
              reseller_id: z.number().int().nullable(),
              currency: z.string(),
              auth_method: z.enum(['apikey', 'jwt']),
              user: z
                .string()
                .nullable()
                .openapi({ description: 'The logged-in user (JWT) or null (API key).' }),
            })
            .openapi('Client'),
        ),
        ...CloudErrors,
      },
    }),
    function getClientMe(c) {
      const principal = c.get('principal')
      const reseller = principal.kind === 'reseller'
      const company = reseller
        ? 'Edge Reseller Ltd'
        : (CLIENTS.find((client) => client.id === principal.clientId)?.company_name ?? 'Unknown')
      return c.json(
        {
          id: principal.clientId,
          name: company,
          company_name: company,
          status: 'active' as const,
          is_reseller: reseller,
          reseller_id: reseller ? null : RESELLER_ID,
          currency: 'USD',
          auth_method: principal.via,
          user: principal.via === 'jwt' ? principal.label.replace(/^jwt:/, '') : null,
        },
        200,
      )
    },
  )
