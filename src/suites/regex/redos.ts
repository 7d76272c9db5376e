/**
 * ReDoS analysis of Python regexes. recheck (4.5.0) is the authority; the
 * pattern is first parsed with Python semantics and translated to
 * ECMAScript. A sound structural pre-filter (`belowThreshold`) answers
 * "safe" without recheck only when the pattern can have neither exponential
 * backtracking nor polynomial backtracking of the reported degree. Anything recheck cannot analyse
 * (untranslatable syntax, timeout, error) is `notAnalysed`, never `safe`.
 * Results are cached per (pattern, options) for the whole process.
 */
import { createRequire } from 'node:module';
import { FLAG, MAXREPEAT, parsePythonRegex, PyReError, type PyNode, type PyPattern } from './python-re.js';
import { toEcmaScript } from './ecmascript.js';

export type RedosResult =
  | { status: 'safe'; by: 'prefilter' | 'recheck' }
  | { status: 'vulnerable'; complexity: 'exponential' | 'polynomial'; degree?: number; attack?: string; esSource: string }
  | { status: 'notAnalysed'; reason: string }
  | { status: 'invalid'; error: PyReError };

export interface RedosOptions {
  /** recheck time budget per pattern, ms. */
  timeoutMs: number;
  /** Lowest polynomial degree the caller reports (default 3); the pre-filter skips patterns that cannot reach it. */
  minDegree?: number;
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
      // recheck's default sync backend runs a worker thread that starts the native `recheck agent`
      // binary: a process vaudit's host does not own. The pure (Scala.js, in-process) backend starts
      // nothing; it is slower per pattern, which the pre-filter and the per-pattern cache absorb.
      process.env.RECHECK_SYNC_BACKEND = 'pure';
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

const isLoop = (n: PyNode): boolean => n.t === 'repeat' && (n.max === MAXREPEAT || n.max > 10);

/** A single-character atom (its character set is all that matters). */
function isCharAtom(n: PyNode): boolean {
  return n.t === 'lit' || n.t === 'any' || n.t === 'cat' || n.t === 'class';
}

/** Does a single-character atom accept code point `cp`? (Over-approximation for categories under flags is fine: it only keeps chains.) */
function atomAccepts(n: PyNode, cp: number): boolean {
  const ch = String.fromCodePoint(cp);
  const cat = (name: string): boolean => {
    switch (name) {
      case 'd': return /\p{Nd}/u.test(ch);
      case 'D': return !/\p{Nd}/u.test(ch);
      case 's': return /\s/u.test(ch);
      case 'S': return !/\s/u.test(ch);
      case 'w': return /[\p{L}\p{N}_]/u.test(ch);
      default: return !/[\p{L}\p{N}_]/u.test(ch);
    }
  };
  switch (n.t) {
    case 'lit': return n.cp === cp || ch.toLowerCase() === String.fromCodePoint(n.cp).toLowerCase();
    case 'any': return true;
    case 'cat': return cat(n.name);
    case 'class': {
      const hit = n.items.some((it) => (it.t === 'lit' ? it.cp === cp || ch.toLowerCase() === String.fromCodePoint(it.cp).toLowerCase() : it.t === 'range' ? [cp, ch.toLowerCase().codePointAt(0)!, ch.toUpperCase().codePointAt(0)!].some((c) => c >= it.lo && c <= it.hi) : cat(it.name)));
      return n.neg ? true : hit; // negated classes: over-approximate as accepting
    }
    default: return true;
  }
}

/** Flatten single-branch groups into one sequence; undefined when the shape needs the full analyser. */
function flatten(seq: PyNode[], out: PyNode[]): boolean {
  for (const n of seq) {
    if (n.t === 'group') {
      if (n.body.branches.length !== 1) {
        // an alternation is fine only when it holds no loop at all
        if (n.body.branches.some((b) => !flatLoopFree(b))) return false;
        continue; // a loop-free alternation: transparent (it never breaks a chain)
      }
      if (!flatten(n.body.branches[0]!, out)) return false;
    } else if (n.t === 'repeat') {
      if (!n.body.every(isCharAtom)) {
        if (isLoop(n)) return false; // nested structure under a loop: exponential cases live here
        if (!n.body.every((b) => flatLoopFree([b]))) return false;
        continue; // small bounded repeat of loop-free content: transparent
      }
      out.push(n);
    } else if (n.t === 'look' || n.t === 'backref' || n.t === 'cond' || n.t === 'atomic') {
      if (!flatLoopFree([n])) return false;
    } else {
      out.push(n);
    }
  }
  return true;
}

function flatLoopFree(seq: PyNode[]): boolean {
  return seq.every((n) => {
    switch (n.t) {
      case 'repeat': return !isLoop(n) && flatLoopFree(n.body);
      case 'group':
      case 'atomic':
      case 'look': return n.body.branches.every(flatLoopFree);
      case 'cond': return flatLoopFree(n.yes) && (n.no === null || flatLoopFree(n.no));
      case 'backref': return true;
      default: return true;
    }
  });
}

/**
 * Sound pre-filter: true when the pattern can have neither exponential nor
 * polynomial backtracking of degree ≥ `minDegree`. Exponential blow-up needs
 * an ambiguous loop (a loop whose body holds another loop, an alternation,
 * a back-reference…): such shapes always go to recheck. Polynomial degree d
 * needs a chain of d loops where each consecutive pair can read a common
 * word through everything mandatory between them; a mandatory character that
 * either loop cannot read breaks the chain. An unanchored pattern (re.search)
 * starts with an implicit loop that reads anything.
 */
export function belowThreshold(p: PyPattern, minDegree: number): boolean {
  if (p.body.branches.length !== 1) return p.body.branches.every(flatLoopFree);
  const seq: PyNode[] = [];
  if (!flatten(p.body.branches[0]!, seq)) return false;
  const anchored = seq[0]?.t === 'at' && (seq[0].name === 'A' || (seq[0].name === 'bol' && !(p.flags & FLAG.m)));
  type LoopInfo = { accepts: (cp: number) => boolean };
  let prev: LoopInfo | undefined = anchored ? undefined : { accepts: () => true };
  let chain = prev ? 1 : 0;
  let best = chain;
  let between: number[] = [];
  for (const n of seq) {
    if (n.t === 'repeat' && isLoop(n)) {
      const body: PyNode[] = n.body;
      const loop: LoopInfo = { accepts: (cp) => body.some((a) => atomAccepts(a, cp)) };
      const linked = prev !== undefined && between.every((cp) => prev!.accepts(cp) && loop.accepts(cp));
      chain = linked ? chain + 1 : 1;
      best = Math.max(best, chain);
      prev = loop;
      between = [];
    } else if (n.t === 'lit') {
      between.push(n.cp);
    } else if (n.t === 'repeat' && n.min >= 1 && n.body.length === 1 && n.body[0]!.t === 'lit') {
      between.push(n.body[0]!.cp);
    }
  }
  return best < minDegree;
}

export function analyseRedos(pattern: string, opts: RedosOptions, flags = 0): RedosResult {
  redosStats.calls++;
  const key = `${opts.timeoutMs}\0${opts.minDegree ?? 3}\0${flags}\0${pattern}`;
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
  if (belowThreshold(parsed, opts.minDegree ?? 3)) {
    redosStats.prefiltered++;
    return { status: 'safe', by: 'prefilter' };
  }
  const es = toEcmaScript(parsed, { exactEol: false });
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
