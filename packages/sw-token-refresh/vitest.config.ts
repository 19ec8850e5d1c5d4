import { defineConfig } from 'vitest/config'

// The worker logic runs on Node's fetch, Request and MessageChannel; page tests opt into
// happy-dom with a `@vitest-environment` comment.
export default defineConfig({ test: { include: ['src/**/*.test.ts'] } })
