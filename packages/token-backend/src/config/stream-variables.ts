/** The rows of the configuration table for stream limits: the `STREAM_*` variables. */
import { textRule, wholeNumberRule } from '@proj/signing/config'
import {
  MOST_STREAMS,
  STREAM_DEFAULTS,
  type StreamMode,
  type StreamPolicy,
} from '../streams/stream-settings.ts'
import { oneOfRule } from './rules.ts'
import { spec } from './variable-spec.ts'

const README = '../packages/token-backend/README.md#stream-limits'

/** The `STREAM_*` variables (and `SESSION_STREAM_IDLE`, the session lane's side of them). */
export const STREAM_VARIABLES = {
  STREAM_LIMIT: spec({
    field: 'streams.limit',
    rule: wholeNumberRule(
      1,
      MOST_STREAMS,
      `must be a whole number of streams per viewer, from 1 to ${MOST_STREAMS}`,
    ),
    doc: {
      section: 'streams',
      unset: 'unset: no stream limits',
      about: `streams one viewer (the JWT's \`sub\`) may play at once, in both lanes; needs a viewer identity (\`AUTH_MODE=jwt\` or your authorizer) ([Stream limits](${README}))`,
    },
  }),
  STREAM_LIMIT_POLICY: spec<StreamPolicy>({
    field: 'streams.policy',
    rule: oneOfRule(
      ['reject-newest', 'evict-oldest'],
      'must be "reject-newest" (default) or "evict-oldest"',
    ),
    default: STREAM_DEFAULTS.policy,
    doc: {
      section: 'streams',
      about:
        'with every slot taken: `reject-newest` (the new stream gets a `409`) or `evict-oldest` (the oldest is ended: its next refresh or leaf is refused)',
    },
  }),
  STREAM_LIMIT_MODE: spec<StreamMode>({
    field: 'streams.mode',
    rule: oneOfRule(['enforce', 'log'], 'must be "enforce" (default) or "log"'),
    default: STREAM_DEFAULTS.mode,
    doc: {
      section: 'streams',
      about:
        '`log` refuses nothing and audits what `enforce` would have done (`stream_would_refuse`): for a safe rollout',
    },
  }),
  STREAM_LIMIT_CLAIM: spec({
    field: 'streams.claim',
    rule: textRule((text) => text, 'must be a claim name'),
    default: STREAM_DEFAULTS.claim,
    doc: {
      section: 'streams',
      about:
        "the viewer JWT's claim (a whole number from 1 to 9999; anything else is ignored) that overrides `STREAM_LIMIT` for them",
    },
  }),
  STREAM_GRACE: spec({
    field: 'streams.graceSeconds',
    rule: wholeNumberRule(0, 3600, 'must be a whole number of seconds from 0 to 3600'),
    default: STREAM_DEFAULTS.graceSeconds,
    doc: {
      section: 'streams',
      about: "seconds a `/token` stream stays active after its last token's expiry (0–3600)",
    },
  }),
  SESSION_STREAM_IDLE: spec({
    field: 'streams.sessionIdleSeconds',
    rule: wholeNumberRule(5, 3600, 'must be a whole number of seconds from 5 to 3600'),
    default: STREAM_DEFAULTS.sessionIdleSeconds,
    doc: {
      section: 'streams',
      about: 'seconds a session stream stays active after its last leaf or `/session` (5–3600)',
    },
  }),
} as const
