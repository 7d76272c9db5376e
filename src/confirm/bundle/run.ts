/**
 * Batched bundle control cases: one Node child — started by the host, like every other control case —
 * runs many cases (of one or several bundles) and streams one line per finished case. When a batch
 * dies (host timeout, crash, sandbox), the cases that already answered keep their answers, the case in
 * flight gets the host's non-result, and the rest are retried in a fresh batch.
 *
 * The child: `node --experimental-permission` with reads allowed in the cell only: on top of the host's
 * isolation (empty environment + allowlist, private cell, process group, rlimits, bubblewrap when
 * available), Node's permission model refuses `child_process`, `worker_threads`, native addons, file
 * writes and reads outside the cell to the bundle code — also under `process` isolation. Memory is bounded by `--max-old-space-size` (RLIMIT_AS is raised for Node: V8
 * reserves address space).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Host, RunRecord } from '../../host/host.js';
import { bundleRuntimeSource, bundleRuntimeSourceCjs, type PreparedBundle } from './load.js';
import type { BundleCase, BundleCaseResult, NonResultOutcome } from './types.js';

const MARK = '\u0001vaudit-case ';
/** Wall-clock share of one case in a batch's bound (a case costs ~1–15 ms in the child). */
const SHARE_MS = 100;

const NODE_ARGS = ['--max-old-space-size=256', '--experimental-permission', '--disable-warning=ExperimentalWarning'];
/** Reads only inside the cell (the host puts the cell's path for `{cell}` in environment values). With
 *  `--experimental-permission` on the command line, losing this variable denies every read: loud, not wider. */
const NODE_ENV = { NODE_OPTIONS: '--allow-fs-read="{cell}/*"' };

function harnessPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'harness', 'run-bundle.mjs');
}

let harnessText: string | undefined;
function harnessSource(): string {
  if (harnessText !== undefined) return harnessText;
  let p = harnessPath();
  try {
    harnessText = readFileSync(p, 'utf8');
  } catch {
    // Compiled layout (dist/src/confirm/bundle): the data file ships in src/.
    p = p.replace(/([\\/])dist\1src\1/, '$1src$1');
    harnessText = readFileSync(p, 'utf8');
  }
  return harnessText;
}

export interface BundleBatchOptions {
  /** Cases per Node child (default 64). */
  batchSize?: number;
  /** Parallel children (default 2). */
  jobs?: number;
  /** Cap of one batch's wall-clock bound (ms, default 60 s). */
  maxBatchMs?: number;
  onRun?: (r: RunRecord) => void;
}

/** Run bundle control cases through the host. Results come back keyed by case id. */
export async function runBundleCases(
  host: Host,
  cases: BundleCase[],
  bundles: ReadonlyMap<string, PreparedBundle>,
  opts: BundleBatchOptions = {},
): Promise<Map<string, BundleCaseResult>> {
  const results = new Map<string, BundleCaseResult>();
  const batchSize = Math.max(1, opts.batchSize ?? 64);
  const jobs = Math.max(1, opts.jobs ?? 2);
  // Keep a bundle's cases together: each child loads few bundles.
  const sorted = [...cases].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const queue: BundleCase[][] = [];
  for (let i = 0; i < sorted.length; i += batchSize) queue.push(sorted.slice(i, i + batchSize));
  // A pool of `jobs` children; retries (the rest of a batch, single cases) join the queue as they come.
  await new Promise<void>((done) => {
    let active = 0;
    const pump = (): void => {
      while (active < jobs && queue.length) {
        const batch = queue.shift()!;
        active++;
        runBatch(host, batch, bundles, results, opts)
          .catch((e: unknown) => {
            for (const c of batch)
              if (!results.has(c.id)) results.set(c.id, { id: c.id, status: 'crash', runs: [], rets: [], pendingAtReturn: [], runId: '', detail: `the batch could not be run: ${(e as Error).message}` });
            return [] as BundleCase[][];
          })
          .then((next) => {
            for (const n of next) if (n.length) queue.push(n);
            active--;
            pump();
          });
      }
      if (active === 0 && queue.length === 0) done();
    };
    pump();
  });
  return results;
}

async function runBatch(
  host: Host,
  batch: BundleCase[],
  bundles: ReadonlyMap<string, PreparedBundle>,
  results: Map<string, BundleCaseResult>,
  opts: BundleBatchOptions,
): Promise<BundleCase[][]> {
  const files: Record<string, string | { content: string | Buffer }> = {
    'harness.mjs': harnessSource(),
    'node_modules/vaudit/package.json': JSON.stringify({ name: 'vaudit', type: 'module', exports: { './bundle': { import: './bundle.js', require: './bundle.cjs' } } }),
    'node_modules/vaudit/bundle.js': bundleRuntimeSource(),
    'node_modules/vaudit/bundle.cjs': bundleRuntimeSourceCjs(),
  };
  const index = new Map<string, number>();
  const wireBundles: Array<{ entry: string }> = [];
  for (const c of batch) {
    if (index.has(c.file)) continue;
    const b = bundles.get(c.file);
    if (!b) continue;
    const i = wireBundles.length;
    index.set(c.file, i);
    for (const [rel, content] of Object.entries(b.files)) files[`b${i}/${rel}`] = typeof content === 'string' ? content : { content };
    wireBundles.push({ entry: `b${i}/${b.entry}` });
  }
  const wire = batch.map((c) => ({
    id: c.id,
    bundle: index.get(c.file) ?? -1,
    checkId: c.checkId,
    checkIndex: c.checkIndex,
    artifact: c.input.artifact,
    publicInput: c.input.publicInput,
    answers: c.answers,
    deadlineMs: c.deadlineMs,
  }));
  // A case waits at most its own deadline inside the child (a vm watchdog bounds the synchronous part
  // of evaluate); the batch bound only has to catch a child that stopped answering (an endless loop
  // after an await): a short share per case keeps that cheap, and the case in flight is then retried
  // in a child of its own, with its full deadline.
  const perCase = batch.length === 1 ? batch[0]!.deadlineMs + 250 : SHARE_MS;
  const timeoutMs = Math.min(batch.reduce((s, c) => s + Math.min(c.deadlineMs + 250, perCase), 0) + 1000, opts.maxBatchMs ?? 60_000);
  let buffered = '';
  const answered: BundleCaseResult[] = [];
  let ready = false;
  const res = await host.run({
    caseId: batch.length === 1 ? batch[0]!.id : `batch:${batch[0]!.id}..${batch[batch.length - 1]!.id}`,
    caseIds: batch.map((c) => c.id),
    ruleId: [...new Set(batch.flatMap((c) => c.ruleIds))].join(',') || 'confirm',
    toolId: 'node',
    args: [...NODE_ARGS, 'harness.mjs'],
    stdin: JSON.stringify({ bundles: wireBundles, cases: wire }),
    files,
    timeoutMs,
    maxOutputBytes: 64 * 1024 * 1024,
    env: { ...NODE_ENV },
    limits: { memoryBytes: 8 * 1024 * 1024 * 1024 },
    onStdout: (chunk) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const at = line.indexOf(MARK);
        if (at < 0) continue;
        try {
          const o = JSON.parse(line.slice(at + MARK.length)) as BundleCaseResult & { ready?: boolean };
          if (o.ready === true) ready = true;
          else answered.push(o);
        } catch {
          /* not ours */
        }
      }
    },
  });
  opts.onRun?.(res.record);
  const runId = res.record.runId;
  for (const a of answered) results.set(a.id, { ...a, runs: a.runs ?? [], rets: a.rets ?? [], pendingAtReturn: a.pendingAtReturn ?? [], runId });
  if (res.record.outcome === 'executed' && answered.length === batch.length) return [];
  const missing = batch.filter((c) => !results.has(c.id));
  if (missing.length === 0) return [];
  const inFlight = missing[0]!;
  // A batch that ran out of its short per-case share: the case in flight gets a child of its own,
  // with its full deadline, before a timeout is its answer.
  if (ready && res.record.outcome === 'timeout' && batch.length > 1) {
    // The same check probably stops answering on its other inputs too: those run one per child, so
    // each costs its own deadline rather than another whole batch bound.
    const same = missing.filter((c) => c.file === inFlight.file && c.checkId === inFlight.checkId);
    return [...same.map((c) => [c]), missing.filter((c) => !same.includes(c))];
  }
  const outcome: NonResultOutcome = res.record.outcome === 'executed' ? 'crash' : res.record.outcome;
  const detail =
    res.record.detail ??
    `the Node child ended (exit ${res.record.exitCode}) before answering: ${res.stderr.toString('utf8').trim().split('\n').slice(-3).join(' | ').slice(0, 400)}`;
  results.set(inFlight.id, { id: inFlight.id, status: outcome, runs: [], rets: [], pendingAtReturn: [], runId, detail });
  if (outcome === 'sandbox' || outcome === 'verifierUnavailable' || !ready) {
    // Nothing in this batch could run (or the harness never started): every case gets the same answer.
    for (const c of missing.slice(1)) results.set(c.id, { id: c.id, status: outcome, runs: [], rets: [], pendingAtReturn: [], runId, detail });
    return [];
  }
  return [missing.slice(1)];
}
