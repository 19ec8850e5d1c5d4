import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'

/** Where util-linux puts it (Debian); without it nothing is pinned. */
const TASKSET = '/usr/bin/taskset'

/**
 * Which CPUs the server under test gets and which everything else gets (the load generator, a
 * Redis server): on a machine of two cores, three busy processes otherwise share two CPUs, and
 * how much of its core a server keeps depends on the scheduler, not on the server. Production
 * runs its Redis on another machine; pinning gives the instance a CPU of its own, as it has there.
 * `undefined` on one CPU or without `taskset` (the runs are then not pinned, and say so).
 *
 * @example
 * ```ts
 * const split = cpuSplit() // { server: '0', rest: '1' } on two cores
 * ```
 */
export function cpuSplit(): { server: string; rest: string } | undefined {
  const [server, ...rest] = allowedCpus()
  if (server === undefined || rest.length === 0) return undefined
  if (!existsSync(TASKSET) || process.env.BENCH_PIN === '0') return undefined
  return { server: String(server), rest: rest.join(',') }
}

/**
 * The CPUs this process may run on (a container's cpuset may leave out CPU 0): /proc's
 * `Cpus_allowed_list` ("0-1", "2,4-5"), else every CPU the OS counts.
 */
function allowedCpus(): number[] {
  let list: string | undefined
  try {
    list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
  } catch {
    // not Linux
  }
  if (list === undefined) return cpus().map((_, i) => i)
  return list.split(',').flatMap((part) => {
    const [from = Number.NaN, to = from] = part.split('-').map(Number)
    return Array.from({ length: to - from + 1 }, (_, i) => from + i)
  })
}

/**
 * The command that runs `args` on `cpuList` (`taskset -c`), or `args` as they are without one.
 *
 * @example
 * ```ts
 * spawn(...pinnedCommand('0', [process.execPath, 'server.js']))
 * ```
 */
export function pinnedCommand(
  cpuList: string | undefined,
  [command, ...args]: readonly [string, ...string[]],
): [string, string[]] {
  return cpuList === undefined ? [command, args] : [TASKSET, ['-c', cpuList, command, ...args]]
}

/**
 * Moves a running process, all its threads, onto `cpuList` (`taskset -a -p -c`).
 *
 * @example
 * ```ts
 * pinProcess(process.pid, '1') // the load generator off the server's CPU
 * ```
 */
export function pinProcess(pid: number, cpuList: string): void {
  execFileSync(TASKSET, ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' })
}

let ticksPerSecond: number | undefined

/**
 * The CPU time (user + system) a process has used so far, in µs, from `/proc/<pid>/stat`;
 * `undefined` where there is no /proc.
 *
 * @example
 * ```ts
 * const before = cpuMicros(server.pid)
 * // … load …
 * const used = (cpuMicros(server.pid) ?? 0) - (before ?? 0)
 * ```
 */
export function cpuMicros(pid: number): number | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // fields after the command name (which may hold spaces): state is the 3rd, utime the 14th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6
}
