/**
 * The host: the ONLY module of vaudit that starts processes (test/host-process-owner.test.ts
 * forbids `child_process` / `worker_threads` imports anywhere else in src/ and rules/).
 *
 * Tool authority (seed 000): a run names a tool by id; the host resolves the id itself
 * (`<root>/.toolchain/bin/<id>` first, then the host PATH), hashes the executable (sha256) and
 * rechecks those bytes just before it runs. Moved bytes → `sandbox`; an id it cannot resolve →
 * `verifierUnavailable`. Interpreters reached through a shim (pyenv) are probed once for their
 * real executable, which is what is hashed, bound and run; the selected command path is kept.
 *
 * Isolation, per run: an empty environment plus an explicit allowlist; a private temporary
 * directory (the cell: cwd, HOME and TMPDIR) removed afterwards; stdin from the request or
 * empty (a pipe closed at once, never this process's own descriptor 0); stdout/stderr bounded
 * (truncated with a flag, the rest drained and discarded);
 * a wall-clock limit enforced by SIGKILL to the whole process group, followed by a sweep of
 * /proc for any process still carrying the run's marker; rlimits (address space, CPU seconds,
 * file size, open files, processes) through util-linux `prlimit`.
 * Two levels:
 *  - `bwrap`: bubblewrap `--unshare-all --cap-drop ALL --die-with-parent --new-session --clearenv`,
 *    the code as uid 65534 (as root: no user namespace, setpriv drops to nobody), read-only
 *    binds of /usr, the interpreter prefix and the verifier sources, tmpfs /tmp, the cell bound
 *    read-write, no network (empty net namespace), no host HOME.
 *  - `process`: a detached process group in a PID namespace (unshare), env allowlist, prlimit,
 *    private cwd/HOME/TMPDIR; as root, homes hidden and the code run as nobody. It does NOT contain
 *    file-system writes or network access; records say so (`network: 'shared'`).
 * See src/host/README.md for the threat model.
 *
 * Policy (issue 17): code from the linted tree (verifier modules, bundles) and from its task files
 * (lambdas, expressions) is untrusted. `auto` (the default) and `bwrap` run such code only under
 * bubblewrap; without it the run is `sandbox` with the reason and the install hint, never a silent
 * downgrade. Process isolation for suite code is an explicit choice (`isolation: 'process'`). A run
 * that executes no suite code (`suiteCode: false`: vaudit's own code parsing untrusted text, git)
 * may use the process level under `auto`; its record says so.
 *
 * Outcomes: executed (ran to exit, any exit code) | verifierUnavailable | timeout | crash (spawn
 * failure, or death by a signal the host did not send) | sandbox (required isolation missing or
 * failed to set up, tool bytes moved, limits unavailable under a strict policy).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync, mkdirSync, chmodSync, accessSync, lchownSync, constants as fsConstants } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { accountedBytes, delegatedCgroup, mib, RunCgroup, runProcesses, type MemoryBudgetRecord } from './memory.js';

export type Outcome = 'executed' | 'verifierUnavailable' | 'timeout' | 'crash' | 'sandbox';
export type IsolationLevel = 'bwrap' | 'process';
export type IsolationPolicy = IsolationLevel | 'auto';

interface Limits {
  /** RLIMIT_AS in bytes (do not use for Node tools: V8 reserves address space). */
  memoryBytes?: number;
  /** RLIMIT_CPU in seconds. */
  cpuSeconds?: number;
  /** RLIMIT_FSIZE in bytes. */
  fileSizeBytes?: number;
  /** RLIMIT_NOFILE. */
  openFiles?: number;
  /** RLIMIT_NPROC (ignored by the kernel for root; the run's cgroup `pids.max` binds root too). */
  processes?: number;
  /** The sum of what all the run's processes hold (bytes): a cgroup's `memory.max` where one is
   *  delegated, else the host's accounting from /proc (src/host/memory.ts). Over it the run ends. */
  memoryBudgetBytes?: number;
}

const DEFAULT_LIMITS: Required<Limits> = {
  memoryBytes: 1024 * 1024 * 1024,
  cpuSeconds: 60,
  fileSizeBytes: 64 * 1024 * 1024,
  openFiles: 256,
  processes: 512,
  memoryBudgetBytes: 2 * 1024 * 1024 * 1024,
};

export interface ResolvedTool {
  id: string;
  /** The command path selected by id resolution (kept: two names may dispatch differently). */
  commandPath: string;
  /** The file that actually runs (symlinks resolved; an interpreter shim's real executable). */
  resolvedPath: string;
  sha256: string;
  /** `option`: the user named the executable (`--python PATH`, config `confirm.python`). */
  source: 'toolchain' | 'path' | 'option';
  /** Read-only directories the tool needs inside the sandbox (interpreter prefixes). */
  bindPaths: string[];
}

export interface RunRequest {
  caseId: string;
  /** For a batched run: every case it carries. */
  caseIds?: string[];
  ruleId: string;
  toolId: string;
  args: string[];
  /** Bytes for stdin; absent → empty (a pipe closed at once: reads see end of file). */
  stdin?: string | Buffer;
  /** Files written into the cell before the run (relative paths). `mode` e.g. 0o755 for stub tools. */
  files?: Record<string, string | { content: string | Buffer; mode?: number }>;
  /** Host paths the run may read (verifier sources): bound read-only under bwrap. */
  readOnlyPaths?: string[];
  /** Extra environment variables (the allowlist grant). `{cell}` in a value is replaced by the cell path. */
  env?: Record<string, string>;
  /** Cell-relative directories prepended to PATH (stub tools). */
  pathDirs?: string[];
  /** Absolute folders the run needs writable at their own path (file fixtures such as
   *  `/home/user/...`): under bwrap each is a fresh folder of the cell bound there; under `process`
   *  isolation the run is refused (`sandbox`): the host's real folder is never written. Listed to the
   *  run in `VAUDIT_FIXTURE_ROOTS`. */
  mounts?: string[];
  timeoutMs?: number;
  /** Per stream. */
  maxOutputBytes?: number;
  limits?: Limits;
  /** Stream stdout chunks as they arrive (bounded bytes only). */
  onStdout?: (chunk: Buffer) => void;
  /**
   * Whether the run executes code from the linted suite (verifier sources, bundles, task lambdas).
   * Default true: only a caller that runs nothing but vaudit's own code on the suite's text (a
   * compile, a regex parse) or a trusted tool (git) says false.
   */
  suiteCode?: boolean;
}

export interface RunRecord {
  runId: string;
  caseId: string;
  caseIds?: string[];
  ruleId: string;
  toolId: string;
  commandPath?: string;
  resolvedPath?: string;
  sha256?: string;
  argv: string[];
  /** The policy the run was asked for (`auto`, `bwrap`, `process`). */
  policy: IsolationPolicy;
  /** Whether the run executed code from the linted suite (see RunRequest.suiteCode). */
  suiteCode: boolean;
  isolation: IsolationLevel | 'none';
  network: 'none' | 'shared';
  limits: Limits | 'unavailable';
  outcome: Outcome;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  stdoutBytes: number;
  stderrBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Processes found and killed by the post-run sweep (escaped the group). */
  sweptProcesses: number;
  /** The uid the run's code ran as (65534 when vaudit, started as root, dropped privileges). */
  uid?: number;
  /** How the run's processes are held so none outlives it: a PID namespace (killed whole when its
   *  first process ends), or only the process group plus the marker sweep (no namespace available). */
  containment?: 'pid-namespace' | 'process-group';
  /** Absolute folders bound privately for the run (file fixtures), when any. */
  mounts?: string[];
  /** The run's memory budget (all its processes together), how it was held and the most they held. */
  memory?: MemoryBudgetRecord;
  /** Third-party modules this Python lacks that the run's cases were served instead (control cases):
   *  `functional` = vaudit's working double of the library (src/confirm/harness/vaudit_doubles),
   *  `import-time` = a stand-in that only lets the module load; with the cases that loaded each. */
  moduleDoubles?: Array<{ module: string; kind: 'functional' | 'import-time'; cases: string[] }>;
  /** Control cases: per case, its set-up (fixtures, doubles, importing its modules; off the case's
   *  clock; `sharedSetupMs`: the import it shared with the other cases of its verifier module, done
   *  once by their warm process) and the case itself (the call, on its own bound), in ms. */
  caseTimes?: Array<{ case: string; setupMs?: number; sharedSetupMs?: number; ms?: number }>;
  startedAt: string;
  detail?: string;
  /** What the user can do about a `sandbox` outcome (install bubblewrap, or choose process isolation). */
  hint?: string;
}

export interface RunResult {
  record: RunRecord;
  stdout: Buffer;
  stderr: Buffer;
}

export interface HostOptions {
  /** Project root: `.toolchain/bin` is looked up under it. */
  root: string;
  isolation?: IsolationPolicy;
  /** With `auto`: require bwrap (→ `sandbox` when missing) instead of using `process`. */
  requireIsolation?: boolean;
  /** PATH used for tool resolution (default: the host's PATH). */
  searchPath?: string;
  /** Override helper discovery (tests, or a machine with helpers elsewhere); `null` = absent. */
  helpers?: { bwrap?: string | null; prlimit?: string | null; setpriv?: string | null; unshare?: string | null };
  /** Started as root: run suite code as root under `process` isolation anyway (default: drop to
   *  uid 65534, or refuse when that user cannot reach the interpreter). Also `VAUDIT_PROCESS_AS_ROOT=1`. */
  processAsRoot?: boolean;
  /** The cgroup v2 folder under which each run gets a cgroup of its own (memory budget, process
   *  bound); default: the one delegated to vaudit, if any (src/host/memory.ts); `null`: none, the
   *  host accounts the runs' memory from /proc. */
  cgroup?: string | null;
  /** Executables the user named for tool ids (`{ python3: '/path/to/venv/bin/python' }`): used
   *  instead of `.toolchain/bin` and PATH; hashed and rechecked like any other. */
  tools?: Record<string, string>;
}

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Why an untrusted run did not start without bubblewrap (the reason a user sees). */
const NO_BWRAP_REASON = 'bubblewrap is not installed';
/** What to do about it. */
const NO_BWRAP_HINT =
  "install bubblewrap (e.g. 'apt-get install bubblewrap'), or choose process isolation explicitly with --isolation process " +
  "(not a sandbox: the suite's code could then write files and use the network)";
const MARKER_VAR = 'VAUDIT_RUN_MARKER';

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function isExecutableFile(path: string): boolean {
  try {
    const st = statSync(path);
    if (!st.isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Find a system helper (bwrap, prlimit) in fixed system directories only. */
function systemHelper(name: string): string | undefined {
  for (const d of ['/usr/bin', '/bin', '/usr/sbin', '/usr/local/bin']) {
    const p = join(d, name);
    if (isExecutableFile(p)) return p;
  }
  return undefined;
}

/** Find an executable on a PATH string (absolute directories only). */
function onPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    if (isExecutableFile(p)) return realpathSync(p);
  }
  return undefined;
}

/** Interpreter probes, per process: selected command path (+ its mtime and pyenv selection) → answer. */
const probeCache = new Map<string, string[] | null>();

let runSeq = 0;
function newRunId(): string {
  runSeq += 1;
  return `run-${process.pid}-${runSeq}-${randomBytes(3).toString('hex')}`;
}

/** What a process's environment (`/proc/<pid>/environ`) holds when it carries the run's marker. */
function markerNeedle(marker: string): Buffer {
  return Buffer.from(`${MARKER_VAR}=${marker}\0`);
}

/** Kill every process whose environment carries `marker` (children that left the group). */
function sweepMarker(marker: string): number {
  const needle = markerNeedle(marker);
  let killed = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${e}/environ`);
    } catch {
      continue;
    }
    if (env.indexOf(needle) >= 0) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        /* already gone */
      }
    }
  }
  return killed;
}

const NOBODY = 65534;

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** `p` is `root` or inside it. */
function within(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** The home folders a `process`-level run as root does not see (each replaced by an empty tmpfs). */
function hiddenRoots(): string[] {
  const roots = new Set(['/root', '/home']);
  for (const h of [homedir(), process.env.HOME]) if (h && isAbsolute(h) && h !== '/') roots.add(h);
  return [...roots].filter((r) => existsSync(r) && ![...roots].some((o) => o !== r && within(r, o)));
}

/** The first folder on the way to `p` that uid 65534 cannot pass (other-execute missing), or
 *  undefined; components inside a hidden root are recreated 0755 and only `p` itself is checked. */
function unreachableByNobody(p: string, hidden: string[]): string | undefined {
  if (!isAbsolute(p) || !existsSync(p)) return undefined;
  const parts = p.split('/').filter(Boolean);
  const h = hidden.find((r) => within(p, r));
  for (let i = 0; i <= parts.length; i++) {
    const q = `/${parts.slice(0, i).join('/')}`;
    if (h && within(q, h) && q !== p) continue;
    try {
      const st = statSync(q);
      if (st.isDirectory() && !(st.mode & 0o001)) return `${q} (mode ${(st.mode & 0o777).toString(8)})`;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Give a folder and everything in it to `uid` (symlinks themselves, never their targets). */
function chownTree(dir: string, uid: number): void {
  lchownSync(dir, uid, uid);
  for (const e of readdirSync(dir, { recursive: true, encoding: 'utf8' })) lchownSync(join(dir, e), uid, uid);
}

const userNamespaceProbe = new Map<string, boolean>();
/** Whether this user can make a user + PID namespace with `unshare` (probed once per helper). */
function userNamespaceWorks(unshare: string): boolean {
  let ok = userNamespaceProbe.get(unshare);
  if (ok === undefined) {
    const r = spawnSync(unshare, ['--user', '--map-current-user', '--pid', '--fork', '--kill-child', '--mount', '--mount-proc', '--', '/bin/true'], { stdio: 'ignore', timeout: 5000 });
    ok = r.status === 0;
    userNamespaceProbe.set(unshare, ok);
  }
  return ok;
}

/** A run in progress: its folders (removed on SIGINT/SIGTERM too) and its process group. */
interface LiveRun {
  cells: string[];
  pid?: number;
}
const liveRuns = new Set<LiveRun>();
let signalsWatched = false;

/**
 * On SIGINT or SIGTERM while runs are in progress: kill each run's process group (its namespace
 * goes with it), remove its folders, then end as the signal would have ended vaudit.
 */
function watchSignals(): void {
  if (signalsWatched) return;
  signalsWatched = true;
  const onSignal = (sig: NodeJS.Signals) => {
    for (const r of liveRuns) {
      if (r.pid !== undefined) {
        try {
          process.kill(-r.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      for (const c of r.cells) rmSync(c, { recursive: true, force: true });
    }
    liveRuns.clear();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function isScript(path: string): boolean {
  try {
    const fd = readFileSync(path, { flag: 'r' }).subarray(0, 2);
    return fd.toString('latin1') === '#!';
  } catch {
    return false;
  }
}

export class Host {
  readonly root: string;
  readonly policy: IsolationPolicy;
  readonly requireIsolation: boolean;
  readonly records: RunRecord[] = [];
  private readonly searchPath: string;
  private readonly inventory = new Map<string, ResolvedTool | null>();
  readonly bwrapPath: string | undefined;
  readonly prlimitPath: string | undefined;
  readonly setprivPath: string | undefined;
  readonly unsharePath: string | undefined;
  private readonly toolPaths: Record<string, string>;
  private readonly processAsRoot: boolean;
  private readonly cgroupParent: string | undefined;

  constructor(opts: HostOptions) {
    this.root = opts.root;
    this.policy = opts.isolation ?? 'auto';
    this.requireIsolation = opts.requireIsolation ?? false;
    this.searchPath = opts.searchPath ?? process.env.PATH ?? SYSTEM_PATH;
    this.toolPaths = { ...(opts.tools ?? {}) };
    // bubblewrap is found on PATH (like the tools), so a user (or a test) can hide it.
    this.bwrapPath = opts.helpers?.bwrap === null ? undefined : (opts.helpers?.bwrap ?? onPath('bwrap', this.searchPath));
    this.prlimitPath = opts.helpers?.prlimit === null ? undefined : (opts.helpers?.prlimit ?? systemHelper('prlimit'));
    this.setprivPath = opts.helpers?.setpriv === null ? undefined : (opts.helpers?.setpriv ?? systemHelper('setpriv'));
    this.unsharePath = opts.helpers?.unshare === null ? undefined : (opts.helpers?.unshare ?? systemHelper('unshare'));
    this.processAsRoot = opts.processAsRoot ?? process.env.VAUDIT_PROCESS_AS_ROOT === '1';
    this.cgroupParent = opts.cgroup === null ? undefined : (opts.cgroup ?? delegatedCgroup());
  }

  /** Whether a run at this level drops from root to uid 65534 (vaudit started as root). A run that
   *  executes no suite code (`suiteCode: false`: git on the user's repository, vaudit's own parse of
   *  untrusted text) keeps the user's identity: nobody could not read the repository it is asked about. */
  private drops(level: IsolationLevel, req: RunRequest): boolean {
    return isRoot() && req.suiteCode !== false && (level === 'bwrap' || !this.processAsRoot);
  }

  /**
   * The isolation level a run will use, or why it must not start. Suite code (the default) runs
   * under bubblewrap unless the policy is `process`; a run without suite code may fall back to the
   * process level under `auto` (not under `bwrap` or `requireIsolation`).
   */
  level(suiteCode = true): { level: IsolationLevel } | { sandbox: string; hint: string } {
    if (this.policy === 'process') return { level: 'process' };
    if (this.bwrapPath) return { level: 'bwrap' };
    if (this.policy === 'auto' && !suiteCode && !this.requireIsolation) return { level: 'process' };
    const why = suiteCode
      ? `${NO_BWRAP_REASON}; vaudit does not run the suite's code without a sandbox`
      : `${NO_BWRAP_REASON} and isolation policy '${this.policy}' requires it`;
    return { sandbox: why, hint: NO_BWRAP_HINT };
  }

  /** The helpers this host would use (path and sha256), for `vaudit doctor`. */
  helperInventory(): Array<{ id: string; path?: string; sha256?: string }> {
    return [
      { id: 'bwrap', path: this.bwrapPath },
      { id: 'prlimit', path: this.prlimitPath },
      { id: 'setpriv', path: this.setprivPath },
      { id: 'unshare', path: this.unsharePath },
    ].map((h) => {
      if (!h.path) return { id: h.id };
      try {
        return { ...h, sha256: sha256File(realpathSync(h.path)) };
      } catch {
        return { id: h.id, path: h.path };
      }
    });
  }

  /** Resolve a tool id: `<root>/.toolchain/bin/<id>` first, then PATH. `undefined` when unresolvable. */
  resolveTool(id: string): ResolvedTool | undefined {
    if (this.inventory.has(id)) return this.inventory.get(id) ?? undefined;
    const r = this.resolveUncached(id);
    this.inventory.set(id, r ?? null);
    return r;
  }

  /** Why a tool id resolves to nothing: the executable the user named for it (`--python`, `confirm.python`)
   *  is the cause when there is one, not PATH. */
  private unresolvedReason(id: string): string {
    const named = this.toolPaths[id];
    if (named === undefined) return `tool id '${id}' resolves neither under .toolchain/bin nor on PATH`;
    const p = resolvePath(this.root, named);
    const what = existsSync(p) ? 'is not an executable file' : 'does not exist';
    return `${p}, given for '${id}'${id === 'python3' ? ' (--python or confirm.python)' : ''}, ${what}`;
  }

  private resolveUncached(id: string): ResolvedTool | undefined {
    if (!id || id.includes('/') || id === '.' || id === '..') return undefined;
    let commandPath: string | undefined;
    let source: ResolvedTool['source'] = 'path';
    const tc = join(this.root, '.toolchain', 'bin', id);
    const named = this.toolPaths[id];
    if (named !== undefined) {
      const p = resolvePath(this.root, named);
      if (!isExecutableFile(p)) return undefined;
      commandPath = p;
      source = 'option';
    } else if (isExecutableFile(tc)) {
      commandPath = tc;
      source = 'toolchain';
    } else {
      for (const dir of this.searchPath.split(delimiter)) {
        if (!dir || !isAbsolute(dir)) continue;
        const p = join(dir, id);
        if (isExecutableFile(p)) {
          commandPath = p;
          break;
        }
      }
    }
    if (!commandPath) return undefined;
    let resolvedPath = realpathSync(commandPath);
    const bindPaths: string[] = [];
    if (/^python(\d(\.\d+)?)?$/.test(id)) {
      // An interpreter: ask it for its real executable and prefixes (a pyenv shim is a bash script
      // that cannot run in an empty environment or a sandbox).
      const key = [commandPath, statSync(commandPath).mtimeMs, this.root, process.env.PYENV_VERSION ?? ''].join('|');
      let answer = probeCache.get(key);
      if (answer === undefined) {
        const probe = spawnSync(
          commandPath,
          ['-I', '-c', 'import sys,json;print(json.dumps([sys.executable,sys.prefix,sys.base_prefix,sys.exec_prefix,sys.base_exec_prefix]))'],
          {
            env: pickEnv(['PATH', 'HOME', 'PYENV_ROOT', 'PYENV_VERSION', 'LANG']),
            cwd: this.root,
            stdio: ['ignore', 'pipe', 'pipe'],
            timeout: 15000,
            encoding: 'utf8',
          },
        );
        answer = null;
        if (probe.status === 0) {
          try {
            answer = JSON.parse(probe.stdout.trim()) as string[];
          } catch {
            answer = null;
          }
        }
        probeCache.set(key, answer);
      }
      if (!answer) return undefined;
      {
        const [exe, ...prefixes] = answer;
        if (!exe) return undefined;
        resolvedPath = realpathSync(exe);
        for (const p of prefixes) if (p && !p.startsWith('/usr') && !bindPaths.includes(p)) bindPaths.push(p);
      }
    } else if (isScript(resolvedPath)) {
      bindPaths.push(dirname(resolvedPath));
    }
    if (!resolvedPath.startsWith('/usr/') && !bindPaths.some((b) => resolvedPath.startsWith(b + '/'))) {
      bindPaths.push(dirname(resolvedPath));
    }
    return { id, commandPath, resolvedPath, sha256: sha256File(resolvedPath), source, bindPaths };
  }

  /** Run one tool invocation under the host's isolation. Never throws for run failures. */
  async run(req: RunRequest): Promise<RunResult> {
    const runId = newRunId();
    const started = Date.now();
    const record = newRecord(req, runId, started, this.policy);
    const finish = (outcome: Outcome, detail?: string): RunResult => {
      this.close(record, started, outcome, detail);
      return { record, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    };

    const ready = this.preflight(req, record);
    if ('refused' in ready) return finish(...ready.refused);
    const { tool, level, mounts } = ready;

    const cell = mkdtempSync(join(tmpdir(), 'vaudit-cell-'));
    const live: LiveRun = { cells: [cell] };
    liveRuns.add(live);
    watchSignals();
    let cgroup: RunCgroup | undefined;
    try {
      const escaping = writeCellFiles(cell, req.files ?? {});
      if (escaping !== undefined) return finish('crash', `cell file path escapes the cell: ${escaping}`);
      const marker = runId;
      const { env, mountDirs } = prepareCell(cell, req, mounts, marker);
      if (this.drops(level, req)) {
        // The run's code runs as nobody: the cell (and the private fixture folders in it) is its own.
        chownTree(cell, NOBODY);
        record.uid = NOBODY;
      } else record.uid = process.getuid?.();

      // Tool authority: recheck the bytes just before running.
      let nowSha: string;
      try {
        nowSha = sha256File(tool.resolvedPath);
      } catch (e) {
        return finish('sandbox', `tool bytes unreadable at run time: ${(e as Error).message}`);
      }
      if (nowSha !== tool.sha256) return finish('sandbox', `tool bytes moved since resolution (sha256 ${tool.sha256.slice(0, 12)}… → ${nowSha.slice(0, 12)}…)`);

      const limits: Required<Limits> = { ...DEFAULT_LIMITS, ...(req.limits ?? {}) };
      cgroup = this.cgroupParent ? RunCgroup.make(this.cgroupParent, `vaudit-${runId}`, limits.memoryBudgetBytes, limits.processes) : undefined;
      record.memory = { budgetBytes: limits.memoryBudgetBytes, via: cgroup ? 'cgroup' : 'proc-accounting', peakBytes: 0 };
      let argv = this.commandLine(req, tool, level, cell, env, mountDirs, limits, record, live);
      if (cgroup) argv = [...cgroup.prefix(), ...argv];
      const [cmd, ...cmdArgs] = argv;
      const result = await this.spawnBounded(cmd!, cmdArgs, {
        live,
        cwd: cell,
        env: level === 'bwrap' ? { [MARKER_VAR]: marker } : env,
        stdin: req.stdin,
        timeoutMs: req.timeoutMs ?? 30000,
        maxOutputBytes: req.maxOutputBytes ?? 1024 * 1024,
        statusFd: level === 'bwrap',
        marker,
        onStdout: req.onStdout,
        // outside a PID namespace a process can leave the tree (re-parented): the marker finds it
        memory: { budgetBytes: limits.memoryBudgetBytes, cgroup, marked: record.containment !== 'pid-namespace' },
      });
      record.memory.peakBytes = Math.max(result.memoryPeak, cgroup?.bytes(true) ?? 0);
      if (result.memoryExceeded !== undefined) record.memory.exceeded = true;
      record.sweptProcesses = result.swept + sweepMarker(marker);
      record.exitCode = result.exitCode;
      record.signal = result.signal;
      record.stdoutBytes = result.stdoutBytes;
      record.stderrBytes = result.stderrBytes;
      record.stdoutTruncated = result.stdoutTruncated;
      record.stderrTruncated = result.stderrTruncated;
      const [outcome, detail] = classify(result, level, req, limits, record);
      this.close(record, started, outcome, detail);
      return { record, stdout: result.stdout, stderr: result.stderr };
    } finally {
      cgroup?.remove();
      for (const c of live.cells) rmSync(c, { recursive: true, force: true });
      liveRuns.delete(live);
    }
  }

  /** Set the outcome, detail and duration of a run and keep its record. */
  private close(record: RunRecord, started: number, outcome: Outcome, detail?: string): void {
    record.outcome = outcome;
    if (detail) record.detail = detail;
    record.durationMs = Date.now() - started;
    this.records.push(record);
  }

  /** Before any cell exists: the tool resolved, the isolation level chosen and the mounts checked; or why the run is refused. */
  private preflight(req: RunRequest, record: RunRecord): { tool: ResolvedTool; level: IsolationLevel; mounts: string[] } | { refused: [Outcome, string] } {
    const tool = this.resolveTool(req.toolId);
    if (!tool) return { refused: ['verifierUnavailable', this.unresolvedReason(req.toolId)] };
    record.commandPath = tool.commandPath;
    record.resolvedPath = tool.resolvedPath;
    record.sha256 = tool.sha256;
    record.argv = [tool.resolvedPath, ...req.args];

    const lvl = this.level(req.suiteCode ?? true);
    if ('sandbox' in lvl) {
      record.hint = lvl.hint;
      return { refused: ['sandbox', lvl.sandbox] };
    }
    const level = lvl.level;
    record.isolation = level;
    record.network = level === 'bwrap' ? 'none' : 'shared';
    const mounts = [...new Set(req.mounts ?? [])];
    if (mounts.length) record.mounts = mounts;
    if (mounts.length && level !== 'bwrap')
      return { refused: ['sandbox', `needs bubblewrap to bind private folders at ${mounts.join(', ')} (file fixtures at absolute paths); under process isolation they would be the host's own folders, so the case was not run`] };
    if (mounts.some((m) => !isAbsolute(m) || m.split('/').includes('..') || /^\/(usr|proc|dev|etc|sys|run|bin|sbin|lib|lib64|tmp)?(\/|$)/.test(m)))
      return { refused: ['crash', `refused fixture mount: ${mounts.join(', ')}`] };
    if (!this.prlimitPath && this.policy !== 'process' && this.requireIsolation) {
      return { refused: ['sandbox', 'resource limits required but util-linux prlimit is not installed'] };
    }
    if (this.drops(level, req)) {
      // Started as root: the run's code runs as nobody (uid 65534), with no capabilities.
      if (!this.setprivPath) return { refused: ['sandbox', 'vaudit runs as root and drops to uid 65534 for control cases with util-linux setpriv, which is not installed'] };
      if (level === 'process') {
        if (!this.unsharePath || !systemHelper('mount'))
          return { refused: ['sandbox', 'vaudit runs as root and, under process isolation, holds control cases in a PID and mount namespace with util-linux unshare and mount, which are not installed'] };
        const hidden = hiddenRoots();
        const blocked = [dirname(tool.resolvedPath), ...tool.bindPaths, ...(req.readOnlyPaths ?? []), tmpdir()].map((p) => unreachableByNobody(p, hidden)).find((x) => x);
        if (blocked) {
          record.hint = `install bubblewrap, or name a Python nobody can read (--python), or set VAUDIT_PROCESS_AS_ROOT=1 to run the suite's code as root (not recommended)`;
          return {
            refused: ['sandbox', `vaudit runs as root and runs control cases under process isolation as nobody (uid 65534), who cannot reach ${blocked}`],
          };
        }
      }
    }
    return { tool, level, mounts };
  }

  /** The command line: the tool, inside bubblewrap at that level, under prlimit when installed (recorded). */
  private commandLine(req: RunRequest, tool: ResolvedTool, level: IsolationLevel, cell: string, env: Record<string, string>, mountDirs: ReadonlyArray<readonly [string, string]>, limits: Required<Limits>, record: RunRecord, live: LiveRun): string[] {
    let argv: string[] = [tool.resolvedPath, ...req.args];
    const drop = this.drops(level, req);
    if (drop) argv = [this.setprivPath!, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--bounding-set=-all', '--inh-caps=-all', '--no-new-privs', '--', ...argv];
    if (level === 'bwrap') {
      argv = [this.bwrapPath!, ...this.bwrapArgs(cell, tool, req.readOnlyPaths ?? [], env, mountDirs, drop), '--', ...argv];
      record.containment = 'pid-namespace';
    } else {
      // Process isolation: a PID namespace when one can be made, so that every process the run
      // starts (in whatever session or group it moved to) dies with the run's first process.
      const ns = this.processNamespace(tool, req.readOnlyPaths ?? [], cell, live);
      if (ns) argv = [...ns, ...argv];
      record.containment = ns ? 'pid-namespace' : 'process-group';
    }
    if (this.prlimitPath) {
      argv = [
        this.prlimitPath,
        `--as=${limits.memoryBytes}`,
        `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
        `--fsize=${limits.fileSizeBytes}`,
        `--nofile=${limits.openFiles}`,
        `--nproc=${limits.processes}`,
        '--',
        ...argv,
      ];
      record.limits = limits;
    }
    return argv;
  }

  /**
   * The command prefix that holds a `process`-level run in its own PID namespace (util-linux
   * `unshare --pid --fork --kill-child --mount-proc`): when the run's first process ends, or the
   * host kills unshare, the kernel kills every process in the namespace. As root the namespace also
   * has its own mounts, in which the home folders are hidden under empty tmpfs (the interpreter
   * prefix and the run's read-only folders under them are bound back) before the code drops to
   * nobody. A user who is not root gets the namespace through a user namespace when the kernel
   * allows one (probed once); otherwise `undefined` (process group and marker sweep only).
   */
  private processNamespace(tool: ResolvedTool, readOnly: string[], cell: string, live: LiveRun): string[] | undefined {
    if (!this.unsharePath) return undefined;
    const base = [this.unsharePath, '--pid', '--fork', '--kill-child', '--mount', '--mount-proc', '--propagation', 'private'];
    // The namespace's first process is a shell that waits for the tool (a namespace's init ignores
    // signals it has no handler for, so the tool must not be it: SIGXCPU would not stop it) and
    // exits with its status (128 + n for death by signal n).
    const wait = '"$@"\nexit $?';
    if (!isRoot()) return userNamespaceWorks(this.unsharePath) ? [this.unsharePath, '--user', '--map-current-user', ...base.slice(1), '--', '/bin/sh', '-c', wait, 'vaudit-launch'] : undefined;
    const hidden = hiddenRoots().filter((h) => !within(cell, h));
    const keep = [...new Set([dirname(tool.resolvedPath), ...tool.bindPaths, ...readOnly])].filter((p) => isAbsolute(p) && hidden.some((h) => within(p, h)) && existsSync(p));
    const stage = mkdtempSync(join(tmpdir(), 'vaudit-cell-stage-'));
    live.cells.push(stage);
    const q = (x: string) => `'${x.replaceAll("'", "'\\''")}'`;
    const lines = ['set -e'];
    keep.forEach((p, i) => lines.push(`mkdir -p ${q(`${stage}/${i}`)}`, `mount --bind ${q(p)} ${q(`${stage}/${i}`)}`));
    for (const h of hidden) lines.push(`mount -t tmpfs -o mode=0755,size=1m vaudit-hidden ${q(h)}`);
    keep.forEach((p, i) => lines.push(`mkdir -p ${q(p)}`, `mount --move ${q(`${stage}/${i}`)} ${q(p)}`));
    lines.push(wait);
    return [...base, '--', '/bin/sh', '-c', lines.join('\n'), 'vaudit-launch'];
  }

  private bwrapArgs(cell: string, tool: ResolvedTool, readOnly: string[], env: Record<string, string>, mounts: ReadonlyArray<readonly [string, string]> = [], drop = false): string[] {
    // As root, bubblewrap makes its namespaces without a user namespace (one would map the sandbox's
    // user back to root), keeps only what setpriv needs to drop to nobody (which then clears those
    // too); otherwise a user namespace in which the code is uid 65534 with no capabilities.
    const a = drop
      ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try', '--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP', '--cap-add', 'CAP_DAC_OVERRIDE']
      : ['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--uid', String(NOBODY), '--gid', String(NOBODY)];
    a.push('--die-with-parent', '--new-session', '--clearenv');
    a.push('--ro-bind', '/usr', '/usr');
    for (const l of ['lib', 'lib64', 'bin', 'sbin']) if (existsSync(`/usr/${l}`)) a.push('--symlink', `usr/${l}`, `/${l}`);
    a.push('--perms', '0755', '--dir', '/etc'); // bubblewrap would make it 0700: nobody could not read /etc/passwd
    for (const f of ['/etc/ld.so.cache', '/etc/localtime', '/etc/passwd', '/etc/group', '/etc/hosts', '/etc/nsswitch.conf']) if (existsSync(f)) a.push('--ro-bind', f, f);
    a.push('--proc', '/proc', '--dev', '/dev');
    a.push('--size', String(256 * 1024 * 1024), '--perms', '1777', '--tmpfs', '/tmp');
    const binds = new Set<string>();
    for (const p of [...tool.bindPaths, ...readOnly]) {
      if (!p || !isAbsolute(p) || p.startsWith('/usr/') || p === '/usr') continue;
      if (!existsSync(p)) continue;
      binds.add(p);
    }
    // The folders on the way to each bind are made traversable (bubblewrap would copy a mode such as
    // /root's 0700, which nobody cannot pass); they are empty folders of the sandbox's own root, or of
    // its tmpfs /tmp (a checkout under /tmp: left to bubblewrap, nobody could not reach the harness).
    const made = new Set(['/', '/usr', '/tmp', '/proc', '/dev', '/etc']);
    for (const p of [...binds, cell, ...mounts.map(([, dst]) => dst)]) {
      const parts = p.split('/').filter(Boolean);
      for (let i = 1; i < parts.length; i++) {
        const anc = `/${parts.slice(0, i).join('/')}`;
        if (made.has(anc) || within(anc, '/usr')) continue;
        made.add(anc);
        a.push('--perms', '0755', '--dir', anc);
      }
    }
    for (const p of binds) a.push('--ro-bind', p, p);
    a.push('--bind', cell, cell, '--chdir', cell);
    for (const [src, dst] of mounts) a.push('--bind', src, dst);
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    a.push('--json-status-fd', '3');
    return a;
  }

  private spawnBounded(
    cmd: string,
    args: string[],
    o: {
      cwd: string;
      env: Record<string, string>;
      stdin?: string | Buffer;
      timeoutMs: number;
      maxOutputBytes: number;
      statusFd: boolean;
      marker?: string;
      onStdout?: (chunk: Buffer) => void;
      live?: LiveRun;
      memory?: { budgetBytes: number; cgroup?: RunCgroup; marked: boolean };
    },
  ): Promise<SpawnOutcome> {
    return new Promise((resolveP) => {
      const out: SpawnOutcome = {
        exitCode: null,
        signal: null,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        stdoutBytes: 0,
        stderrBytes: 0,
        stdoutTruncated: false,
        stderrTruncated: false,
        timedOut: false,
        childStarted: false,
        cpuLimitHit: false,
        swept: 0,
        memoryPeak: 0,
      };
      let child;
      try {
        child = spawn(cmd, args, {
          cwd: o.cwd,
          env: o.env,
          detached: true,
          // stdin is always a pipe, ended at once when the case gives no input: 'ignore' leaves the child
          // this process's own descriptor 0 when that is closed (vaudit started with `<&-`), and with it
          // whatever file or pipe took descriptor 0 since
          stdio: ['pipe', 'pipe', 'pipe', ...(o.statusFd ? (['pipe'] as const) : [])],
        });
      } catch (e) {
        out.spawnError = (e as Error).message;
        resolveP(out);
        return;
      }
      const pid = child.pid;
      if (o.live) o.live.pid = pid;
      const killGroup = () => {
        if (pid === undefined) return;
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* group gone */
        }
      };
      const outChunks: Buffer[] = [];
      const errChunks: Buffer[] = [];
      const collect = (chunks: Buffer[], which: 'stdout' | 'stderr') => (c: Buffer) => {
        const have = which === 'stdout' ? out.stdoutBytes : out.stderrBytes;
        const room = o.maxOutputBytes - Math.min(have, o.maxOutputBytes);
        if (room > 0) {
          const part = c.length <= room ? c : c.subarray(0, room);
          chunks.push(part);
          if (which === 'stdout') o.onStdout?.(part);
        }
        if (c.length > room) {
          if (which === 'stdout') out.stdoutTruncated = true;
          else out.stderrTruncated = true;
        }
        if (which === 'stdout') out.stdoutBytes += c.length;
        else out.stderrBytes += c.length;
      };
      child.stdout?.on('data', collect(outChunks, 'stdout'));
      child.stderr?.on('data', collect(errChunks, 'stderr'));
      let status = '';
      const statusStream = o.statusFd ? (child.stdio[3] as NodeJS.ReadableStream | undefined) : undefined;
      statusStream?.on('data', (c: Buffer) => {
        status += c.toString('utf8');
      });
      if (child.stdin) {
        child.stdin.on('error', () => {
          /* EPIPE: the tool did not read its stdin */
        });
        child.stdin.end(o.stdin ?? '');
      }
      const timer = setTimeout(() => {
        out.timedOut = true;
        killGroup();
        if (o.marker) out.swept += sweepMarker(o.marker);
      }, o.timeoutMs);
      const sampler = o.memory && pid !== undefined ? sampleMemory(pid, o.memory, o.marker, out, killGroup) : undefined;
      let settled = false;
      child.on('error', (e) => {
        out.spawnError = e.message;
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          clearInterval(sampler);
          killGroup();
          resolveP(out);
        }
      });
      // The run ends when the tool's main process exits: what it left behind in its group (or
      // escaped from it) is killed then, so background children holding the pipes cannot
      // keep the run open.
      child.on('exit', () => {
        killGroup();
        if (o.marker) out.swept += sweepMarker(o.marker);
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          statusStream?.removeAllListeners('data');
        }, 2000).unref();
      });
      child.on('close', (code, signal) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(sampler);
        killGroup();
        out.exitCode = code;
        out.signal = signal;
        out.stdout = Buffer.concat(outChunks);
        out.stderr = Buffer.concat(errChunks);
        if (signal === 'SIGXCPU') out.cpuLimitHit = true;
        for (const doc of status.split('\n')) {
          if (!doc.trim()) continue;
          try {
            const j = JSON.parse(doc) as Record<string, unknown>;
            if (typeof j['child-pid'] === 'number') out.childStarted = true;
            if (typeof j['exit-code'] === 'number') {
              const ec = j['exit-code'];
              out.childExit = ec > 128 && ec < 128 + 65 ? { code: null, signal: signalName(ec - 128) } : { code: ec, signal: null };
            }
          } catch {
            /* partial document */
          }
        }
        if (out.childExit?.signal === 'SIGXCPU') out.cpuLimitHit = true;
        resolveP(out);
      });
    });
  }
}

interface SpawnOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutBytes: number;
  stderrBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  spawnError?: string;
  childStarted: boolean;
  childExit?: { code: number | null; signal: string | null };
  cpuLimitHit: boolean;
  swept: number;
  /** The most the run's processes held together at one sample. */
  memoryPeak: number;
  /** What they held when the run was ended for going over its memory budget. */
  memoryExceeded?: number;
}

/**
 * Every 100 ms, what the run's processes hold together: over the budget (the cgroup's first OOM kill,
 * or the sum from /proc), the run is killed and `out.memoryExceeded` says what they held.
 */
function sampleMemory(pid: number, mem: { budgetBytes: number; cgroup?: RunCgroup; marked: boolean }, marker: string | undefined, out: SpawnOutcome, killGroup: () => void): NodeJS.Timeout {
  const needle = mem.marked && marker ? markerNeedle(marker) : Buffer.alloc(0);
  return setInterval(() => {
    if (out.memoryExceeded !== undefined) return;
    const held = mem.cgroup ? mem.cgroup.bytes() : accountedBytes(pid, needle);
    out.memoryPeak = Math.max(out.memoryPeak, held);
    if (mem.cgroup ? mem.cgroup.oomKills() === 0 : held <= mem.budgetBytes) return;
    out.memoryExceeded = Math.max(held, mem.budgetBytes);
    const victims = mem.cgroup ? [] : runProcesses(pid, needle);
    killGroup();
    mem.cgroup?.kill();
    for (const v of victims) {
      try {
        process.kill(v, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (marker) out.swept += sweepMarker(marker);
  }, 100);
}

/** The record of a run before it is resolved: a crash until something better is known. */
function newRecord(req: RunRequest, runId: string, started: number, policy: IsolationPolicy): RunRecord {
  return {
    runId,
    caseId: req.caseId,
    ...(req.caseIds ? { caseIds: req.caseIds } : {}),
    ruleId: req.ruleId,
    toolId: req.toolId,
    argv: [req.toolId, ...req.args],
    policy,
    suiteCode: req.suiteCode ?? true,
    isolation: 'none',
    network: 'shared',
    limits: 'unavailable',
    outcome: 'crash',
    exitCode: null,
    signal: null,
    durationMs: 0,
    stdoutBytes: 0,
    stderrBytes: 0,
    stdoutTruncated: false,
    stderrTruncated: false,
    sweptProcesses: 0,
    startedAt: new Date(started).toISOString(),
  };
}

/** Write the request's files into the cell; the first path that would escape it, if any (nothing after it is written). */
function writeCellFiles(cell: string, files: NonNullable<RunRequest['files']>): string | undefined {
  for (const [rel, spec] of Object.entries(files)) {
    if (isAbsolute(rel) || rel.split('/').includes('..')) return rel;
    const p = join(cell, rel);
    mkdirSync(dirname(p), { recursive: true });
    const content = typeof spec === 'string' ? spec : spec.content;
    writeFileSync(p, content);
    if (typeof spec !== 'string' && spec.mode !== undefined) chmodSync(p, spec.mode);
  }
  return undefined;
}

/** The cell's HOME, TMPDIR and mount folders, and the run's environment (allowlist, marker, request values). */
function prepareCell(cell: string, req: RunRequest, mounts: string[], marker: string): { env: Record<string, string>; mountDirs: Array<readonly [string, string]> } {
  const home = join(cell, 'home');
  const tmp = join(cell, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  const pathDirs = (req.pathDirs ?? []).map((d) => join(cell, d));
  const env: Record<string, string> = {
    PATH: [...pathDirs, SYSTEM_PATH].join(':'),
    HOME: home,
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONHASHSEED: '0',
    [MARKER_VAR]: marker,
  };
  for (const [k, v] of Object.entries(req.env ?? {})) env[k] = v.split('{cell}').join(cell);
  if (mounts.length) env.VAUDIT_FIXTURE_ROOTS = mounts.join(':');
  const mountDirs = mounts.map((m, i) => {
    const d = join(cell, 'mounts', String(i));
    mkdirSync(d, { recursive: true });
    return [d, m] as const;
  });
  env[MARKER_VAR] = marker;
  return { env, mountDirs };
}

/** The outcome of a finished process and its detail; under bubblewrap, the child's own exit status goes into the record. */
function classify(result: SpawnOutcome, level: IsolationLevel, req: RunRequest, limits: Required<Limits>, record: RunRecord): [Outcome, string | undefined] {
  if (result.spawnError) return ['crash', `spawn failed: ${result.spawnError}`];
  if (result.memoryExceeded !== undefined) {
    const via = record.memory?.via === 'cgroup' ? "the run's cgroup reached its memory.max" : `they held ${mib(result.memoryExceeded)} (proportional set sizes from /proc)`;
    return ['crash', `memory budget reached: the run's processes together may hold ${mib(limits.memoryBudgetBytes)} and ${via}; the run was ended`];
  }
  if (record.memory?.via === 'cgroup' && result.exitCode === 125 && result.stderr.toString('utf8').includes("vaudit: could not join the run's cgroup"))
    return ['sandbox', `the run's first process could not join its cgroup (memory budget, process bound): ${result.stderr.toString('utf8').trim().slice(0, 300)}`];
  if (result.timedOut) return ['timeout', `wall-clock limit ${req.timeoutMs ?? 30000} ms reached; process group killed`];
  if (level === 'bwrap' && !result.childStarted) return ['sandbox', `bubblewrap could not set up the sandbox: ${result.stderr.toString('utf8').trim().slice(0, 300)}`];
  if (result.cpuLimitHit || result.signal === 'SIGXCPU') return ['timeout', `CPU limit ${limits.cpuSeconds}s reached`];
  if (level === 'process' && record.containment === 'pid-namespace' && result.exitCode !== null && result.exitCode > 128 && result.exitCode < 128 + 65) {
    // the namespace's shell reports the tool's death by signal n as 128 + n
    const sig = signalName(result.exitCode - 128);
    if (sig === 'SIGXCPU') return ['timeout', `CPU limit ${limits.cpuSeconds}s reached`];
    record.exitCode = null;
    record.signal = sig;
    return ['crash', `killed by signal ${sig}`];
  }
  if (level === 'bwrap' && result.childExit !== undefined) {
    // bwrap reports the child's own status; bwrap itself exits with the same code.
    if (result.childExit.signal) {
      record.signal = result.childExit.signal;
      return ['crash', `killed by signal ${result.childExit.signal}`];
    }
    record.exitCode = result.childExit.code;
    return ['executed', undefined];
  }
  if (result.signal) return ['crash', `killed by signal ${result.signal}`];
  return ['executed', undefined];
}

function signalName(n: number): string {
  const names: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 6: 'SIGABRT', 9: 'SIGKILL', 11: 'SIGSEGV', 13: 'SIGPIPE', 15: 'SIGTERM', 24: 'SIGXCPU', 25: 'SIGXFSZ' };
  return names[n] ?? `signal ${n}`;
}

function pickEnv(names: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const n of names) {
    const v = process.env[n];
    if (v !== undefined) env[n] = v;
  }
  env.PATH ??= SYSTEM_PATH;
  return env;
}

export function createHost(opts: HostOptions): Host {
  return new Host(opts);
}
