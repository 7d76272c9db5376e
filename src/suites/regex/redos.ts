/**
 * ReDoS analysis of Python regexes. recheck (4.5.0) is the authority; the
 * pattern is first parsed with Python semantics and translated to
 * ECMAScript. A structural pre-filter answers "safe" without recheck only
 * when the pattern has no unbounded or large repetition (then backtracking is
 * bounded by a constant per start position). Anything recheck cannot analyse
 * (untranslatable syntax, timeout, error) is `notAnalysed`, never `safe`.
 * Results are cached per (pattern, options) for the whole process.
 */
import { createRequire } from 'node:module';
import { MAXREPEAT, parsePythonRegex, PyReError, type PyAlt, type PyNode } from './python-re.js';
import { toEcmaScript } from './ecmascript.js';

export type RedosResult =
  | { status: 'safe'; by: 'prefilter' | 'recheck' }
  | { status: 'vulnerable'; complexity: 'exponential' | 'polynomial'; degree?: number; attack?: string; esSource: string }
  | { status: 'notAnalysed'; reason: string }
  | { status: 'invalid'; error: PyReError };

export interface RedosOptions {
  /** recheck time budget per pattern, ms. */
  timeoutMs: number;
}

type CheckSync = (source: string, flags: string, params?: Record<string, unknown>) => {
  status: 'safe' | 'vulnerable' | 'unknown';
  complexity?: { type: string; degree?: number };
  attack?: { pattern?: string; string?: string };
  error?: { kind?: string; message?: string } | string;
};

const require = createRequire(import.meta.url);
let checkSyncFn: CheckSync | null | undefined;
let safeRegex: ((re: string | RegExp, opts?: { limit?: number }) => boolean) | undefined;

function recheck(): CheckSync | null {
  if (checkSyncFn === undefined) {
    try {
      checkSyncFn = (require('recheck') as { checkSync: CheckSync }).checkSync;
    } catch {
      checkSyncFn = null;
    }
  }
  return checkSyncFn;
}

function starHeightHeuristic(source: string): boolean | undefined {
  try {
    safeRegex ??= require('safe-regex2') as (re: string | RegExp, opts?: { limit?: number }) => boolean;
    return safeRegex(source);
  } catch {
    return undefined;
  }
}

const cache = new Map<string, RedosResult>();
export const redosStats = { calls: 0, cacheHits: 0, prefiltered: 0, recheckCalls: 0, recheckMs: 0 };

/** True when some repetition is unbounded or large (the only way backtracking can blow up). */
function hasRiskyRepeat(alt: PyAlt): boolean {
  const seq = (s: PyNode[]): boolean => s.some(node);
  const node = (n: PyNode): boolean => {
    switch (n.t) {
      case 'repeat':
        return n.max === MAXREPEAT || n.max > 10 || seq(n.body);
      case 'group':
      case 'atomic':
      case 'look':
        return hasRiskyRepeat(n.body);
      case 'cond':
        return seq(n.yes) || (n.no !== null && seq(n.no));
      default:
        return false;
    }
  };
  return alt.branches.some(seq);
}

export function analyseRedos(pattern: string, opts: RedosOptions, flags = 0): RedosResult {
  redosStats.calls++;
  const key = `${opts.timeoutMs}\0${flags}\0${pattern}`;
  const hit = cache.get(key);
  if (hit) {
    redosStats.cacheHits++;
    return hit;
  }
  const r = analyseUncached(pattern, opts, flags);
  cache.set(key, r);
  return r;
}

function analyseUncached(pattern: string, opts: RedosOptions, flags: number): RedosResult {
  let parsed;
  try {
    parsed = parsePythonRegex(pattern, flags);
  } catch (e) {
    if (e instanceof PyReError) return { status: 'invalid', error: e };
    throw e;
  }
  if (!hasRiskyRepeat(parsed.body)) {
    redosStats.prefiltered++;
    return { status: 'safe', by: 'prefilter' };
  }
  const es = toEcmaScript(parsed);
  if (!es.ok) return { status: 'notAnalysed', reason: es.reason };
  const check = recheck();
  if (!check) return { status: 'notAnalysed', reason: 'the recheck analyser is not available' };
  const t0 = performance.now();
  let d: ReturnType<CheckSync>;
  try {
    redosStats.recheckCalls++;
    d = check(es.source, es.flags, { timeout: opts.timeoutMs });
  } catch (e) {
    return { status: 'notAnalysed', reason: `recheck failed (${(e as Error).message})` };
  } finally {
    redosStats.recheckMs += performance.now() - t0;
  }
  if (d.status === 'safe') return { status: 'safe', by: 'recheck' };
  if (d.status === 'vulnerable') {
    const c = d.complexity;
    return {
      status: 'vulnerable',
      complexity: c?.type === 'exponential' ? 'exponential' : 'polynomial',
      degree: c?.degree,
      attack: d.attack?.pattern,
      esSource: es.source,
    };
  }
  const kind = typeof d.error === 'string' ? d.error : (d.error?.kind ?? d.error?.message ?? 'unknown error');
  const nested = starHeightHeuristic(es.source) === false ? '; it has nested quantifiers, a common cause of exponential backtracking' : '';
  return { status: 'notAnalysed', reason: `recheck could not decide (${kind})${nested}` };
}
