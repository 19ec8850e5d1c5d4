import { DEV_CLIENT_ID, SECOND_CLIENT_ID } from './accounts.ts'
import { createRng, hash32, type Rng } from './rng.ts'

export const WAAP_DECISIONS = ['blocked', 'monitored', 'allowed', 'passed'] as const
export const WAAP_OPTIONAL_ACTIONS = ['captcha', 'challenge'] as const
export const WAAP_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
] as const
export const WAAP_DOMAIN_STATUSES = ['active', 'bypass', 'monitor', 'locked'] as const

/** A protected domain (spec 2.10, listed by 4.13) of one client account (4.11: "of the account"). */
export interface WaapDomain {
  id: number
  /** The client account the domain belongs to: only it (and the reseller) sees the domain. */
  client_id: number
  name: string
  status: (typeof WAAP_DOMAIN_STATUSES)[number]
  created_at: number
}

/** A request log record (spec 2.10), `request_time` in epoch ms. */
export interface WaapEvent {
  id: string
  decision: (typeof WAAP_DECISIONS)[number]
  action: string
  optional_action: '' | (typeof WAAP_OPTIONAL_ACTIONS)[number]
  client_ip: string
  country: string
  domain: string
  domain_id: number
  method: (typeof WAAP_METHODS)[number]
  path: string
  rule_name: string
  status_code: number
  request_time: number
  reference_id: string
  session_id: string
}

const APEXES = [
  'northwind.example',
  'contoso.example',
  'fabrikam.example',
  'tailspin.example',
  'litware.example',
]
const HOSTS = ['www', 'api', 'shop', 'login']
const COUNTRIES = [
  'US',
  'DE',
  'FR',
  'GB',
  'NL',
  'BR',
  'IN',
  'CN',
  'RU',
  'JP',
  'SG',
  'LU',
  'UA',
  'CA',
]
const PATHS = [
  '/',
  '/login',
  '/api/v1/users',
  '/api/v1/orders',
  '/search',
  '/wp-admin/admin-ajax.php',
  '/.env',
  '/static/app.js',
  '/checkout',
  '/graphql',
]
const RULES: Record<
  (typeof WAAP_DECISIONS)[number],
  { name: string; id: string; tags: string[] }[]
> = {
  blocked: [
    { name: 'SQL injection', id: 'S100', tags: ['sql_injection'] },
    { name: 'Cross-site scripting', id: 'S110', tags: ['xss'] },
    { name: 'Path traversal', id: 'S120', tags: ['path_traversal'] },
    { name: 'Bad reputation IP', id: 'R200', tags: ['ip_reputation'] },
  ],
  monitored: [
    { name: 'Suspicious user agent', id: 'B300', tags: ['automated_tool'] },
    { name: 'Rate limit (monitor)', id: 'L400', tags: ['rate_limit'] },
  ],
  allowed: [{ name: 'Allow office IPs', id: 'U500', tags: [] }],
  passed: [{ name: '', id: '', tags: [] }],
}
const ACTIONS = {
  blocked: 'block',
  monitored: 'monitor',
  allowed: 'allow',
  passed: 'pass',
} as const
const STATUS_BY_DECISION = {
  blocked: [403],
  monitored: [200, 404, 429],
  allowed: [200, 201],
  passed: [200, 200, 200, 301, 404, 500],
}

const hex = (rng: Rng, n: number) =>
  Array.from({ length: n }, () => rng.int(0, 15).toString(16)).join('')

/** Whose domains to generate: the client, its first domain ID and its apex names. */
export interface WaapTenant {
  clientId: number
  firstId: number
  apexes: readonly string[]
}

/** Client 1001: 20 domains from 10001. */
export const FIRST_TENANT: WaapTenant = { clientId: DEV_CLIENT_ID, firstId: 10_001, apexes: APEXES }
/** Client 1002: 4 domains from 10101, none of them client 1001's. */
export const SECOND_TENANT: WaapTenant = {
  clientId: SECOND_CLIENT_ID,
  firstId: 10_101,
  apexes: ['contoso-streaming.example'],
}

/**
 * The protected domains of one client: four hosts per apex, every status represented.
 *
 * @example
 * ```ts
 * generateWaapDomains(createRng(42), Date.now(), FIRST_TENANT).length // 20
 * ```
 */
export function generateWaapDomains(rng: Rng, now: number, tenant: WaapTenant): WaapDomain[] {
  return Array.from({ length: tenant.apexes.length * HOSTS.length }, (_, i) => ({
    id: tenant.firstId + i,
    client_id: tenant.clientId,
    name: `${HOSTS[i % HOSTS.length]}.${tenant.apexes[Math.floor(i / HOSTS.length)]}`,
    status: WAAP_DOMAIN_STATUSES[i % 4 === 0 ? 0 : rng.int(0, 3)] as WaapDomain['status'],
    created_at: now - rng.int(40, 900) * 86_400_000,
  }))
}

/**
 * `count` events spread over the 30 days before `now`, newest first, across `domains`, every
 * decision, optional action and method represented.
 *
 * @example
 * ```ts
 * generateWaapEvents(createRng(42), domains, Date.now(), 10_000)[0].request_time // the newest
 * ```
 */
export function generateWaapEvents(
  rng: Rng,
  domains: readonly WaapDomain[],
  now: number,
  count: number,
): WaapEvent[] {
  const events = Array.from({ length: count }, (_, i): WaapEvent => {
    const decision = WAAP_DECISIONS[
      i % 10 < 2 ? 0 : i % 10 < 3 ? 1 : i % 10 < 4 ? 2 : 3
    ] as WaapEvent['decision']
    const domain = rng.pick(domains)
    const rule = rng.pick(RULES[decision])
    const optional =
      decision === 'blocked' || decision === 'monitored'
        ? rng.chance(0.25)
          ? rng.pick(WAAP_OPTIONAL_ACTIONS)
          : ''
        : ''
    const base = rng.pick(PATHS)
    return {
      id: hex(rng, 32),
      decision,
      action: ACTIONS[decision],
      optional_action: optional,
      client_ip: `${rng.pick([45, 78, 91, 103, 185, 198])}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
      country: rng.pick(COUNTRIES),
      domain: domain.name,
      domain_id: domain.id,
      method:
        i % 50 === 0
          ? (WAAP_METHODS[(i / 50) % WAAP_METHODS.length] as WaapEvent['method'])
          : rng.pick(['GET', 'GET', 'POST', 'PUT']),
      path: base.startsWith('/api/') && rng.chance(0.5) ? `${base}/${rng.int(1, 9999)}` : base,
      rule_name: rule.name,
      status_code: rng.pick(STATUS_BY_DECISION[decision]),
      request_time: now - rng.int(0, 30 * 86_400 - 1) * 1000 - rng.int(0, 999),
      reference_id: hex(rng, 16),
      session_id: hex(rng, 24),
    }
  })
  return events.sort((a, b) => b.request_time - a.request_time)
}

const AGENTS = [
  {
    raw: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
    device: 'Desktop',
    client: 'Chrome 131',
  },
  {
    raw: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    device: 'Smartphone',
    client: 'Mobile Safari 18.1',
  },
  { raw: 'curl/8.5.0', device: 'Other', client: 'curl 8.5.0' },
  { raw: 'sqlmap/1.8.2#stable (https://sqlmap.org)', device: 'Other', client: 'sqlmap 1.8.2' },
] as const
const ORGS = [
  'Example Telecom AS64500',
  'Hosting Co AS64501',
  'Mobile Carrier AS64502',
  'Cloud Provider AS64503',
]

/**
 * The detail record of an event (spec 2.10): the list record's fields plus what an expanded event
 * shows, derived from the event id so it is the same on every call.
 *
 * @example
 * ```ts
 * waapDetails(event).network.ip === event.client_ip // true
 * ```
 */
export function waapDetails(event: WaapEvent) {
  const rng = createRng(hash32(event.id))
  const rule = RULES[event.decision].find((r) => r.name === event.rule_name) ?? { id: '', tags: [] }
  const agent =
    event.rule_name === 'Suspicious user agent' || event.rule_name === 'SQL injection'
      ? AGENTS[3]
      : rng.pick(AGENTS)
  const query =
    event.path === '/search' ? `q=${event.decision === 'blocked' ? "'%20OR%201=1--" : 'shoes'}` : ''
  return {
    id: event.id,
    path: event.path,
    method: event.method,
    action: event.action,
    decision: event.decision,
    optional_action: event.optional_action,
    rule_id: rule.id,
    rule_name: event.rule_name,
    pattern_matched_tags: rule.tags,
    common_tags:
      event.decision === 'passed'
        ? []
        : rng.sample(['tor', 'vpn', 'datacenter', 'bot'], rng.int(0, 2)),
    traffic_types: [rng.pick(['web', 'api', 'static'])],
    user_agent: { raw: agent.raw, device: agent.device, client: agent.client },
    network: { ip: event.client_ip, organization: rng.pick(ORGS) },
    request_time: new Date(event.request_time).toISOString(),
    reference_id: event.reference_id,
    session_id: event.session_id,
    query_string: query,
    http_status_code: event.status_code,
    http_version: rng.pick(['HTTP/1.1', 'HTTP/2.0']),
    scheme: 'https',
    content_type: event.method === 'POST' || event.method === 'PUT' ? 'application/json' : '',
    response_time: `${rng.int(2, 900)}ms`,
    incident_id: event.optional_action === 'challenge' ? `inc-${event.reference_id}` : '',
    request_headers: {
      host: event.domain,
      'user-agent': agent.raw,
      accept: '*/*',
      'x-forwarded-for': event.client_ip,
    },
  }
}
