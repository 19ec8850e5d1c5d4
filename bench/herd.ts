/**
 * The live-event herd, simulated: N viewers join within a few seconds of a live start, each with
 * the real TokenRefresher on a simulated clock, against a counting token backend. Prints the
 * token requests per second (refreshes; the joins themselves are reported apart), peak/mean,
 * with the default spread and without it (`refreshSpreadSeconds: 0`, the old lockstep).
 *
 * `VIEWERS` and `HOURS` change it; quick mode (`BENCH_QUICK=1`, what `npm test` runs): 1,000
 * viewers, 10 minutes.
 */

import {
  type TimerHandle,
  type Timers,
  type TokenRecord,
  TokenRefresher,
  withServerDate,
} from '@proj/token-refresh'
import { quick, report, stamp, table } from './report.ts'

const viewers = Number(process.env.VIEWERS ?? (quick ? 1000 : 10_000))
const seconds = Math.round(Number(process.env.HOURS ?? (quick ? 1 / 6 : 1)) * 3600)
const lifetime = 60
const lead = 15
const joinWindow = 5

/** mulberry32: seeded, so every run simulates the same audience. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** One simulated clock for the whole audience: a binary heap of timers. */
const simulation = (start: number) => {
  let now = start
  let sequence = 0
  const heap: { at: number; id: number; callback: () => void }[] = []
  const cancelled = new Set<number>()
  const push = (entry: (typeof heap)[number]) => {
    heap.push(entry)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      const a = heap[parent]
      const b = heap[i]
      if (!a || !b || a.at < b.at || (a.at === b.at && a.id < b.id)) break
      heap[parent] = b
      heap[i] = a
      i = parent
    }
  }
  const pop = () => {
    const top = heap[0]
    const last = heap.pop()
    if (heap.length > 0 && last) {
      heap[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        const before = (x: number, y: number) => {
          const p = heap[x]
          const q = heap[y]
          return !!p && !!q && (p.at < q.at || (p.at === q.at && p.id < q.id))
        }
        if (l < heap.length && before(l, m)) m = l
        if (r < heap.length && before(r, m)) m = r
        if (m === i) break
        const a = heap[i]
        const b = heap[m]
        if (!a || !b) break
        heap[i] = b
        heap[m] = a
        i = m
      }
    }
    return top
  }
  const timers: Timers = {
    set: (callback, ms) => {
      const id = ++sequence
      push({ at: now + Math.max(0, ms), id, callback })
      return id as unknown as TimerHandle
    },
    clear: (handle) => {
      cancelled.add(handle as unknown as number)
    },
  }
  // setImmediate runs after every pending promise job: the refresher's async steps settle
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve))
  return {
    clock: { now: () => now },
    timers,
    async runUntil(end: number) {
      for (;;) {
        const next = heap[0]
        if (!next || next.at > end) break
        pop()
        if (cancelled.delete(next.id)) continue
        now = next.at
        next.callback()
        await settle()
      }
      now = end
    },
  }
}

const simulate = async (spread: number | undefined) => {
  const start = Date.UTC(2026, 10, 23, 20)
  const sim = simulation(start)
  const random = seeded(42)
  const perSecond = new Uint32Array(seconds + 1)
  let joins = 0
  const getToken = async (): Promise<TokenRecord> => {
    const now = sim.clock.now()
    const second = Math.floor((now - start) / 1000)
    if (second < perSecond.length) perSecond[second] = (perSecond[second] ?? 0) + 1
    const expires = Math.floor(now / 1000) + lifetime
    const url = `https://cdn.test/videos/1_live/tokentoken/${expires}/master.m3u8`
    return withServerDate(
      {
        token: 'tokentoken',
        token_ip: 'tokentoken',
        client_ip: '203.0.113.7',
        expires,
        url,
        url_ip: url,
      },
      now,
    )
  }
  const refreshers: Promise<TokenRefresher>[] = []
  for (let i = 0; i < viewers; i++) {
    sim.timers.set(
      () => {
        joins++
        refreshers.push(
          TokenRefresher.create({
            getToken,
            refreshLeadSeconds: lead,
            ...(spread !== undefined && { refreshSpreadSeconds: spread }),
            clock: sim.clock,
            timers: sim.timers,
            random,
            visibility: null,
            peers: null, // separate viewers, separate pages
          }),
        )
      },
      random() * joinWindow * 1000,
    )
  }
  await sim.runUntil(start + seconds * 1000)
  for (const refresher of await Promise.all(refreshers)) refresher.destroy()
  // the join seconds are the audience arriving (one initial fetch each), not refreshes
  const steady = Array.from(perSecond.subarray(joinWindow + 1, seconds))
  const total = steady.reduce((sum, n) => sum + n, 0)
  const mean = total / steady.length
  const peak = Math.max(...steady)
  return { joins, mean, peak, perViewerHour: (total / viewers) * (3600 / steady.length), steady }
}

const histogram = (steady: number[]) => {
  const counts = new Map<number, number>()
  const width = Math.max(1, Math.round(Math.max(...steady) / 12))
  for (const n of steady)
    counts.set(Math.floor(n / width) * width, (counts.get(Math.floor(n / width) * width) ?? 0) + 1)
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([from, n]) => `${from}–${from + width - 1}/s: ${n} s`)
    .join(', ')
}

const started = performance.now()
const runs = [
  ['default spread (lead/4, first cycle wide)', undefined],
  ['no spread (refreshSpreadSeconds: 0)', 0],
] as const
const results = []
for (const [name, spread] of runs) results.push([name, await simulate(spread)] as const)
const spreadRatio = (results[0]?.[1].peak ?? 0) / (results[0]?.[1].mean ?? 1)
report(
  'herd',
  `${stamp(`${viewers.toLocaleString('en')} viewers joining within ${joinWindow} s, ${lifetime}-s tokens, ${lead}-s lead, ${seconds} simulated seconds, ${((performance.now() - started) / 1000).toFixed(0)} s of wall time`)}

${table(
  [
    'refresh timing',
    'peak req/s',
    'mean req/s',
    'peak/mean',
    'fetches per viewer-hour',
    'ideal 3600/(lifetime − lead)',
  ],
  results.map(([name, result]) => [
    name,
    result.peak.toLocaleString('en'),
    result.mean.toFixed(1),
    (result.peak / result.mean).toFixed(2),
    result.perViewerHour.toFixed(1),
    (3600 / (lifetime - lead)).toFixed(1),
  ]),
)}

Histogram (seconds that saw that many refreshes):

${results.map(([name, result]) => `- ${name}: ${histogram(result.steady)}`).join('\n')}

Goal (issue 13): peak/mean ≤ 1.5 with the spread: **${spreadRatio.toFixed(2)}**, ${spreadRatio <= 1.5 ? 'met' : 'not met'}.`,
)
