export { fetchToken, serverDateOf, TokenFetchError, withServerDate } from './fetch-token.ts'
export { assertTokenRecord } from './token-record.ts'
export { TokenRefresher } from './token-refresher.ts'
export type {
  Clock,
  TimerHandle,
  Timers,
  TokenRecord,
  TokenRefreshOptions,
  Visibility,
} from './types.ts'
export { urlRewriter } from './url-rewriter.ts'
