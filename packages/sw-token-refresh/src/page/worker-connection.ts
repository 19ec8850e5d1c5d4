import { isStreamRefusal, type TokenRefresher } from '@proj/token-refresh'
import {
  type Answer,
  ask,
  isProtocolMessage,
  type RecordEntry,
  type Seen,
  type WorkerQuestion,
} from '../protocol.ts'

/** The part of `navigator.serviceWorker` a connection uses. */
export type WorkerContainer = Pick<
  ServiceWorkerContainer,
  'controller' | 'addEventListener' | 'removeEventListener' | 'startMessages'
>

const entryOf = (refresher: TokenRefresher): RecordEntry => ({
  record: refresher.record,
  ipBound: refresher.ipBound,
  staleAt: refresher.staleAt,
  expiresAt: refresher.expiresAt,
  cdnTimeoutMs: refresher.cdnTimeoutMs,
})

/**
 * A page's connection to the token refresh service worker (from `registerTokenRefreshWorker`):
 * pushes every record of the refreshers it protects and answers the worker's questions (which
 * records this page holds, refresh now, recover after a 403/410), each through the core.
 *
 * @example
 * ```ts
 * const worker = await registerTokenRefreshWorker()
 * const release = await worker.protect(refresher)
 * video.src = refresher.url // every request of this video now leaves on the current pair
 * ```
 */
export class TokenRefreshWorker {
  #container: WorkerContainer
  #refreshers = new Map<TokenRefresher, () => void>()

  constructor(container: WorkerContainer) {
    this.#container = container
    container.addEventListener('message', this.#answer)
    // a worker that was updated (a new controller) knows nothing yet
    container.addEventListener('controllerchange', this.#pushAll)
    container.startMessages()
  }

  /**
   * Puts `refresher`'s video under the worker's protection: its record now, and each new one.
   * Resolves once the worker has it (or after 1 s), with the function that ends it. When the
   * token backend refuses the stream (a `StreamLimitError`) the worker forgets the video: its
   * requests go out on the element's own pair, refused once that expired, and the element fails
   * instead of waiting for a record that will not come.
   */
  async protect(refresher: TokenRefresher): Promise<() => void> {
    const push = () => void this.#push(refresher)
    const onError = (event: Event) => {
      if (isStreamRefusal((event as CustomEvent<unknown>).detail)) release()
    }
    refresher.addEventListener('tokenrefreshed', push)
    refresher.addEventListener('error', onError)
    const release = () => {
      refresher.removeEventListener('tokenrefreshed', push)
      refresher.removeEventListener('error', onError)
      if (!this.#refreshers.delete(refresher)) return
      this.#container.controller?.postMessage({ kind: 'token-refresh:forget', url: refresher.url })
    }
    this.#refreshers.set(refresher, release)
    await this.#push(refresher)
    return release
  }

  /** How many requests of `url`'s video the worker has moved onto a pair, or `undefined`. */
  seen(url: string): Promise<Seen | undefined> {
    const worker = this.#container.controller
    return worker
      ? ask<Seen>(worker, { kind: 'token-refresh:seen', url }, 1000)
      : Promise.resolve(undefined)
  }

  /** Releases every protected video and stops answering the worker. */
  destroy(): void {
    for (const release of [...this.#refreshers.values()]) release()
    this.#container.removeEventListener('message', this.#answer)
    this.#container.removeEventListener('controllerchange', this.#pushAll)
  }

  #push(refresher: TokenRefresher): Promise<unknown> {
    const worker = this.#container.controller
    if (!worker) return Promise.resolve(undefined)
    return ask(worker, { kind: 'token-refresh:record', entry: entryOf(refresher) }, 1000)
  }

  #pushAll = () => {
    for (const refresher of this.#refreshers.keys()) void this.#push(refresher)
  }

  #answer = (event: Event) => {
    const { data, ports } = event as MessageEvent<unknown>
    const port = ports[0]
    if (!port || !isProtocolMessage(data)) return
    void this.#reply(data as WorkerQuestion).then((answer) => port.postMessage(answer))
  }

  async #reply(question: WorkerQuestion): Promise<Answer> {
    const refreshers = [...this.#refreshers.keys()]
    if (question.kind === 'token-refresh:records') return { entries: refreshers.map(entryOf) }
    const owner = refreshers.find((refresher) => refresher.owns(question.url))
    if (!owner) return { entries: [] }
    const retry =
      question.kind === 'token-refresh:recover'
        ? owner.recover(question.url, question.status)
        : true
    // waits for a due refresh, or for the one recover() started (bounded by maxWaitMs)
    if (retry) await owner.prepare(question.url)
    return { entries: [entryOf(owner)], retry }
  }
}
