/**
 * ReDoS analysis of Python regexes. recheck (4.5.0) is the authority; the
 * pattern is first parsed with Python semantics and translated to
 * ECMAScript. A sound structural pre-filter (`belowThreshold`) answers
 * "safe" without recheck only when the pattern can have neither exponential
 * backtracking nor polynomial backtracking of the reported degree. Anything recheck cannot analyse
 * (untranslatable syntax, a pattern over the budget, an error) is `notAnalysed`, never `safe`.
 *
 * The result never depends on time or load: recheck runs its automaton checker with no time limit and
 * a fixed seed, and the budget is a count of automaton states (`automaton-size.ts`), checked on the
 * pattern before recheck starts and again on the sizes recheck reports as it builds them (its logger);
 * a pattern over it is `notAnalysed` with `limit` set (the rule makes it a note of the run, not a finding).
 * Results are cached per (pattern, flags, options) for the whole process and, when a run
 * uses `--cache`, across runs: the verdicts recheck reached are kept in `<cache>/redos.cache`
 * (`useRedosCacheFile`), stamped with vaudit's code so a changed analyser never serves them.
 */
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../../core/write-atomic.js';
import { FLAG, MAXREPEAT, parsePythonRegex, PyReError, type PyNode, type PyPattern } from './python-re.js';
import { toEcmaScript } from './ecmascript.js';
import { automatonSize, catAccepts, DEFAULT_AUTOMATON_BUDGET, type AutomatonBudget } from './automaton-size.js';

export type RedosResult =
  | { status: 'safe'; by: 'prefilter' | 'recheck' }
  | { status: 'vulnerable'; complexity: 'exponential' | 'polynomial'; degree?: number; attack?: string; esSource: string }
  | { status: 'notAnalysed'; reason: string; limit?: 'budget' | 'unsupported' }
  | { status: 'invalid'; error: PyReError };

export interface RedosOptions {
  /** Automaton-size budget per pattern (default `DEFAULT_AUTOMATON_BUDGET`). */
  budget?: AutomatonBudget;
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
export const redosStats = {
  calls: 0,
  /** Patterns answered from the cache (same pattern earlier in the run, or a verdict of an earlier run). */
  cacheHits: 0,
  /** Of those, verdicts read from the `--cache` folder. */
  diskHits: 0,
  diskEntries: 0,
  prefiltered: 0,
  recheckCalls: 0,
  recheckMs: 0,
};

const isLoop = (n: PyNode): boolean => n.t === 'repeat' && (n.max === MAXREPEAT || n.max > 10);

/** A single-character atom (its character set is all that matters). */
function isCharAtom(n: PyNode): boolean {
  return n.t === 'lit' || n.t === 'any' || n.t === 'cat' || n.t === 'class';
}

/** Does a single-character atom accept code point `cp`? (Over-approximation for categories under flags is fine: it only keeps chains.) */
function atomAccepts(n: PyNode, cp: number): boolean {
  const ch = String.fromCodePoint(cp);
  const cat = (name: string): boolean => catAccepts(name, ch);
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

/** No unbounded (or large) repetition anywhere in the sequence. */
function flatLoopFree(seq: PyNode[]): boolean {
  return seq.every((n) => {
    switch (n.t) {
      case 'repeat': return !isLoop(n) && flatLoopFree(n.body);
      case 'group':
      case 'atomic':
      case 'look': return n.body.branches.every(flatLoopFree);
      case 'cond': return flatLoopFree(n.yes) && (n.no === null || flatLoopFree(n.no));
      default: return true;
    }
  });
}

/** Does any part of the pattern switch case-insensitive matching on? */
function usesIgnoreCase(p: PyPattern): boolean {
  if (p.flags & FLAG.i) return true;
  const inSeq = (seq: PyNode[]): boolean => seq.some((n) => {
    switch (n.t) {
      case 'group': return !!(n.addFlags & FLAG.i) || n.body.branches.some(inSeq);
      case 'atomic':
      case 'look': return n.body.branches.some(inSeq);
      case 'cond': return inSeq(n.yes) || (n.no !== null && inSeq(n.no));
      case 'repeat': return inSeq(n.body);
      default: return false;
    }
  });
  return p.body.branches.some(inSeq);
}

/** Over-approximation of "atom `n` reads code point `cp`" (exact for negated classes of plain characters without IGNORECASE). */
function reads(n: PyNode, cp: number, ci: boolean): boolean {
  if (n.t === 'class' && n.neg) {
    if (ci || n.items.some((it) => it.t === 'cat')) return true;
    return !n.items.some((it) => (it.t === 'lit' ? it.cp === cp : it.t === 'range' && cp >= it.lo && cp <= it.hi));
  }
  return atomAccepts(n, cp);
}

/** Characters a non-negated class of plain characters holds (undefined when larger than a few hundred or not plain). */
function smallSet(n: PyNode): number[] | undefined {
  if (n.t === 'lit') return [n.cp];
  if (n.t !== 'class' || n.neg) return undefined;
  const out: number[] = [];
  for (const it of n.items) {
    if (it.t === 'lit') out.push(it.cp);
    else if (it.t === 'range' && it.hi - it.lo < 512 && out.length < 1024) for (let c = it.lo; c <= it.hi; c++) out.push(c);
    else return undefined;
  }
  return out;
}

/** Can two single-character atoms read a common character? (Over-approximation: true unless provably disjoint.) */
function mayMeet(a: PyNode, b: PyNode, ci: boolean): boolean {
  const sa = smallSet(a);
  if (sa) return sa.some((cp) => reads(b, cp, ci));
  const sb = smallSet(b);
  if (sb) return sb.some((cp) => reads(a, cp, ci));
  return true;
}

const MAX_WORDS = 64;
const MAX_WORD = 64;

/**
 * The body of a loop as a finite set of words, each a fixed sequence of single-character atoms
 * (alternations and small bounded repeats expanded); undefined when the body holds anything else
 * (a nested loop, an anchor, a look-around, a back-reference) or too many words.
 */
function loopWords(seq: PyNode[]): PyNode[][] | undefined {
  let words: PyNode[][] = [[]];
  const times = (suffixes: PyNode[][]): boolean => {
    const next: PyNode[][] = [];
    for (const w of words) for (const x of suffixes) next.push([...w, ...x]);
    if (next.length > MAX_WORDS || next.some((w) => w.length > MAX_WORD)) return false;
    words = next;
    return true;
  };
  for (const n of seq) {
    if (isCharAtom(n)) {
      if (!times([[n]])) return undefined;
    } else if (n.t === 'group') {
      const alts: PyNode[][] = [];
      for (const b of n.body.branches) {
        const ws = loopWords(b);
        if (!ws) return undefined;
        alts.push(...ws);
      }
      if (!times(alts)) return undefined;
    } else if (n.t === 'repeat' && !isLoop(n)) {
      const body = loopWords(n.body);
      if (!body) return undefined;
      const alts: PyNode[][] = [];
      let reps: PyNode[][] = [[]];
      for (let k = 0; k <= n.max; k++) {
        if (k >= n.min) alts.push(...reps);
        if (k === n.max) break;
        const next: PyNode[][] = [];
        for (const r of reps) for (const b of body) next.push([...r, ...b]);
        if (next.length > MAX_WORDS) return undefined;
        reps = next;
      }
      if (!times(alts)) return undefined;
    } else {
      return undefined;
    }
  }
  return words;
}

/**
 * Sardinas–Patterson over words of character sets: true when no string splits into words of the
 * set in two ways (so a loop over them has one path per input: no exponential backtracking).
 * Atoms that may share a character count as equal, so "true" is sound.
 */
function uniquelyDecodable(words: PyNode[][], ci: boolean): boolean {
  if (words.some((w) => w.length === 0)) return false;
  const fits = (x: PyNode[], xi: number, y: PyNode[], yi: number, len: number) => {
    for (let k = 0; k < len; k++) if (!mayMeet(x[xi + k]!, y[yi + k]!, ci)) return false;
    return true;
  };
  const seen = new Set<string>();
  const queue: Array<[number, number]> = [];
  const push = (w: number, off: number) => {
    const k = `${w}:${off}`;
    if (!seen.has(k)) { seen.add(k); queue.push([w, off]); }
  };
  for (let i = 0; i < words.length; i++) {
    for (let j = 0; j < words.length; j++) {
      if (i === j) continue;
      const p = words[i]!;
      const q = words[j]!;
      if (p.length > q.length || !fits(p, 0, q, 0, p.length)) continue;
      if (p.length === q.length) return false;
      push(j, p.length);
    }
  }
  while (queue.length) {
    const [j, off] = queue.pop()!;
    const s = words[j]!;
    const rest = s.length - off;
    for (let k = 0; k < words.length; k++) {
      const w = words[k]!;
      if (w.length <= rest) {
        if (!fits(w, 0, s, off, w.length)) continue;
        if (w.length === rest) return false;
        push(j, off + w.length);
      } else if (fits(s, off, w, 0, rest)) push(k, rest);
    }
  }
  return true;
}

/** A loop of the screened pattern: which characters it may read. */
type Loop = { accepts: (cp: number) => boolean };
/** Chain state at a point of the pattern: the last loop, the chain length ending there, mandatory literals since. */
interface ChainState { prev: Loop | undefined; chain: number; between: number[] }

class Unscreenable extends Error {}

/**
 * Sound screen: true when the pattern can have neither exponential nor polynomial backtracking
 * of degree ≥ `minDegree`; false sends it to recheck.
 *
 * Exponential backtracking needs a loop that reads some input in two ways. A loop over one
 * character class cannot; a loop over a finite set of fixed-length words (alternations and small
 * bounded repeats of characters) cannot when the words are uniquely decodable (Sardinas–Patterson,
 * with atoms that may share a character treated as equal). Any other loop body (a nested loop, a
 * look-around, a back-reference) goes to recheck.
 *
 * Polynomial degree d needs a chain of d loops where each consecutive pair can read a common
 * word through everything mandatory between them: a mandatory literal that either loop cannot
 * read breaks the chain. Alternatives and optional parts are followed on every path and merged
 * (longest chain, union of loops, only the literals common to all paths), which over-approximates.
 * An unanchored pattern (re.search) starts with an implicit loop that reads anything.
 */
export function belowThreshold(p: PyPattern, minDegree: number): boolean {
  const ci = usesIgnoreCase(p);
  let best = 0;
  let work = 0;
  const merge = (states: ChainState[]): ChainState => {
    const first = states[0]!;
    if (states.every((s) => s === first)) return first;
    const loops = [...new Set(states.map((s) => s.prev).filter((l): l is Loop => !!l))];
    let common = first.between.length;
    for (const s of states) {
      let k = 0;
      while (k < common && k < s.between.length && s.between[k] === first.between[k]) k++;
      common = k;
    }
    return {
      prev: loops.length === 0 ? undefined : loops.length === 1 ? loops[0] : { accepts: (cp) => loops.some((l) => l.accepts(cp)) },
      chain: Math.max(...states.map((s) => s.chain)),
      between: first.between.slice(0, common),
    };
  };
  const loop = (st: ChainState, l: Loop): ChainState => {
    const linked = st.prev !== undefined && st.between.every((cp) => st.prev!.accepts(cp) && l.accepts(cp));
    const chain = linked ? st.chain + 1 : 1;
    best = Math.max(best, chain);
    return { prev: l, chain, between: [] };
  };
  const seq = (items: PyNode[], st: ChainState): ChainState => {
    for (const n of items) {
      if (++work > 20_000) throw new Unscreenable();
      switch (n.t) {
        case 'lit':
          st = { ...st, between: [...st.between, n.cp] };
          break;
        case 'group':
          st = n.body.branches.length === 1 ? seq(n.body.branches[0]!, st) : merge(n.body.branches.map((b) => seq(b, st)));
          break;
        case 'repeat': {
          if (isLoop(n)) {
            let atoms: PyNode[];
            if (n.body.every(isCharAtom)) atoms = n.body;
            else {
              const words = loopWords(n.body);
              if (!words || !uniquelyDecodable(words, ci)) throw new Unscreenable();
              atoms = words.flat();
            }
            st = loop(st, { accepts: (cp) => atoms.some((a) => reads(a, cp, ci)) });
          } else if (n.min >= 1 && n.body.length === 1 && n.body[0]!.t === 'lit') {
            st = { ...st, between: [...st.between, n.body[0]!.cp] };
          } else if (!n.body.every(isCharAtom)) {
            // a small bounded repeat of structure: every count from min to max, merged
            const ends: ChainState[] = [];
            let cur = st;
            for (let k = 0; k <= n.max; k++) {
              if (k >= n.min) ends.push(cur);
              if (k < n.max) cur = seq(n.body, cur);
            }
            st = merge(ends);
          }
          break;
        }
        case 'look':
        case 'backref':
        case 'cond':
        case 'atomic':
          if (!flatLoopFree([n])) throw new Unscreenable();
          break;
        default:
          break; // single characters and anchors other than literals never break a chain (over-approximation)
      }
    }
    return st;
  };
  try {
    const only = p.body.branches.length === 1 ? p.body.branches[0]! : undefined;
    const head = only?.[0];
    const anchored = head?.t === 'at' && (head.name === 'A' || (head.name === 'bol' && !(p.flags & FLAG.m)));
    const start: ChainState = anchored
      ? { prev: undefined, chain: 0, between: [] }
      : { prev: { accepts: () => true }, chain: 1, between: [] };
    best = start.chain;
    const top: PyNode = { t: 'group', index: null, name: null, addFlags: 0, delFlags: 0, body: p.body };
    seq([top], start);
  } catch (e) {
    if (e instanceof Unscreenable) return false;
    throw e;
  }
  return best < minDegree;
}

const DISK_FORMAT = 1;
const DISK_MAX_ENTRIES = 5000;
/** The cross-run store: its file, the code stamp it is valid for, and the recheck verdicts of this process. */
const disk: { file?: string; stamp?: string; loaded: boolean; verdicts: Map<string, RedosResult>; dirty: boolean } = {
  loaded: false,
  verdicts: new Map(),
  dirty: false,
};

/**
 * Keep recheck's verdicts across runs in `file` (the `--cache` folder), valid only for the same
 * `stamp` (vaudit's code). `undefined` stops using a file.
 */
export function useRedosCacheFile(file: string | undefined, stamp = ''): void {
  disk.file = file;
  disk.stamp = stamp;
  disk.loaded = false;
}

function loadDisk(): void {
  if (disk.loaded || !disk.file) return;
  disk.loaded = true;
  try {
    const e = JSON.parse(readFileSync(disk.file, 'utf8')) as { format?: number; stamp?: string; entries?: Array<[string, RedosResult]> };
    if (e.format !== DISK_FORMAT || e.stamp !== disk.stamp || !Array.isArray(e.entries)) return;
    for (const [k, v] of e.entries) {
      if (typeof k !== 'string' || !v || typeof v !== 'object' || cache.has(k)) continue;
      cache.set(k, v);
      disk.verdicts.set(k, v);
      redosStats.diskEntries++;
    }
  } catch {
    // no file yet, or a corrupt one: a miss
  }
}

/** Write the verdicts recheck reached (this run's and the loaded ones) to the cache file, if any changed. */
export function saveRedosCache(): void {
  if (!disk.file || !disk.dirty) return;
  const entries = [...disk.verdicts].slice(-DISK_MAX_ENTRIES);
  try {
    mkdirSync(path.dirname(disk.file), { recursive: true });
    writeAtomic(disk.file, JSON.stringify({ format: DISK_FORMAT, stamp: disk.stamp, entries }));
    disk.dirty = false;
  } catch {
    // an unwritable cache folder only costs speed
  }
}

/** The budget as the cache key and the messages name it. */
function budgetKey(b: AutomatonBudget): string {
  return `${b.maxPositions}/${b.maxDfaStates}`;
}

export function analyseRedos(pattern: string, opts: RedosOptions = {}, flags = 0): RedosResult {
  redosStats.calls++;
  const budget = opts.budget ?? DEFAULT_AUTOMATON_BUDGET;
  const key = `${budgetKey(budget)}\0${opts.minDegree ?? 3}\0${flags}\0${pattern}`;
  loadDisk();
  const hit = cache.get(key);
  if (hit) {
    redosStats.cacheHits++;
    if (disk.verdicts.has(key)) redosStats.diskHits++;
    return hit;
  }
  const before = redosStats.recheckCalls;
  const r = analyseUncached(pattern, { ...opts, budget }, flags);
  cache.set(key, r);
  // only what recheck decided is worth keeping across runs (the screen and the parser are cheap); every
  // verdict is a function of the pattern, flags and budget, so it holds on any machine
  if (redosStats.recheckCalls > before && disk.file) {
    disk.verdicts.set(key, r);
    disk.dirty = true;
  }
  return r;
}

/** Thrown from recheck's logger when a size it reports is over the budget: recheck stops there. */
class RecheckOverBudget extends Error {}

/**
 * recheck's parameters: the automaton checker only (the fuzzer's budgets are wall-clock and its cost
 * is seconds per pattern), no time limit anywhere (`recallTimeout` < 0 skips the recall run, which is
 * timed), a fixed seed, and a logger that stops the analysis when the product automaton it is about to
 * build (reverse DFA × position automaton, and its transitions) is larger than the budget allows.
 */
function recheckParams(budget: AutomatonBudget): Record<string, unknown> {
  const sizes: Record<string, number> = {};
  const maxProduct = budget.maxPositions * 16;
  const maxTransitions = maxProduct * 256;
  return {
    checker: 'automaton',
    timeout: null,
    recallTimeout: -1,
    randomSeed: 0,
    logger: (message: string) => {
      const m = /^automaton: (\w+) construction\n\s*state size: (\d+)\n\s*alphabet size: (\d+)/.exec(message);
      if (!m) return;
      sizes[m[1]!] = Number(m[2]);
      sizes[`${m[1]!}Alphabet`] = Number(m[3]);
      if (m[1] !== 'DFA') return;
      const product = (sizes.OrderedNFA ?? 0) * (sizes.DFA ?? 0);
      if (product > maxProduct || product * (sizes.OrderedNFAAlphabet ?? 0) * (sizes.DFA ?? 0) > maxTransitions) throw new RecheckOverBudget();
    },
  };
}

const overBudget = (what: string, budget: AutomatonBudget): RedosResult => ({
  status: 'notAnalysed',
  limit: 'budget',
  reason: `its automaton is larger than the analysis budget (${what}; budget ${budgetKey(budget)} positions/states)`,
});

function analyseUncached(pattern: string, opts: RedosOptions & { budget: AutomatonBudget }, flags: number): RedosResult {
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
  const size = automatonSize(parsed, opts.budget);
  if (!size.ok) {
    return overBudget(
      size.over === 'positions' ? `more than ${size.limit} positions`
        : size.over === 'nesting' ? `more than ${size.limit} repetitions nested in one another`
          : `its reverse determinises to more than ${size.limit} states`,
      opts.budget,
    );
  }
  const check = recheck();
  if (!check) return { status: 'notAnalysed', reason: 'the recheck analyser is not available' };
  const t0 = performance.now();
  let d: ReturnType<CheckSync>;
  try {
    redosStats.recheckCalls++;
    d = check(es.source, es.flags, recheckParams(opts.budget));
  } catch (e) {
    if (e instanceof RecheckOverBudget) return overBudget('the product automaton recheck would build', opts.budget);
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
  const err = typeof d.error === 'string' ? { kind: d.error } : d.error;
  // the automaton checker does not model back-references and look-arounds: a limit of the analyser, like
  // the budget (recheck's fuzzer would take them, but its cost is unbounded in memory: `^((a+)+)\1$`
  // exhausts the heap however its step limits are set)
  if (err?.kind === 'unsupported') return { status: 'notAnalysed', limit: 'unsupported', reason: `the automaton analysis does not support it (${err.message ?? 'unsupported'})` };
  const kind = err?.kind ?? err?.message ?? 'unknown error';
  const nested = starHeightHeuristic(es.source) === false ? '; it has nested quantifiers, a common cause of exponential backtracking' : '';
  return { status: 'notAnalysed', reason: `recheck could not decide (${kind})${nested}` };
}
