declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('./worker.ts')
  }
  interface Env {
    SECRET_KEY: string
    CLIENT_ID: string
    CDN_DOMAIN: string
    CDN_DOMAIN_IP: string
    IP_HEADERS: string
    ALLOWED_ORIGINS: string
    TEST_PRIVATE_JWK: string
  }
}
