import type { StoredTask } from '../state/emulator-state.ts'
import { SECOND_CLIENT_ID } from './accounts.ts'
import { type Addendum, generateAddendums } from './addendums.ts'
import { type AiTask, generateAiTasks } from './ai-tasks.ts'
import { type EdgeApp, generateEdgeApps } from './edge-apps.ts'
import { generateLimitRequests, type LimitRequest } from './limit-requests.ts'
import { creatorTasks, generateNetworks, type Network } from './networks.ts'
import { createRng } from './rng.ts'
import {
  FIRST_TENANT,
  generateWaapDomains,
  generateWaapEvents,
  SECOND_TENANT,
  type WaapDomain,
  type WaapEvent,
} from './waap.ts'

/** What every isolate needs to build the same dataset: the seed and the instant it is relative to. */
export interface Generation {
  seed: number
  /** Epoch ms the generated data is relative to ("the last 30 days" end here). */
  epoch: number
}

/** Everything the read endpoints serve, generated from one seed relative to one epoch. */
export interface Dataset {
  generation: Generation
  networks: Network[]
  limitRequests: LimitRequest[]
  edgeApps: EdgeApp[]
  aiTasks: AiTask[]
  addendums: Addendum[]
  /** Every client's domains (each has its `client_id`). */
  waapDomains: WaapDomain[]
  /** Every client's events, newest first; an event's client is its domain's. */
  waapEvents: WaapEvent[]
  /** The client account of each domain ID, to scope events. */
  waapDomainOwner: Map<number, number>
  /** The same events by id, for the details endpoint. */
  waapEventsById: Map<string, WaapEvent>
  /** Seeded cloud tasks by id (the creators of the networks and subnets), beside the stored ones. */
  tasks: Map<string, StoredTask>
}

/**
 * Generates the whole dataset. Each family draws from its own stream (seed + family offset) so
 * adding data to one family never reshuffles another.
 *
 * @example
 * ```ts
 * const data = generateDataset({ seed: 42, epoch: Date.now() })
 * data.networks.length // 50
 * ```
 */
export function generateDataset(generation: Generation): Dataset {
  const { seed, epoch } = generation
  const stream = (offset: number) => createRng(seed * 1000 + offset)
  // The second client's domains, events and AI tasks come from streams of their own (8–10), so
  // client 1001's data is the same with or without them.
  const firstDomains = generateWaapDomains(stream(5), epoch, FIRST_TENANT)
  const secondDomains = generateWaapDomains(stream(8), epoch, SECOND_TENANT)
  const waapDomains = [...firstDomains, ...secondDomains]
  const waapEvents = [
    ...generateWaapEvents(stream(6), firstDomains, epoch, 10_000),
    ...generateWaapEvents(stream(9), secondDomains, epoch, 500),
  ].sort((a, b) => b.request_time - a.request_time)
  const networks = generateNetworks(stream(1), epoch)
  return {
    generation,
    networks,
    limitRequests: generateLimitRequests(stream(2), epoch),
    edgeApps: generateEdgeApps(stream(3), epoch),
    aiTasks: [
      ...generateAiTasks(stream(4), epoch),
      ...generateAiTasks(stream(10), epoch, { clientId: SECOND_CLIENT_ID, count: 40 }),
    ],
    addendums: generateAddendums(stream(7), epoch),
    waapDomains,
    waapEvents,
    waapDomainOwner: new Map(waapDomains.map((domain) => [domain.id, domain.client_id])),
    waapEventsById: new Map(waapEvents.map((event) => [event.id, event])),
    tasks: new Map(creatorTasks(networks).map((task) => [task.id, task])),
  }
}

const cache = new Map<string, Dataset>()

/**
 * {@link generateDataset}, memoised per isolate for the current generation only.
 *
 * @example
 * ```ts
 * const data = datasetFor(await state.generation(42))
 * ```
 */
export function datasetFor(generation: Generation): Dataset {
  const key = `${generation.seed}:${generation.epoch}`
  let data = cache.get(key)
  if (!data) {
    cache.clear()
    data = generateDataset(generation)
    cache.set(key, data)
  }
  return data
}
