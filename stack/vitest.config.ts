import { defineConfig } from 'vitest/config'

// The stack's own helpers in Node (a project of the root vitest.config.ts)
export default defineConfig({ test: { name: 'stack', include: ['*.test.ts'] } })
