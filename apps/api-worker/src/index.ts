export { type ApiApp, createApiApp } from './app.ts'
export type { ApiEnv, Principal } from './env.ts'
export { ApiError, type ErrorFamily, errorFamily } from './errors.ts'
