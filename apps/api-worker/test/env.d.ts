declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/worker.ts')
  }
  interface Env {
    API_KEYS: string
    SECOND_CLIENT_API_KEYS: string
    RESELLER_API_KEYS: string
    JWT_SECRET: string
  }
}

/** A file's text, as Vite's `?raw` import gives it (tests read wrangler.jsonc and .dev.vars.example). */
declare module '*?raw' {
  const text: string
  export default text
}
