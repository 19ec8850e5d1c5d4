import { defineConfig } from 'vitest/config'

// The repository scripts' own tests (a project of the root vitest.config.ts)
export default defineConfig({ test: { name: 'scripts', include: ['**/*.test.mjs'] } })
