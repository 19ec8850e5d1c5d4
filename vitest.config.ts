import { defineConfig } from 'vitest/config'

// One run for every package's tests (`pnpm test:unit`, and the tests step of `npm test`): each
// package keeps its own config (environment, workerd pool), listed here as a project.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'scripts/vitest.config.mjs',
      'stack/vitest.config.ts',
    ],
  },
})
