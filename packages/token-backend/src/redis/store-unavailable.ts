// The error lives beside the app (runtime-agnostic, answered 503 by `handleError`); the Redis
// entry keeps offering it under its old path.
export { StoreUnavailableError } from '../store-unavailable.ts'
