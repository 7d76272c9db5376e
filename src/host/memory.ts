/**
 * The memory budget of one run (a batch of control cases): the sum of what all the run's processes
 * hold, where the address-space limit (`prlimit --as`) bounds each process alone (ten forked 900 MiB
 * children stayed under it one by one and held 2.4–2.8 GiB together).
 *
 * Two mechanisms, the first one this machine offers:
 *  - `cgroup`: a cgroup v2 of the run's own, made under a cgroup delegated to vaudit (its own cgroup
 *    when that enables the `memory` and `pids` controllers for its children and vaudit may write it,
 *    or the folder `VAUDIT_CGROUP` names), with `memory.max` = the budget, `memory.swap.max` = 0 and
 *    `pids.max` = the process bound (which binds root, unlike RLIMIT_NPROC). The run's first process
 *    joins it before it runs anything (a shell writes its own pid into `cgroup.procs`, then execs),
 *    so every process the run starts is in it, whatever session or group it moves to. The kernel
 *    holds the sum; the host reads `memory.events` and ends the run at the first OOM kill in it.
 *  - `proc-accounting`: no such cgroup (cgroup v1, or v2 without delegation, or no write access).
 *    The host sums, every 100 ms, the proportional set size (`Pss` of `/proc/<pid>/smaps_rollup`,
 *    else the resident set) of the run's processes: its first process's descendants and every
 *    process carrying the run's marker. Over the budget, the host kills the run. What can be
 *    allocated between two samples can exceed the budget for that long (each process stays under
 *    its address-space limit); a process that escaped both the tree and the marker (re-parented
 *    outside a PID namespace with a new environment) is not counted — but it dies with the run.
 *
 * Either way a run over its budget ends as a non-result (`crash`) whose detail says so: the case in
 * flight gets that reason, the batch's other cases are run again in a batch of their own.
 */
import { accessSync, constants as fsConstants, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type MemoryMechanism = 'cgroup' | 'proc-accounting';

/** What a run's record says about its memory budget. */
export interface MemoryBudgetRecord {
  budgetBytes: number;
  via: MemoryMechanism;
  /** The most the run's processes held together (sampled; the cgroup's own peak when it keeps one). */
  peakBytes: number;
  /** The run was ended for going over the budget. */
  exceeded?: boolean;
}

const MIB = 1024 * 1024;
export const mib = (n: number) => `${Math.round(n / MIB)} MiB`;

let delegated: string | null | undefined;

/** The cgroup v2 folder under which vaudit may make one cgroup per run with memory and pids limits, if any. */
export function delegatedCgroup(): string | undefined {
  if (delegated !== undefined) return delegated ?? undefined;
  delegated = findDelegated() ?? null;
  return delegated ?? undefined;
}

function findDelegated(): string | undefined {
  const named = process.env.VAUDIT_CGROUP;
  if (named) return usable(named) ? named : undefined;
  let own: string | undefined;
  let mount: string | undefined;
  try {
    own = readFileSync('/proc/self/cgroup', 'utf8').split('\n').find((l) => l.startsWith('0::'))?.slice(3);
    // mountinfo: id parent dev root mountpoint options [optional...] - fstype source superoptions
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [pre, post] = line.split(' - ');
      if (post?.split(' ')[0] !== 'cgroup2') continue;
      const f = pre!.split(' ');
      if (f[3] === '/') {
        mount = f[4];
        break;
      }
    }
  } catch {
    return undefined;
  }
  if (!own || !mount) return undefined;
  const dir = join(mount, own);
  if (usable(dir)) return dir;
  return undefined;
}

/** `dir` enables memory and pids for its children and vaudit may make a child cgroup in it. */
function usable(dir: string): boolean {
  try {
    const sub = readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    if (!sub.includes('memory') || !sub.includes('pids')) return false;
    accessSync(dir, fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** One run's cgroup: made before the run, its processes killed and the folder removed after. */
export class RunCgroup {
  private constructor(readonly dir: string) {}

  /** A cgroup for the run under `parent`, or undefined when it cannot be made with its limits. */
  static make(parent: string, name: string, budgetBytes: number, processes: number): RunCgroup | undefined {
    const dir = join(parent, name);
    try {
      mkdirSync(dir);
    } catch {
      return undefined;
    }
    const cg = new RunCgroup(dir);
    try {
      writeFileSync(join(dir, 'memory.max'), String(budgetBytes));
      writeFileSync(join(dir, 'pids.max'), String(processes));
    } catch {
      cg.remove();
      return undefined;
    }
    try {
      writeFileSync(join(dir, 'memory.swap.max'), '0');
    } catch {
      /* no swap accounting: memory.max still holds what is resident */
    }
    return cg;
  }

  /** The command prefix that puts the run's first process in the cgroup before it runs anything. */
  prefix(): string[] {
    const join = 'echo $$ > "$1/cgroup.procs" || { echo "vaudit: could not join the run\'s cgroup $1" >&2; exit 125; }\nshift\nexec "$@"';
    return ['/bin/sh', '-c', join, 'vaudit-cgroup', this.dir];
  }

  /** OOM kills in the cgroup so far (the budget was reached). */
  oomKills(): number {
    try {
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(join(this.dir, 'memory.events'), 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }

  /** What the run's processes hold now (or the cgroup's peak when `peak`). */
  bytes(peak = false): number {
    for (const f of peak ? ['memory.peak', 'memory.current'] : ['memory.current']) {
      try {
        return Number(readFileSync(join(this.dir, f), 'utf8').trim()) || 0;
      } catch {
        /* next */
      }
    }
    return 0;
  }

  /** Kill every process in the cgroup. */
  kill(): void {
    try {
      writeFileSync(join(this.dir, 'cgroup.kill'), '1');
      return;
    } catch {
      /* before Linux 5.14: one by one */
    }
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }

  private pids(): number[] {
    try {
      return readFileSync(join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Kill what is left and remove the folder (a cgroup with processes cannot be removed: retried briefly). */
  remove(): void {
    for (let i = 0; i < 50; i++) {
      try {
        rmdirSync(this.dir);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        this.kill();
        const until = Date.now() + 20;
        while (Date.now() < until) {
          /* the kernel reaps the killed processes */
        }
      }
    }
  }
}

const PAGE = 4096;

/** The memory a process holds: its proportional set size (shared pages split among their users),
 *  else its resident set. 0 when it is gone or unreadable. */
function processBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    /* no smaps_rollup (older kernels) or gone */
  }
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE || 0;
  } catch {
    return 0;
  }
}

/** The run's processes: `root`'s descendants (by parent pid) and every process whose environment
 *  carries `needle` (none when it is empty), with their descendants. */
export function runProcesses(root: number, needle: Buffer): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  const out = new Set<number>();
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    // never vaudit itself, its parent or the machine's init, whatever the tree or environments say
    if (pid === process.pid || pid === process.ppid || pid === 1) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      let list = children.get(ppid);
      if (!list) children.set(ppid, (list = []));
      list.push(pid);
    } catch {
      continue;
    }
    // (an empty needle would match every process on the machine)
    if (needle.length === 0) continue;
    try {
      if (readFileSync(`/proc/${e}/environ`).indexOf(needle) >= 0) out.add(pid);
    } catch {
      /* not readable: counted through the tree if it is in it */
    }
  }
  // the tree under the first process and under every marked process
  const stack = [root, ...out];
  out.add(root);
  while (stack.length) {
    for (const c of children.get(stack.pop()!) ?? []) {
      if (out.has(c)) continue;
      out.add(c);
      stack.push(c);
    }
  }
  return [...out];
}

/** The sum of what the run's processes hold now. */
export function accountedBytes(root: number, needle: Buffer): number {
  let sum = 0;
  for (const pid of runProcesses(root, needle)) sum += processBytes(pid);
  return sum;
}
