import { defineConfig } from 'vitest/config'

// The deployable's own tests, in Node: its Node entry started as users start it, and the
// README's curl examples against `wrangler dev` on its wrangler.jsonc. The library's tests are
// @proj/token-backend's.
export default defineConfig({
  test: {
    name: 'token-worker',
    // The backend's own lines that these tests provoke on purpose: the AUTH_MODE=none warning
    // (asserted by @proj/token-backend's tests) and a configuration error (its 500 is asserted
    // here). A green run prints neither; anything else still shows.
    onConsoleLog: (log) =>
      !/^(token-backend: AUTH_MODE is "none"|server misconfigured: )/.test(log),
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // each test starts real processes (Node servers, wrangler dev): seconds each on a busy
    // 2-core machine while every package's tests run at once. Not a speed check.
    testTimeout: 30_000,
    hookTimeout: 70_000,
  },
})
