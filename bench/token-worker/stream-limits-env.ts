/** The secret the stream-limits benches sign their viewers' JWTs with. */
export const JWT_SECRET = 'bench-stream-limits-jwt-secret-0123456789'

/**
 * The token backend's variables in both stream-limits benches (`STREAM_LIMIT` added where on):
 * a viewer is a JWT's `sub`, and its address the header a proxy in front would set.
 */
export const STREAM_LIMITS_ENV = {
  CLIENT_ID: '12345',
  SECRET_KEY: 'bench-secret',
  CDN_DOMAIN: 'cdn.bench.test',
  CDN_DOMAIN_IP: 'cdn-ip.bench.test',
  AUTH_MODE: 'jwt',
  JWT_SECRET,
  IP_HEADERS: 'x-real-ip',
  SESSION_SECRET: 'bench-session-secret-of-32-characters',
}
