/**
 * Oracle `regex-redos`: the pattern run by the host's Python `re` on the attack input the analysis found,
 * grown until the backtracking the analysis predicts is far beyond the case's bound (≥ 1e11 steps: 2^40 for
 * an exponential pattern — 37 pumps —, a length whose d-th power is 1e11 for O(n^d)), next to the same attack
 * shrunk (pumps of ≤ 12 characters; a length whose d-th power is ≤ 1e5). The verdict rests on that gap of six orders of magnitude, not on a measured time: a loaded
 * machine makes the small case slower by a small factor, never by 20 000.
 *
 * finding.control: { oracle: 'regex-redos', pattern: string (Python source of the pattern), flags: number
 *   (Python's re flag bits), attack: string (recheck's attack, `'a' + 'a'.repeat(31) + '\x00'`),
 *   complexity: 'exponential' | 'polynomial', degree?: number, method?: 'search' | 'match' | 'fullmatch' }
 * confirmed: the small attack returned and the grown one did not finish within the case's bound ·
 * refuted: the grown attack returned within the bound (Python's engine does not blow up on it) ·
 * unreached: the small attack did not return (the pattern does not compile or run in this Python).
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase } from '../../src/confirm/harness.js';
import { num, outcomeOf, str, type Oracle } from '../../src/confirm/oracle-kit.js';

/** Steps the grown attack is built for, and the most the small one may take. */
const BIG_STEPS = 1e11;
const SMALL_STEPS = 1e5; // polynomial patterns
/** The longest grown input (characters): memory, not time, bounds it. */
const MAX_CHARS = 8_000_000;

interface Part {
  text: string;
  times?: number;
}

/** recheck's attack expression (`'a' + 'b'.repeat(31) + '\x00'`) as literal parts and repeats. */
export function parseAttack(expr: string): Part[] | undefined {
  const parts: Part[] = [];
  const re = /\s*'((?:\\.|[^'\\])*)'(?:\.repeat\((\d+)\))?\s*(\+|$)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while (end < expr.length && (m = re.exec(expr))) {
    const text = unescapeJs(m[1]!);
    if (text === undefined) return undefined;
    parts.push({ text, ...(m[2] ? { times: Number(m[2]) } : {}) });
    end = re.lastIndex;
    if (m[3] === '') break;
  }
  return end >= expr.length && parts.length ? parts : undefined;
}

function unescapeJs(s: string): string | undefined {
  let bad = false;
  const out = s.replace(/\\(u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|.)/g, (_, e: string, cp?: string, u?: string, x?: string) => {
    if (cp) return String.fromCodePoint(parseInt(cp, 16));
    if (u) return String.fromCharCode(parseInt(u, 16));
    if (x) return String.fromCharCode(parseInt(x, 16));
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0', '\\': '\\', "'": "'", '"': '"' };
    if (e in simple) return simple[e]!;
    bad = true;
    return '';
  });
  return bad ? undefined : out;
}

/** The parts with every repeat scaled so the input length is `len` (polynomial), or every repeat `n` (exponential). */
function scaled(parts: Part[], f: (times: number) => number): Part[] {
  return parts.map((p) => (p.times === undefined ? p : { ...p, times: Math.max(1, f(p.times)) }));
}
const length = (parts: Part[]) => parts.reduce((n, p) => n + p.text.length * (p.times ?? 1), 0);

/** A Python expression that builds the input. */
const pyInput = (parts: Part[]) => parts.map((p) => `${JSON.stringify(p.text)}${p.times === undefined ? '' : ` * ${p.times}`}`).join(' + ');

const oracle: Oracle = {
  id: 'regex-redos',
  async plan(ctx) {
    const pattern = str(ctx.control.pattern);
    const attack = str(ctx.control.attack);
    const parts = attack !== undefined ? parseAttack(attack) : undefined;
    if (pattern === undefined || !parts || !parts.some((p) => p.times !== undefined))
      return { status: 'unsupported', detail: `vaudit could not build the attack input${attack ? ` from ${attack}` : ''}; the finding stands as a static one` };
    const flags = (num(ctx.control.flags) ?? 0) & ~1; // re.TEMPLATE is gone from recent Pythons
    const method = ['match', 'fullmatch'].includes(str(ctx.control.method) ?? '') ? str(ctx.control.method)! : 'search';
    const exponential = ctx.control.complexity === 'exponential';
    const degree = Math.max(2, num(ctx.control.degree) ?? 2);
    let big: Part[];
    let small: Part[];
    if (exponential) {
      big = scaled(parts, () => Math.ceil(Math.log2(BIG_STEPS)));
      // each repeat of the pump at least doubles the work; a small input keeps every pump to ≤ 12 characters,
      // so that even a pattern that branches three ways per character stays under 3^12 ≈ 5e5 steps
      small = parts.map((p) => (p.times === undefined ? p : { ...p, times: Math.max(1, Math.floor(12 / Math.max(1, p.text.length))) }));
    } else {
      const base = length(parts);
      const grow = (target: number) => (times: number) => Math.round((times * target) / base);
      big = scaled(parts, grow(Math.min(MAX_CHARS, Math.ceil(BIG_STEPS ** (1 / degree)))));
      small = scaled(parts, grow(Math.floor(SMALL_STEPS ** (1 / degree))));
      if (length(big) ** degree < BIG_STEPS) return { status: 'unsupported', detail: `an input long enough for 1e11 steps at O(n^${degree}) would exceed ${MAX_CHARS} characters; the finding stands as a static one` };
    }
    const run = (input: Part[]) => `lambda: __import__("re").compile(${JSON.stringify(pattern)}, ${flags}).${method}(${pyInput(input)}) is not None`;
    const cases: PyCase[] = [
      { id: 'small', op: 'lambda', source: run(small), args: [], timeoutMs: ctx.timeoutMs },
      { id: 'big', op: 'lambda', source: run(big), args: [], timeoutMs: ctx.timeoutMs },
    ];
    const describe = (input: Part[]) => `${input.map((p) => `${JSON.stringify(p.text)}${p.times === undefined ? '' : ` × ${p.times}`}`).join(' + ')} (${length(input)} characters)`;
    const how = exponential ? 'exponential' : `O(n^${degree})`;
    return {
      cases,
      judge(results): Confirmation {
        const [s, b] = [results.get('small'), results.get('big')];
        const witness = `re.${method} of the pattern on ${describe(big)}`;
        const expected = `re.${method} returns within ${ctx.timeoutMs} ms`;
        if (s?.status !== 'returned')
          return { status: 'unreached', detail: `the pattern did not run on the small attack ${describe(small)} in this Python (${outcomeOf(s)})`, runId: s?.runId };
        if (b?.status === 'deadline' || b?.status === 'timeout')
          return { status: 'confirmed', witness, expected, observed: `did not finish within ${ctx.timeoutMs} ms (the ${how} backtracking the analysis predicts: ≥ 1e11 steps), while the same attack shrunk to ${describe(small)} returned in ${s.ms ?? '?'} ms`, runId: b.runId };
        if (b?.status === 'returned')
          return { status: 'refuted', witness, expected, observed: `returned ${JSON.stringify(b.value)} in ${b.ms ?? '?'} ms: Python's re does not backtrack on it as predicted`, runId: b.runId };
        return { status: b?.status === 'crash' || b?.status === 'sandbox' || b?.status === 'verifierUnavailable' ? b.status : 'unreached', detail: `the grown attack gave no answer (${outcomeOf(b)})`, runId: b?.runId };
      },
    };
  },
};
export default oracle;
