import { Agent, fetch as undiciFetch } from 'undici'

const agents = new Map<string, Agent>()

/**
 * `fetch` from a loopback address of your choice (any of 127.0.0.0/8 is this machine's on
 * Linux): a viewer on another "network" as the server's socket sees it, headers untouched. One
 * connection pool per address.
 *
 * @example
 * ```ts
 * const res = await fetchFrom('127.0.0.7', `${base}/token?video=demo`)
 * ```
 */
export async function fetchFrom(
  localAddress: string,
  url: string,
  init: {
    headers?: Record<string, string>
    method?: string
    body?: string
    redirect?: 'manual'
  } = {},
): Promise<Response> {
  let agent = agents.get(localAddress)
  if (agent === undefined) {
    agent = new Agent({ localAddress })
    agents.set(localAddress, agent)
  }
  return (await undiciFetch(url, { ...init, dispatcher: agent })) as unknown as Response
}

/** Closes every pool {@link fetchFrom} opened (an `afterAll`). */
export async function closeAddresses(): Promise<void> {
  await Promise.all([...agents.values()].map((agent) => agent.close()))
  agents.clear()
}
