import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

// Tests run inside workerd against wrangler.jsonc, with the real EmulatorState Durable Object.
// Bindings pin every variable, so a local .dev.vars cannot change what the tests see.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.jsonc' },
      miniflare: {
        bindings: {
          API_KEYS: 'test-client-key,second-client-key',
          SECOND_CLIENT_API_KEYS: 'other-client-key',
          RESELLER_API_KEYS: 'test-reseller-key',
          JWT_SECRET: 'test-jwt-secret-0123456789',
          EMULATOR_ADMIN: 'true',
          SEED: '42',
          TASK_STEP_MS: '60',
          DNS_RATE_LIMIT: '3/2s',
        },
      },
    }),
  ],
  // The first request of a file seeds 10,000 WAAP events in the Durable Object: seconds on a
  // busy 2-core machine, while every package's tests run at once. Not a speed check.
  test: { include: ['src/**/*.test.ts'], testTimeout: 30_000 },
})
