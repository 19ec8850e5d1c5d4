/** The rows of the configuration table for who may get tokens: `AUTH_MODE` and the JWT settings. */
import { textRule } from '@proj/signing/config'
import type { AsymmetricAlgorithm, SymmetricAlgorithm } from 'hono/utils/jwt/jwa'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import { booleanRule, isUrlOf, jsonRule, minLengthRule, oneOfRule } from './rules.ts'
import { spec } from './variable-spec.ts'

export const SYMMETRIC = ['HS256', 'HS384', 'HS512'] as const satisfies SymmetricAlgorithm[]
export const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const satisfies AsymmetricAlgorithm[]
const ALGORITHMS: readonly string[] = [...SYMMETRIC, ...ASYMMETRIC]
type Algorithm = SymmetricAlgorithm | AsymmetricAlgorithm

const nonEmpty = (expected: string) => textRule((text) => text, expected)
const isJwk = (key: unknown): key is HonoJsonWebKey =>
  typeof key === 'object' && key !== null && typeof (key as { kty?: unknown }).kty === 'string'
const jwkList = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every(isJwk) ? value : undefined
const algorithm = (text: string) => (ALGORITHMS.includes(text) ? (text as Algorithm) : undefined)

/** `AUTH_MODE` and the `JWT_*` variables. */
export const AUTH_VARIABLES = {
  // no default: who may get tokens is a choice the configuration names (closed by default),
  // unless the app has its own authorizer
  AUTH_MODE: spec({
    field: 'auth.mode',
    rule: oneOfRule(
      ['none', 'jwt'],
      (name) =>
        `must be "jwt" (viewers need a JWT: set ${name('JWT_SECRET')}, ${name('JWT_JWKS_URL')} or ${name('JWT_JWKS')}) or "none" (anyone may get tokens)`,
    ),
    doc: {
      section: 'token',
      required: 'yes',
      unset: 'unset: refused (500, start-up error on Node)',
      about:
        '`jwt` or `none`: who may get tokens, always a named choice ([Authorization](authorization.md))',
    },
  }),
  JWT_SECRET: spec({
    field: 'auth.secret.key',
    rule: minLengthRule(16, 'must be at least 16 characters', { secret: true }),
    doc: {
      section: 'token',
      required: 'with `jwt`',
      about: 'HMAC secret (≥ 16 characters) for viewer JWTs, or use a JWKS:',
    },
  }),
  JWT_JWKS_URL: spec({
    field: 'auth.jwks.url',
    rule: textRule(
      (text) => (isUrlOf(text, ['https:', 'http:']) ? text : undefined),
      'must be an http(s) URL',
    ),
    doc: {
      section: 'token',
      required: 'with `jwt`',
      about:
        'URL of a JSON Web Key Set, cached 5 minutes on every runtime ([Authorization](authorization.md))',
    },
  }),
  JWT_JWKS: spec({
    field: 'auth.jwks.keys',
    rule: jsonRule(
      (value) => jwkList(value) ?? jwkList((value as { keys?: unknown } | null)?.keys),
      'must be a JSON Web Key Set ({"keys":[…]}) or an array of JWKs',
    ),
    doc: {
      section: 'token',
      required: 'with `jwt`',
      about: 'an inline key set: `{"keys":[…]}` or `[…]`',
    },
  }),
  JWT_ALG: spec<Algorithm[]>({
    field: ['auth.secret.alg', 'auth.jwks.algs'],
    rule: {
      text: (text) => {
        const alg = algorithm(text)
        return alg && [alg]
      },
      value: (value) => {
        const algs = (typeof value === 'string' ? [value] : value) as unknown
        if (!Array.isArray(algs) || algs.length === 0) return undefined
        const known = algs.map((alg) => (typeof alg === 'string' ? algorithm(alg) : undefined))
        return known.every((alg) => alg !== undefined) ? known : undefined
      },
      expected: `must be one of ${ALGORITHMS.join(', ')}`,
    },
    doc: {
      section: 'token',
      unset: '`HS256` with a secret; any asymmetric with a JWKS',
      about: 'pin one algorithm (in an object, `auth.jwks.algs` may list several)',
    },
  }),
  JWT_VIDEOS_CLAIM: spec({
    field: 'auth.videosClaim',
    rule: nonEmpty('must be a claim name'),
    default: 'videos',
    doc: {
      section: 'token',
      about: 'claim listing the videos the viewer may watch (`["demo","trailer"]`) or `"*"`',
    },
  }),
  JWT_ISSUER: spec({
    field: 'auth.issuer',
    rule: nonEmpty('must be non-empty'),
    doc: { section: 'token', about: 'required `iss`' },
  }),
  JWT_AUDIENCE: spec({
    field: 'auth.audience',
    rule: nonEmpty('must be non-empty'),
    doc: { section: 'token', about: 'required `aud`' },
  }),
  JWT_REQUIRE_EXP: spec({
    field: 'auth.requireExp',
    rule: booleanRule('must be "true" (default: viewer JWTs need exp) or "false"'),
    default: true,
    doc: {
      section: 'token',
      about: 'refuse viewer JWTs without `exp` (valid forever); `false` to accept them',
    },
  }),
} as const
