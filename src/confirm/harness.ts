/**
 * Batched Python control cases: one interpreter (started by the host) runs many cases from a
 * JSON request and streams one JSON line per finished case. When a batch dies (host timeout,
 * crash, sandbox), the cases that already answered keep their answers, the case in flight gets
 * the non-result, and the rest are retried in a fresh batch.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Host, IsolationLevel, Outcome, RunRecord } from '../host/host.js';

/** A spec for a value the harness decodes (plain JSON, or `$double` / `$tuple` / `$set` forms). */
export type Spec = unknown;

export interface PyModuleSource {
  /** Dotted module name. */
  name: string;
  /** Real file name (for line numbers and tracebacks). */
  filename: string;
  source: string;
  isPackage?: boolean;
}

export interface PyCallCase {
  id: string;
  op?: 'call';
  modules: PyModuleSource[];
  entry: { module: string; qualname: string };
  self?: Spec;
  args?: Spec[];
  kwargs?: Record<string, Spec>;
  /** Names of the entry function's module globals replaced for this case only (a module-level getter
   *  the function calls, doubled as a callable: `{"get_url": {"$double": "callable", "returns": "…"}}`);
   *  set after the import, in the case's own process. */
  globals?: Record<string, Spec>;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Stub endpoints; `port: 0` allocates a free port for the case (`{$port: i}` / `{vaudit-port<i>}` in
   *  specs name it); `closed`: allocate a port nothing listens on. */
  servers?: Array<{
    port: number;
    status?: number;
    body?: string;
    contentType?: string;
    stall?: boolean;
    closed?: boolean;
    /** Answers to the endpoint's first connections (a retry path's earlier failures), then its own. */
    before?: Array<{ status?: number; body?: string; contentType?: string }>;
  }>;
  traceFiles?: string[];
  /** Stub tools for this case: name → script. Placed in a per-case PATH directory of the cell. */
  stubTools?: Record<string, string>;
  /** Expected to wait out its bound (a stalling peer): run in its own process, concurrently. */
  slow?: boolean;
  /** Top-level names of third-party modules the verifier's own files import: served as import-time
   *  doubles when this Python lacks them (touching one on the path → `unavailable`). */
  doubleModules?: string[];
  /** Of those, the suite's own (a package or module on disk near the verifier): name → path. */
  suiteModules?: Record<string, string>;
  /** File fixtures at absolute paths (written fresh for the case; a stub tool named by an absolute
   *  path goes in `stubTools`). Need bubblewrap: under process isolation the case is `sandbox`. */
  files?: Record<string, string | { content: string; mode?: number }>;
  /** Absolute folders that must exist (e.g. a `cwd=`). */
  dirs?: string[];
  /** Call the function as a route of its web app: rule and method from the app's url_map, `json`
   *  as the request body (the query string for GET). */
  route?: { path?: string; method?: string; json?: unknown };
  /** Read the verdict as the caller does: `key:<k>` (`response.json()[k]`) or `first` (a tuple's first item). */
  verdict?: string;
  /** The bound on the case's set-up, off its clock (default `SETUP_MS`). */
  setupMs?: number;
  /** The host clock the case's code reads, in seconds since the epoch (time.time, datetime.now/today…). */
  clock?: number;
}
export interface PyCompileCase {
  id: string;
  op: 'compile';
  source: string;
  mode?: 'eval' | 'exec';
  filename?: string;
}
export interface PyRegexCase {
  id: string;
  op: 'regex';
  pattern: string;
  flags?: number;
}
export interface PyLambdaCase {
  id: string;
  op: 'lambda';
  source: string;
  args: Spec[];
  timeoutMs?: number;
  /** Module names bound in the lambda's globals, as the verifier's module gives them (`datetime`). */
  imports?: string[];
  /** As for a call case: the instant the lambda's clock reads. */
  clock?: number;
}
export type PyCase = PyCallCase | PyCompileCase | PyRegexCase | PyLambdaCase;

export interface PyEvent {
  type: string;
  message: string;
  file: string;
  line: number;
  func: string;
}

export type CaseStatus = 'returned' | 'raised' | 'deadline' | 'unavailable' | 'nowitness' | 'error';

export interface CaseResult {
  id: string;
  /** Harness-level status when the batch ran; otherwise the host's non-result outcome. */
  status: CaseStatus | Exclude<Outcome, 'executed'>;
  value?: unknown;
  exception?: { type: string; message: string; file?: string | null; line?: number | null; offset?: number; pos?: number };
  events: PyEvent[];
  lines: Record<string, number[]>;
  calls?: unknown[];
  /** The route the case was driven through. */
  route?: { rule: string; method: string };
  /** The value as returned, when the verdict was read from it (`verdict`). */
  raw?: unknown;
  /** Module doubles the case loaded (third-party modules this Python lacks). */
  doubles?: string[];
  /** Of those, the ones served as vaudit's functional doubles (harness/vaudit_doubles). */
  functionalDoubles?: string[];
  /** What a case reported `unavailable` touched. */
  missing?: { module: string; uses: string; file?: string | null; line?: number | null };
  /** Names of stub tools the case invoked, in order. */
  stubCalls?: string[];
  /** Connections each stub server received. */
  serverHits?: number;
  /** The case itself, on its own clock (the call). */
  ms?: number;
  /** Set-up before the case's clock started (fixtures, doubles, importing the verifier's modules). */
  setupMs?: number;
  /** Set-up shared with the other cases of its verifier module: their zygote's import (warm runner). */
  sharedSetupMs?: number;
  /** Why a case that could have shared its module's set-up ran cold (its zygote could not be used). */
  warm?: string;
  /** 'setup' when the case never started because its set-up failed or ran out of time. */
  phase?: string;
  detail?: string;
  /** The run record of the batch that produced this answer. */
  runId: string;
}

/** Package root (holds package.json), found from this file in `src/` or compiled `dist/src/`. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src', 'confirm', 'harness'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('vaudit package root not found (src/confirm/harness is missing)');
}

export function harnessDir(): string {
  return join(packageRoot(), 'src', 'confirm', 'harness');
}

export interface BatchOptions {
  ruleId?: string;
  /** Cases per interpreter process. */
  batchSize?: number;
  /** Parallel interpreter processes for the main group (the small fixture and parse-only groups take one more). */
  jobs?: number;
  /** Parallel processes for `slow` cases (idle waits on stalling stubs, not CPU): default 8. */
  slowJobs?: number;
  /** Wall-clock bound of one batch = sum of its case bounds + slack, capped by this. */
  maxBatchMs?: number;
  /** Cases that share their set-up (the same verifier modules) fork from one process that imported
   *  them once (default true); false: every case imports them itself (the cold path). */
  warm?: boolean;
  onRun?: (r: RunRecord) => void;
}

/** Run Python control cases in batches through the host. Results come back in input order. */
/** Stubs note each invocation next to their bin directory (read back by the harness as `stubCalls`). */
function withInvocationLog(body: string, logFile = '"${0%/*}/../invoked"'): string {
  const log = `echo "\${0##*/}" >> ${logFile}\n`;
  if (body.startsWith('#!')) {
    const nl = body.indexOf('\n');
    return nl < 0 ? `${body}\n${log}` : body.slice(0, nl + 1) + log + body.slice(nl + 1);
  }
  return `#!/bin/sh\n${log}${body}`;
}

/** A case that only compiles or parses the suite's text with vaudit's own code: no suite code runs. */
export function parseOnly(c: PyCase): boolean {
  return c.op === 'compile' || c.op === 'regex';
}

/**
 * What the harness's audit hook (a second layer behind the host's isolation) refuses to read:
 * the user's home folders. Writes outside the case folder, processes, network and ctypes are
 * refused regardless (see run_cases.py, `install_guard`).
 */
function guardPolicy(): { denyRead: string[] } {
  const homes = new Set<string>(['/root', '/home']);
  for (const h of [homedir(), process.env.HOME]) if (h && isAbsolute(h) && h !== '/') homes.add(h);
  return { denyRead: [...homes] };
}

export async function runPythonCases(host: Host, cases: PyCase[], opts: BatchOptions = {}): Promise<CaseResult[]> {
  const results = new Map<string, CaseResult>();
  const batchSize = Math.max(1, opts.batchSize ?? 100);
  const jobs = Math.max(1, opts.jobs ?? 2);
  const queue: PyCase[][] = [];
  const slowQueue: PyCase[][] = [];
  const fast = cases.filter((c) => !('slow' in c && c.slow));
  for (const c of cases) if ('slow' in c && c.slow) slowQueue.push([c]);
  // Parse-only cases (no suite code runs) batch apart from cases that run suite code: the host's
  // policy treats the two differently (issue 17). Cases with absolute-path fixtures batch apart
  // too: without bubblewrap only they end as `sandbox`.
  const needsMounts = (c: PyCase) =>
    (c.op === undefined || c.op === 'call') && [...Object.keys(c.files ?? {}), ...(c.dirs ?? []), ...Object.keys(c.stubTools ?? {})].some((n) => n.startsWith('/'));
  const runsCode = bySetup(fast.filter((c) => !parseOnly(c)));
  // The small groups (fixtures, parse-only) take a worker of their own instead of waiting behind the
  // main group's batches (a 2-case batch after a 100-case one was the confirmation's critical path).
  const sideQueue: PyCase[][] = [];
  for (const [group, into] of [[runsCode.filter((c) => !needsMounts(c)), queue], [runsCode.filter(needsMounts), sideQueue], [fast.filter(parseOnly), sideQueue]] as const) {
    for (let i = 0; i < group.length; i += batchSize) into.push(group.slice(i, i + batchSize));
  }
  const hdir = harnessDir();
  const script = join(hdir, 'run_cases.py');
  readFileSync(script); // fail loudly if the data file is not shipped

  const worker = (q: PyCase[][]) => async () => {
    for (;;) {
      const batch = q.shift();
      if (!batch) return;
      const remaining = await runBatch(host, batch, script, hdir, results, opts);
      if (remaining.length) q.push(remaining);
    }
  };
  await Promise.all([
    ...Array.from({ length: Math.min(jobs, queue.length) }, worker(queue)),
    ...Array.from({ length: Math.min(1, sideQueue.length) }, worker(sideQueue)),
    ...Array.from({ length: Math.min(Math.max(1, opts.slowJobs ?? 8), slowQueue.length) }, worker(slowQueue)),
  ]);
  return cases.map((c) => results.get(c.id)!);
}

/** Cases in the order the harness runs them best: those that share their set-up (module sources,
 *  doubles, entry module) next to each other, so one warm process serves them in a row (first
 *  appearance keeps the groups' order). */
function bySetup(cases: PyCase[]): PyCase[] {
  const first = new Map<string, number>();
  const keyed = cases.map((c, i) => {
    const key = c.op === undefined || c.op === 'call' ? JSON.stringify([c.modules, c.doubleModules, c.entry.module, c.traceFiles]) : `#${i}`;
    if (!first.has(key)) first.set(key, i);
    return { c, rank: first.get(key)!, i };
  });
  return keyed.sort((x, y) => x.rank - y.rank || x.i - y.i).map((x) => x.c);
}

/** Cases whose answers were lost once (retried a single time). */
/** The bound on one case's set-up, off its own clock (run_cases.py keeps the same default). */
const SETUP_MS = 10_000;

const lostOnce = new Set<string>();

async function runBatch(
  host: Host,
  batch: PyCase[],
  script: string,
  hdir: string,
  results: Map<string, CaseResult>,
  opts: BatchOptions,
): Promise<PyCase[]> {
  const files: Record<string, { content: string; mode?: number }> = {};
  const mounts = new Set<string>();
  const wire = batch.map((c, i) => {
    if (c.op === undefined || c.op === 'call') {
      const stubs = c.stubTools ?? {};
      const { stubTools: _s, slow: _slow, ...rest } = c;
      // stub tools named by an absolute path are file fixtures at that path
      const absolute = Object.entries(stubs).filter(([n]) => n.startsWith('/'));
      const onPath = Object.entries(stubs).filter(([n]) => !n.startsWith('/'));
      const fixtures: NonNullable<PyCallCase['files']> = { ...(c.files ?? {}) };
      for (const [name, body] of absolute) fixtures[name] = { content: withInvocationLog(body, `"{vaudit-cell}/case-${i}/invoked"`), mode: 0o755 };
      for (const p of [...Object.keys(fixtures), ...(c.dirs ?? [])]) if (p.startsWith('/')) mounts.add(fixtureRoot(p));
      const withFixtures = Object.keys(fixtures).length ? { ...rest, files: fixtures } : rest;
      if (Object.keys(stubs).length === 0) return withFixtures;
      for (const [name, body] of onPath) files[`case-${i}/bin/${name}`] = { content: withInvocationLog(body), mode: 0o755 };
      if (absolute.length) files[`case-${i}/invoked`] = { content: '' };
      return { ...withFixtures, stubLog: `case-${i}/invoked`, env: { ...(c.env ?? {}), PATH: `{cell}/case-${i}/bin:/usr/local/bin:/usr/bin:/bin` } };
    }
    return c;
  });
  // Each case: its bound for set-up (fixtures, doubles, importing its modules: SETUP_MS, off the
  // case's clock) and its bound for the call; the harness kills a case's process at those bounds
  // (+1 s), so the host's bound on the whole batch is the backstop, with room for the interpreter's
  // start on a loaded machine.
  const boundMs = batch.reduce((s, c) => s + ('setupMs' in c && c.setupMs ? c.setupMs : SETUP_MS) + ('timeoutMs' in c && c.timeoutMs ? c.timeoutMs : 2000) + 1100, 0) + 4000;
  const timeoutMs = Math.min(boundMs, opts.maxBatchMs ?? 120_000);
  let buffered = '';
  const answered: CaseResult[] = [];
  const res = await host.run({
    caseId: batch.length === 1 ? batch[0]!.id : `batch:${batch[0]!.id}..${batch[batch.length - 1]!.id}`,
    caseIds: batch.map((c) => c.id),
    ruleId: opts.ruleId ?? ([...new Set(batch.map((c) => c.id.split('#')[0]!))].join(',') || 'confirm'),
    toolId: 'python3',
    args: ['-I', '-B', script],
    suiteCode: !batch.every(parseOnly),
    stdin: JSON.stringify({ cases: wire, guard: guardPolicy(), warm: opts.warm ?? true }),
    files,
    readOnlyPaths: [hdir],
    ...(mounts.size ? { mounts: [...mounts] } : {}),
    timeoutMs,
    maxOutputBytes: 64 * 1024 * 1024,
    env: {},
    onStdout: (chunk) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          answered.push(JSON.parse(line) as CaseResult);
        } catch {
          /* not ours */
        }
      }
    },
  });
  const runId = res.record.runId;
  noteDoubles(res.record, answered);
  const times = answered
    .filter((a) => a.setupMs !== undefined || a.ms !== undefined)
    .map((a) => ({ case: a.id, setupMs: a.setupMs, ...(a.sharedSetupMs !== undefined ? { sharedSetupMs: a.sharedSetupMs } : {}), ms: a.ms }));
  if (times.length) res.record.caseTimes = [...(res.record.caseTimes ?? []), ...times];
  opts.onRun?.(res.record);
  for (const a of answered) {
    // A case whose code the guard stopped is a non-result: nothing it did is evidence.
    const clean = a.status === 'sandbox' ? { id: a.id, status: a.status, detail: a.detail, events: [], lines: {} } : { ...a, events: a.events ?? [], lines: a.lines ?? {} };
    results.set(a.id, { ...clean, runId });
  }
  if (res.record.outcome === 'executed' && answered.length === batch.length) return [];
  const missing = batch.filter((c) => !results.has(c.id));
  if (missing.length === 0) return [];
  // The interpreter exited normally yet its answers never arrived (output lost to a loaded machine):
  // run those cases once more before calling anything a crash.
  if (res.record.outcome === 'executed' && res.record.exitCode === 0 && missing.every((c) => !lostOnce.has(c.id))) {
    for (const c of missing) lostOnce.add(c.id);
    return missing;
  }
  // The first unanswered case was in flight when the batch ended: it gets the non-result.
  const inFlight = missing[0]!;
  const outcome: Exclude<Outcome, 'executed'> = res.record.outcome === 'executed' ? 'crash' : res.record.outcome;
  results.set(inFlight.id, {
    id: inFlight.id,
    status: outcome,
    events: [],
    lines: {},
    runId,
    detail:
      res.record.detail ??
      `the harness ended (exit ${res.record.exitCode}) before answering: ${res.stderr.toString('utf8').trim().split('\n').slice(-3).join(' | ').slice(0, 400)}`,
  });
  if (outcome === 'sandbox' || outcome === 'verifierUnavailable') {
    // Nothing in this batch could run: every case gets the same non-result.
    for (const c of missing.slice(1)) results.set(c.id, { id: c.id, status: outcome, events: [], lines: {}, runId, detail: res.record.detail });
    return [];
  }
  return missing.slice(1);
}

/** Say in the run record which module doubles its cases were served, and to which cases. */
function noteDoubles(record: RunRecord, answered: CaseResult[]): void {
  const by = new Map<string, { module: string; kind: 'functional' | 'import-time'; cases: string[] }>();
  for (const a of answered) {
    for (const m of a.doubles ?? []) {
      const kind = a.functionalDoubles?.includes(m) ? 'functional' : 'import-time';
      const key = `${kind}:${m}`;
      if (!by.has(key)) by.set(key, { module: m, kind, cases: [] });
      by.get(key)!.cases.push(a.id);
    }
  }
  if (by.size) record.moduleDoubles = [...by.values()].sort((x, y) => x.kind.localeCompare(y.kind) || x.module.localeCompare(y.module));
}

/** The folder bound privately for a fixture at an absolute path: its first two components
 *  (`/home/user/sci/x.lean` → `/home/user`). */
export function fixtureRoot(p: string): string {
  const parts = p.split('/').filter(Boolean);
  return '/' + parts.slice(0, Math.min(2, Math.max(1, parts.length - 1))).join('/');
}

export type { IsolationLevel };
