import { apiWorker, cdnEmulator, demo, type Service, tokenWorker } from './services.ts'

/** The ports of `npm start` (each overridable: TOKEN_WORKER_PORT, API_WORKER_PORT, DEMO_PORT). */
export interface LocalPorts {
  token: number
  api: number
  demo: number
}

/**
 * `npm start`'s ports: the defaults wrangler and vite use, unless the environment moves them.
 *
 * @example
 * ```ts
 * localPorts({ DEMO_PORT: '5200' }) // { token: 8787, api: 8788, demo: 5200 }
 * ```
 */
export function localPorts(env: Record<string, string | undefined> = process.env): LocalPorts {
  return {
    token: Number(env.TOKEN_WORKER_PORT ?? 8787),
    api: Number(env.API_WORKER_PORT ?? 8788),
    demo: Number(env.DEMO_PORT ?? 5173),
  }
}

/**
 * The local stack of `npm start`: both workers under `wrangler dev` on their `.dev.vars`, the CDN
 * emulator checking tokens with the token worker's secret (read from its `.dev.vars`), and
 * vite's dev server for the demo.
 *
 * @example
 * ```ts
 * for (const service of localStack(localPorts())) start(service)
 * ```
 */
export function localStack(ports: LocalPorts): Service[] {
  return [
    tokenWorker({ port: ports.token }),
    apiWorker({ port: ports.api }),
    cdnEmulator({
      env: {},
      envFrom: {
        file: 'apps/token-worker/.dev.vars',
        keys: ['SECRET_KEY', 'CDN_DOMAIN', 'CDN_DOMAIN_IP'],
      },
      readyUrl: 'http://127.0.0.1:8080/',
      tryUrl: 'http://127.0.0.1:8080/videos/12345_demo/{token}/{expires}/master.m3u8',
    }),
    demo({ port: ports.demo, build: false }),
  ]
}
