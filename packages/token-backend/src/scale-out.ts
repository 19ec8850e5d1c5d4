// When a Node process is one of several instances (INSTANCES, a Node cluster worker, a PM2
// instance) and keeps state the others would need: serveTokenApp then warns, at start, that
// without REDIS_URL each instance counts limits and revocations on its own.
import cluster from 'node:cluster'
import { ConfigError, type TokenBackendConfig } from './config.ts'

/** `INSTANCES`, validated: a whole number, 1 or more; unset is 1. */
export function instancesFrom(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.INSTANCES
  if (text === undefined || text === '') return 1
  if (!/^[1-9]\d{0,3}$/.test(text))
    throw new ConfigError('INSTANCES', 'must be a whole number of instances, 1 or more')
  return Number(text)
}

/** Whether this process is one of several: counted, or a Node cluster / PM2 cluster worker. */
export function scaledOut(instances: number): boolean {
  return instances > 1 || cluster.isWorker || process.env.NODE_APP_INSTANCE !== undefined
}

/** Whether the app keeps anything per process that several instances would need to share. */
export function holdsState({ session, rateLimit, streams }: TokenBackendConfig): boolean {
  return session !== undefined || rateLimit.requests !== undefined || streams !== undefined
}
