// The services of the local stack: `scripts/dev.mjs` starts them, e2e tests reuse the ports.
import { bin, WRANGLER_ENV } from './stack-tools.mjs'

const wrangler = (cwd) => bin(cwd, 'wrangler', 'bin/wrangler.js')

const TOKEN_PORT = Number(process.env.TOKEN_WORKER_PORT ?? 8787)
const DEMO_PORT = Number(process.env.DEMO_PORT ?? 5173)
const API_PORT = Number(process.env.API_WORKER_PORT ?? 8788)

export const services = [
  {
    name: 'token-worker',
    cwd: 'apps/token-worker',
    devVars: true,
    command: [
      ...wrangler('apps/token-worker'),
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(TOKEN_PORT),
      // Each wrangler dev needs its own devtools port, or the second one fails to start.
      '--inspector-port',
      String(TOKEN_PORT + 1000),
    ],
    env: WRANGLER_ENV,
    readyUrl: `http://127.0.0.1:${TOKEN_PORT}/token?video=ready`,
    tryUrl: `http://127.0.0.1:${TOKEN_PORT}/token`,
    example: `curl 'http://127.0.0.1:${TOKEN_PORT}/token?video=demo&type=vod&expire=600'; curl 'http://127.0.0.1:${TOKEN_PORT}/session?video=demo&type=vod'`,
  },
  {
    name: 'api-worker',
    cwd: 'apps/api-worker',
    devVars: true,
    command: [
      ...wrangler('apps/api-worker'),
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(API_PORT),
      '--inspector-port',
      String(API_PORT + 1000),
    ],
    env: WRANGLER_ENV,
    readyUrl: `http://127.0.0.1:${API_PORT}/openapi.json`,
    tryUrl: `http://127.0.0.1:${API_PORT}/openapi.json`,
    example: `curl -H 'Authorization: APIKey dev-client-key' 'http://127.0.0.1:${API_PORT}/cloud/v1/availablenetworks/1/1?limit=2'`,
  },
  {
    name: 'cdn-emulator',
    cwd: 'apps/cdn-emulator',
    command: [process.execPath, 'src/main.ts'],
    envFrom: {
      file: 'apps/token-worker/.dev.vars',
      keys: ['SECRET_KEY', 'CDN_DOMAIN', 'CDN_DOMAIN_IP'],
    },
    readyUrl: 'http://127.0.0.1:8080/',
    tryUrl: 'http://127.0.0.1:8080/videos/12345_demo/{token}/{expires}/master.m3u8',
  },
  {
    name: 'demo',
    cwd: 'apps/demo',
    command: [...bin('apps/demo', 'vite', 'bin/vite.js'), '--clearScreen', 'false'],
    env: { DEMO_PORT: String(DEMO_PORT) },
    readyUrl: `http://127.0.0.1:${DEMO_PORT}/`,
    tryUrl: `http://127.0.0.1:${DEMO_PORT}/`,
    example: `open http://127.0.0.1:${DEMO_PORT}/?expire=20&lead=6 (all five players, token countdowns, "play anywhere")`,
  },
]
