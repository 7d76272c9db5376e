/**
 * The deterministic budget of the ReDoS analysis: how large the automata of a pattern are, counted
 * without running recheck, so that whether a pattern is analysed never depends on time or load.
 *
 * recheck's automaton checker builds a position automaton of the pattern (counted repetitions
 * expanded, an unanchored search read as a leading `[\s\S]*?`), determinises its reverse for
 * look-ahead, and works on their product. Each step has no limit of its own: a determinisation can
 * blow up exponentially (`x(a|b){20}a(a|b)*` needs 2^20 states) before recheck reports a size. This
 * module builds the same position automaton (Glushkov) from the parsed Python pattern and
 * determinises its reverse with a cap on the states, over an alphabet of representative code points
 * (one per interval on which every atom of the pattern agrees, plus a few per class escape). The
 * counts are close to recheck's (the same construction; representatives may merge a few classes), and
 * they only decide whether the pattern is handed to recheck at all: the sizes recheck then reports
 * are checked again against the same budget (`redos.ts`).
 */
import { FLAG, MAXREPEAT, type ClassItem, type PyNode, type PyPattern } from './python-re.js';

export interface AutomatonBudget {
  /** Positions (character atoms after counted repetitions are expanded). */
  maxPositions: number;
  /** States of the determinised reverse automaton. */
  maxDfaStates: number;
}

export const DEFAULT_AUTOMATON_BUDGET: AutomatonBudget = { maxPositions: 1500, maxDfaStates: 1500 };

/**
 * Repetitions nested in one another (`(a(a(a)*)*)*` is 3). recheck's epsilon elimination and its
 * recursive automaton builders grow steeply with this depth, not with the positions: 100 levels
 * took seconds each in a run, and from about 70 levels on recheck may overflow its stack, at a depth
 * that depends on how far V8 has optimised it (so a verdict would depend on the run). A pattern nested
 * deeper is over the budget, counted on the parse before recheck starts. Real patterns nest 2–4 levels.
 */
const MAX_REPEAT_NESTING = 20;

export type AutomatonSize =
  | { ok: true; positions: number; dfaStates: number; alphabet: number }
  | { ok: false; over: 'positions' | 'dfaStates' | 'nesting'; limit: number };

type Atom = Extract<PyNode, { t: 'lit' | 'any' | 'cat' | 'class' }>;

/** A Glushkov fragment: its positions, whether it matches empty, and its first and last positions. */
interface Frag { nullable: boolean; first: number[]; last: number[] }

class OverBudget extends Error {
  constructor(readonly over: 'positions' | 'dfaStates' | 'nesting', readonly limit: number) {
    super(over);
  }
}

/** Does a class escape (`\d`, `\s`, `\w` and their negations) match the character? */
export function catAccepts(name: string, ch: string): boolean {
  switch (name) {
    case 'd': return /\p{Nd}/u.test(ch);
    case 'D': return !/\p{Nd}/u.test(ch);
    case 's': return /\s/u.test(ch);
    case 'S': return !/\s/u.test(ch);
    case 'w': return /[\p{L}\p{N}_]/u.test(ch);
    default: return !/[\p{L}\p{N}_]/u.test(ch);
  }
}

function itemAccepts(it: ClassItem, cp: number, ch: string, ci: boolean): boolean {
  if (it.t === 'cat') return catAccepts(it.name, ch);
  const variants = ci ? [cp, ch.toLowerCase().codePointAt(0)!, ch.toUpperCase().codePointAt(0)!] : [cp];
  return it.t === 'lit' ? variants.includes(it.cp) : variants.some((c) => c >= it.lo && c <= it.hi);
}

function accepts(a: Atom, cp: number, ci: boolean, dotAll: boolean): boolean {
  const ch = String.fromCodePoint(cp);
  switch (a.t) {
    case 'lit': return itemAccepts(a, cp, ch, ci);
    case 'any': return dotAll || cp !== 10;
    case 'cat': return catAccepts(a.name, ch);
    case 'class': return a.items.some((it) => itemAccepts(it, cp, ch, ci)) !== a.neg;
  }
}

/** Code points that stand for the classes escapes match (digits, letters, space, word and other characters, ASCII and not). */
const CLASS_SAMPLES = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x61, 0x7a, 0x20, 0x09, 0x0a, 0x2d, 0x2e, 0xe9, 0xc9, 0x663, 0x3b1, 0xa0, 0x2028, 0x4e00];

/** The sizes of the pattern's position automaton and of its reverse determinised, or which budget they exceed. */
export function automatonSize(p: PyPattern, budget: AutomatonBudget = DEFAULT_AUTOMATON_BUDGET): AutomatonSize {
  const ci = (p.flags & FLAG.i) !== 0;
  const dotAll = (p.flags & FLAG.s) !== 0;
  const atoms: Atom[] = [];
  const follow: Array<Set<number>> = [];
  const newPos = (a: Atom): number => {
    if (atoms.length >= budget.maxPositions) throw new OverBudget('positions', budget.maxPositions);
    atoms.push(a);
    follow.push(new Set());
    return atoms.length - 1;
  };
  const link = (from: readonly number[], to: readonly number[]) => { for (const f of from) for (const t of to) follow[f]!.add(t); };
  const empty = (): Frag => ({ nullable: true, first: [], last: [] });
  const cat = (a: Frag, b: Frag): Frag => {
    link(a.last, b.first);
    return {
      nullable: a.nullable && b.nullable,
      first: a.nullable ? [...a.first, ...b.first] : a.first,
      last: b.nullable ? [...a.last, ...b.last] : b.last,
    };
  };
  const alt = (fs: Frag[]): Frag => ({ nullable: fs.some((f) => f.nullable), first: fs.flatMap((f) => f.first), last: fs.flatMap((f) => f.last) });
  const star = (f: Frag): Frag => { link(f.last, f.first); return { ...f, nullable: true }; };
  let nesting = 0;
  const seq = (items: readonly PyNode[]): Frag => items.reduce<Frag>((acc, n) => cat(acc, node(n)), empty());
  const branches = (bs: readonly PyNode[][]): Frag => alt(bs.map(seq));
  function node(n: PyNode): Frag {
    switch (n.t) {
      case 'lit':
      case 'any':
      case 'cat':
      case 'class': {
        const q = newPos(n);
        return { nullable: false, first: [q], last: [q] };
      }
      case 'group':
      case 'atomic':
        return branches(n.body.branches);
      case 'cond':
        return alt([seq(n.yes), n.no ? seq(n.no) : empty()]);
      case 'repeat': {
        if (++nesting > MAX_REPEAT_NESTING) throw new OverBudget('nesting', MAX_REPEAT_NESTING);
        try {
          return repeat(n);
        } finally {
          nesting--;
        }
      }
      default:
        // anchors, look-arounds and back-references read no character here (recheck rejects back-references)
        return empty();
    }
  }
  function repeat(n: Extract<PyNode, { t: 'repeat' }>): Frag {
    // each copy is a fresh fragment: {2,4} is body body (body (body)?)?
    const unbounded = n.max === MAXREPEAT;
    let out = empty();
    for (let k = 0; k < n.min; k++) out = cat(out, seq(n.body));
    if (unbounded) return cat(out, star(seq(n.body)));
    let tail = empty();
    for (let k = n.min; k < n.max; k++) tail = alt([empty(), cat(seq(n.body), tail)]);
    return cat(out, tail);
  }
  try {
    const only = p.body.branches.length === 1 ? p.body.branches[0]! : undefined;
    const head = only?.[0];
    const anchored = head?.t === 'at' && (head.name === 'A' || (head.name === 'bol' && !(p.flags & FLAG.m)));
    const body = branches(p.body.branches);
    const whole = anchored ? body : cat(star(node({ t: 'any' })), body);
    const points = alphabet(atoms);
    const dfaStates = reverseSubsets(whole, atoms, follow, points, ci, dotAll, budget.maxDfaStates);
    return { ok: true, positions: atoms.length, dfaStates, alphabet: points.length };
  } catch (e) {
    if (e instanceof OverBudget) return { ok: false, over: e.over, limit: e.limit };
    throw e;
  }
}

/** One code point per interval on which the pattern's literals and ranges agree, plus samples for class escapes. */
function alphabet(atoms: readonly Atom[]): number[] {
  const pts = new Set<number>([0, ...CLASS_SAMPLES]);
  const add = (it: ClassItem | Atom) => {
    if (it.t === 'lit') { pts.add(it.cp); pts.add(it.cp + 1); }
    else if (it.t === 'range') { pts.add(it.lo); pts.add(it.hi + 1); }
    else if (it.t === 'class') it.items.forEach(add);
  };
  atoms.forEach(add);
  return [...pts].filter((c) => c <= 0x10ffff).sort((a, b) => a - b);
}

/**
 * Subset construction over the reverse of the position automaton: a state is the set of positions
 * the text read so far (from the end) may have started at. Throws when there are more than `max`.
 */
function reverseSubsets(whole: Frag, atoms: readonly Atom[], follow: ReadonlyArray<Set<number>>, points: readonly number[], ci: boolean, dotAll: boolean, max: number): number {
  const INIT = atoms.length; // the start state of the forward automaton
  const preds: number[][] = atoms.map(() => []);
  follow.forEach((to, p) => { for (const q of to) preds[q]!.push(p); });
  const firsts = new Set(whole.first);
  const reads = atoms.map((a) => points.map((cp) => accepts(a, cp, ci, dotAll)));
  const startSet = [...whole.last, ...(whole.nullable ? [INIT] : [])].sort((a, b) => a - b);
  const seen = new Set<string>([startSet.join(',')]);
  const queue: number[][] = [startSet];
  while (queue.length) {
    const s = queue.pop()!;
    for (let c = 0; c < points.length; c++) {
      const next = new Set<number>();
      for (const q of s) {
        if (q === INIT || !reads[q]![c]) continue;
        for (const p of preds[q]!) next.add(p);
        if (firsts.has(q)) next.add(INIT);
      }
      if (next.size === 0) continue;
      const sorted = [...next].sort((a, b) => a - b);
      const key = sorted.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      if (seen.size > max) throw new OverBudget('dfaStates', max);
      queue.push(sorted);
    }
  }
  return seen.size;
}
