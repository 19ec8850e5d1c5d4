/** The rows of the configuration table for edge sessions: the `SESSION_*` variables. */
import { textRule, wholeNumberRule } from '@proj/signing/config'
import { isUrlOf, minLengthRule, oneOfRule } from './rules.ts'
import type { SessionBinding } from './types.ts'
import { spec } from './variable-spec.ts'

// Every session URL starts with it and goes to every viewer: a `user:password@` would hand the
// password to all of them, and a query or fragment would come before the session's own path.
const isPublicBase = (text: string): boolean => {
  if (!isUrlOf(text, ['https:', 'http:']) || /[?#]/.test(text)) return false
  const { username, password } = new URL(text)
  return username === '' && password === ''
}

/** Defaults and caps of the session lane, in one place. */
export const SESSION_DEFAULTS = {
  lifetimeSeconds: 6 * 3600,
  maxLifetimeSeconds: 24 * 3600,
  binding: 'prefix',
  maxNetworks: 2,
  leafLifetimeSeconds: 30,
} as const satisfies Record<string, number | SessionBinding>

/** The `SESSION_*` variables. */
export const SESSION_VARIABLES = {
  SESSION_SECRET: spec({
    field: 'session.secret',
    rule: minLengthRule(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)', {
      secret: true,
    }),
    doc: {
      section: 'sessions',
      unset: 'unset: sessions off (`501`)',
      about:
        'signs session credentials, ≥ 32 characters, not a CDN secret (`wrangler secret put SESSION_SECRET`)',
    },
  }),
  SESSION_LIFETIME: spec({
    field: 'session.lifetimeSeconds',
    rule: wholeNumberRule(
      1,
      SESSION_DEFAULTS.maxLifetimeSeconds,
      `must be a whole number of seconds, at most ${SESSION_DEFAULTS.maxLifetimeSeconds} (24 h)`,
    ),
    default: SESSION_DEFAULTS.lifetimeSeconds,
    doc: {
      section: 'sessions',
      unset: `\`${SESSION_DEFAULTS.lifetimeSeconds}\` (6 h)`,
      about: `longest session in seconds; at most \`${SESSION_DEFAULTS.maxLifetimeSeconds}\``,
    },
  }),
  SESSION_BINDING: spec<SessionBinding>({
    // a validated configuration keeps it in `networks` too, sessions on or off
    field: ['session.binding', 'networks.binding'],
    rule: oneOfRule(
      ['none', 'prefix', 'ip'],
      'must be "prefix" (default: the viewer\'s /24 or /64), "ip" or "none"',
    ),
    default: SESSION_DEFAULTS.binding,
    doc: {
      section: 'sessions',
      about:
        '`prefix` (/24, /64), `ip` (exact address) or `none`: how networks are counted, for sessions and (with or without `SESSION_SECRET`) for a JavaScript-lane stream',
    },
  }),
  SESSION_MAX_NETWORKS: spec({
    field: ['session.maxNetworks', 'networks.maxNetworks'],
    rule: wholeNumberRule(1, 8, 'must be a number of networks from 1 to 8'),
    default: SESSION_DEFAULTS.maxNetworks,
    doc: {
      section: 'sessions',
      about:
        'distinct networks one session may be used from, the issuing one included (1–8); with STREAM_LIMIT, also one JavaScript-lane stream (its refreshes), with or without `SESSION_SECRET`',
    },
  }),
  SESSION_LEAF_LIFETIME: spec({
    field: 'session.leafLifetimeSeconds',
    rule: wholeNumberRule(5, 600, 'must be a whole number of seconds from 5 to 600'),
    default: SESSION_DEFAULTS.leafLifetimeSeconds,
    doc: { section: 'sessions', about: 'seconds each redirected CDN URL lives (5–600)' },
  }),
  SESSION_ADMIN_TOKEN: spec({
    field: ['session.adminToken', 'adminToken'],
    // sent as `Authorization: Bearer <token>`: a space or a control character could never be
    rule: textRule(
      (text) => (text.length >= 32 && /^[\x21-\x7e]+$/.test(text) ? text : undefined),
      'must be at least 32 printable ASCII characters, without spaces (it is sent as a bearer token)',
      { secret: true },
    ),
    doc: {
      section: 'sessions',
      unset: 'unset: revocation, the CDN switch and stream control off',
      about:
        'bearer token, ≥ 32 printable ASCII characters without spaces, of the operator API: `POST /sessions/revoke`, `/cdns` ([Several CDNs](multi-cdn.md#session-lane)) and `/streams`; with or without `SESSION_SECRET`',
    },
  }),
  SESSION_BASE_URL: spec({
    field: 'session.baseUrl',
    rule: textRule(
      (text) =>
        isPublicBase(text) || /^(?:\/[A-Za-z0-9._~-]+)+\/?$/.test(text)
          ? text.replace(/\/+$/, '')
          : undefined,
      'must be an http(s) URL without user, password, query or fragment, such as https://tokens.example.com, or a path on the same origin such as /video',
    ),
    doc: {
      section: 'sessions',
      unset: "the request's origin",
      about:
        "public base of session URLs when the backend sits behind a proxy or another path; a path (`/tok`) is on the request's origin. The prefix of `parent.route('/video', app)` follows it unless it ends with it; under `mount()`, which hides its path from the app, it must name the mount point ([Mounting](../packages/token-backend/README.md#mount-it-in-your-hono-app))",
    },
  }),
} as const
