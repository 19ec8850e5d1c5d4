/**
 * The token backend's shared state in Redis (`@proj/token-backend/redis`), for several Node
 * instances behind one balancer. A separate entry: it needs the `redis` package (an optional peer
 * dependency) and Node, and a Worker's bundle never sees it.
 */
export { type ConnectRedisOptions, connectRedis, type RedisClient } from './connect-redis.ts'
export { connectRedisCluster, type RedisClusterClient } from './connect-redis-cluster.ts'
export { type RedisCommandClient, redisCommand } from './redis-command.ts'
export { redisLimit } from './redis-limit.ts'
export { type RedisStoreOptions, redisSessionStore } from './redis-session-store.ts'
export { type RedisStreamStoreOptions, redisStreamStore } from './redis-stream-store.ts'
// also in the main entry (`@proj/token-backend`), where the app answers it with a 503
export { StoreUnavailableError } from './store-unavailable.ts'
