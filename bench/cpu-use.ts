/**
 * Where the machine's CPU went during a timed phase of a bench, by role, read from `/proc`
 * before and after (nothing samples during the phase, so measuring costs the phase nothing).
 *
 * Roles: the database server (`mariadbd`, every `postgres` process), the product's server nodes,
 * the worker processes, this harness, everything else, and idle (from `/proc/stat`). A process
 * that starts and ends inside the phase is not seen; every process of these benches lives
 * across it (PostgreSQL's backends are one per connection, opened before the clock starts).
 * Each role's kernel (system) time is kept apart as well: on hosts where entering the kernel is
 * dear (a hypervisor that traps it), the systems compared spend very different shares there
 * (docs/design/hot-path.md §46). So is the time the hypervisor took from the machine's cores
 * (`/proc/stat`'s steal): on an oversubscribed host a drain's pace moves with it while the
 * roles' CPU a job does not, since a guest kernel with steal accounting charges no process for
 * it (docs/design/hot-path.md §54). And each role's sleeps: the times its threads waited and were
 * woken (`voluntary_ctxt_switches` of each thread, taken thread by thread, so a thread that ends
 * in the phase loses only its own count in it and the others' are not netted against its past),
 * the hand-offs between processes that dear wake-ups make dear (docs/design/hot-path.md §62).
 * Linux only; elsewhere `snapshot` answers undefined and the report says n/a.
 */
import { readFileSync, readdirSync } from 'node:fs';

export type Role = 'database' | 'server' | 'workers' | 'harness' | 'other';

export interface CpuSnapshot {
  /**
   * Per pid: command name, parent pid, user + system clock ticks, system ticks alone, and each of
   * its threads' voluntary context switches, by thread id.
   */
  readonly processes: ReadonlyMap<number, ProcessTicks>;
  /** Idle + iowait ticks of the whole machine, and the ticks the hypervisor took. */
  readonly idle: number;
  readonly steal: number;
}

interface ProcessTicks {
  readonly comm: string;
  readonly ppid: number;
  readonly ticks: number;
  readonly kernelTicks: number;
  readonly sleeps: ReadonlyMap<number, number>;
}

/**
 * CPU seconds of each role over the phase, the machine's idle seconds and the seconds the
 * hypervisor took (all cores), of each role's seconds those spent in the kernel, and each role's
 * sleeps (voluntary context switches).
 */
export type CpuUse = Readonly<Record<Role | 'idle' | 'stolen', number>> & {
  readonly kernel: Readonly<Record<Role, number>>;
  readonly sleeps: Readonly<Record<Role, number>>;
};

/** Clock ticks per second (`getconf CLK_TCK`): 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/**
 * Seconds the hypervisor has taken from all the machine's cores since boot (`/proc/stat`'s
 * steal), or undefined where there is no `/proc/stat`.
 */
export function stolenSeconds(): number | undefined {
  const ticks = machineTicks();
  return ticks === undefined ? undefined : ticks.steal / TICKS_PER_SECOND;
}

/** The first line of `/proc/stat`: idle + iowait ticks and steal ticks; undefined off Linux. */
function machineTicks(): { idle: number; steal: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const cpu = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  return {
    idle: (cpu[3] ?? 0) + (cpu[4] ?? 0),
    // After user, nice, system, idle, iowait, irq and softirq.
    steal: cpu[7] ?? 0,
  };
}

export function snapshot(): CpuSnapshot | undefined {
  const machine = machineTicks();
  if (machine === undefined) {
    return undefined;
  }
  const processes = new Map<number, ProcessTicks>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may itself hold spaces or parentheses.
      const close = text.lastIndexOf(')');
      const comm = text.slice(text.indexOf('(') + 1, close);
      const fields = text.slice(close + 2).split(' ');
      // After the name: state(0) ppid(1) … utime(11) stime(12).
      processes.set(Number(name), {
        comm,
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        kernelTicks: Number(fields[12]),
        sleeps: threadSleeps(name),
      });
    } catch {
      // The process ended while the folder was read.
    }
  }
  return { processes, ...machine };
}

/** The voluntary context switches of each of a process's threads; none where none can be read. */
function threadSleeps(pid: string): Map<number, number> {
  const sleeps = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return sleeps;
  }
  for (const tid of tids) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      sleeps.set(Number(tid), Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0));
    } catch {
      // The thread ended while its process was read.
    }
  }
  return sleeps;
}

/**
 * A process's sleeps between two readings, thread by thread: a thread alive at both counts its
 * difference, one started in the phase its whole count, one that ended in the phase nothing
 * (its sleeps in the phase are lost with it, a little under the truth; summing the threads
 * instead would subtract its whole past from the survivors').
 */
function sleepsBetween(
  was: ReadonlyMap<number, number> | undefined,
  now: ReadonlyMap<number, number>,
): number {
  let sum = 0;
  for (const [tid, count] of now) {
    const before = was?.get(tid) ?? 0;
    // A count below the earlier one is a new thread that was given an ended one's id.
    sum += count >= before ? count - before : count;
  }
  return sum;
}

/**
 * CPU seconds per role between two snapshots. `servers` and `workers` are the pids the harness
 * started; their descendants count with them.
 */
export function cpuUse(
  before: CpuSnapshot | undefined,
  after: CpuSnapshot | undefined,
  pids: { readonly servers: readonly number[]; readonly workers: readonly number[] },
): CpuUse | undefined {
  if (before === undefined || after === undefined) {
    return undefined;
  }
  const none = (): Record<Role, number> => ({
    database: 0,
    server: 0,
    workers: 0,
    harness: 0,
    other: 0,
  });
  const use: Record<Role | 'idle' | 'stolen', number> = {
    ...none(),
    idle: (after.idle - before.idle) / TICKS_PER_SECOND,
    stolen: (after.steal - before.steal) / TICKS_PER_SECOND,
  };
  const kernel = none();
  const sleeps = none();
  const roleOf = (pid: number): Role => {
    for (let p = pid, hops = 0; p > 1 && hops < 16; hops++) {
      if (pids.servers.includes(p)) {
        return 'server';
      }
      if (pids.workers.includes(p)) {
        return 'workers';
      }
      const parent = after.processes.get(p)?.ppid;
      if (parent === undefined) {
        break;
      }
      p = parent;
    }
    const comm = after.processes.get(pid)?.comm ?? '';
    if (comm === 'mariadbd' || comm === 'mysqld' || comm === 'postgres') {
      return 'database';
    }
    return pid === process.pid ? 'harness' : 'other';
  };
  for (const [pid, now] of after.processes) {
    const was = before.processes.get(pid);
    const same = was?.comm === now.comm;
    const role = roleOf(pid);
    use[role] += (now.ticks - (same ? was.ticks : 0)) / TICKS_PER_SECOND;
    kernel[role] += (now.kernelTicks - (same ? was.kernelTicks : 0)) / TICKS_PER_SECOND;
    sleeps[role] += sleepsBetween(same ? was.sleeps : undefined, now.sleeps);
  }
  return { ...use, kernel, sleeps };
}
