import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type RecordedWatch, WATCHES_DIR } from '@proj/e2e/watches'
import { report, stamp, table } from '../report.ts'

// Refresh efficiency from the e2e runs: every watched playback of the last `npm test` / `pnpm
// e2e` (e2e/support/demo.ts records them), grouped by scenario. Fetches per playback hour against
// the ideal 3600 / (lifetime − lead), and stalls (over a second without progress while playing),
// with those that a refused token (403/410) came with. Scenarios that inject faults on purpose
// (outages, refused secrets, no refresh, sleeping tabs) are listed apart: their stalls are the
// fault's, and the goal of 0 is for the others.
const dir = WATCHES_DIR
const FAULTS = new Set([
  'long-outage.spec.ts',
  'backend-hiccups.spec.ts',
  'secret-rotation.spec.ts',
  'without-refresh.spec.ts',
  'sleep-and-background.spec.ts',
  'wrong-clock.spec.ts',
])

type Watch = RecordedWatch
const watches: Watch[] = existsSync(dir)
  ? readdirSync(dir)
      .filter((name) => name.endsWith('.jsonl'))
      .flatMap((name) =>
        readFileSync(join(dir, name), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Watch),
      )
  : []
if (watches.length === 0) {
  console.error(
    `refresh-efficiency: no e2e watches in ${dir}: run the e2e suite first (pnpm e2e or npm test)`,
  )
  process.exit(1)
}

const settings = (watch: Watch) => {
  const query = new URL(watch.page).searchParams
  return {
    lifetime: Number(query.get('expire') ?? 20),
    lead: Number(query.get('lead') ?? 6),
    refresh: query.get('refresh') !== '0',
  }
}

interface Group {
  scenario: string
  player: string
  lifetime: number
  lead: number
  wallMs: number
  fetches: number
  stalls: number
  tokenStalls: number
  fault: boolean
}
const groups = new Map<string, Group>()
for (const watch of watches) {
  const { lifetime, lead, refresh } = settings(watch)
  if (!refresh) continue // refresh=0 pages fetch no tokens by design
  const key = `${watch.file}|${watch.player}|${lifetime}|${lead}`
  const group = groups.get(key) ?? {
    scenario: watch.file.replace('.spec.ts', ''),
    player: `${watch.player}${watch.mode && watch.mode !== 'hooks' ? ` (${watch.mode})` : ''}`,
    lifetime,
    lead,
    wallMs: 0,
    fetches: 0,
    stalls: 0,
    tokenStalls: 0,
    fault: FAULTS.has(watch.file),
  }
  group.wallMs += watch.wallMs
  group.fetches += watch.fetches
  group.stalls += watch.stalls.length
  group.tokenStalls += watch.stalls.filter((stall) => stall.token).length
  groups.set(key, group)
}

const rows = (fault: boolean) => {
  const found = [...groups.values()]
    .filter((group) => group.fault === fault)
    .sort((a, b) => a.scenario.localeCompare(b.scenario) || a.player.localeCompare(b.player))
    .map((group) => {
      const hours = group.wallMs / 3_600_000
      const ideal = 3600 / (group.lifetime - group.lead)
      const perHour = group.fetches / hours
      return [
        group.scenario,
        group.player,
        `${group.lifetime} s / ${group.lead} s`,
        (group.wallMs / 60_000).toFixed(1),
        perHour.toFixed(0),
        ideal.toFixed(0),
        `${(perHour / ideal).toFixed(2)}×`,
        String(group.stalls),
        String(group.tokenStalls),
      ]
    })
  return found.length > 0 ? found : [['(none in this run)', '', '', '', '', '', '', '', '']]
}
const header = [
  'scenario',
  'player',
  'lifetime / lead',
  'minutes watched',
  'fetches per hour',
  'ideal',
  'vs ideal',
  'stalls',
  'of them with a refused token',
]
const clean = [...groups.values()].filter((group) => !group.fault)
const tokenStalls = clean.reduce((sum, group) => sum + group.tokenStalls, 0)
const totalHours = clean.reduce((sum, group) => sum + group.wallMs, 0) / 3_600_000
const weighted =
  clean.reduce((sum, group) => sum + group.fetches, 0) /
  clean.reduce(
    (sum, group) => sum + (group.wallMs / 3_600_000) * (3600 / (group.lifetime - group.lead)),
    0,
  )
report(
  'refresh-efficiency',
  `${stamp(`the e2e run's ${watches.length} watched playbacks (real Chromium, nginx), ${(totalHours * 60).toFixed(0)} minutes without injected faults`)}

${table(header, rows(false))}

With faults injected on purpose (their stalls are the fault's):

${table(header, rows(true))}

Goals (issue 12): stalls attributed to tokens without injected faults: **${tokenStalls}** (goal 0,
${tokenStalls === 0 ? 'met' : 'NOT met'}); fetches against the ideal, all such watches together: **${weighted.toFixed(2)}×**
(one fetch per lifetime − lead is the floor; a watch of a minute counts its first refresh, and the
spread of issue 13 refreshes up to lead/4 earlier).`,
)
