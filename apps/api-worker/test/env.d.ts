declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/worker.ts')
  }
  interface Env {
    API_KEYS: string
    RESELLER_API_KEYS: string
    JWT_SECRET: string
  }
}
