/**
 * set-collapse — equality/containment after set()/frozenset()/dict keys built from sequences (VER-004).
 * (A `javascript` visitor can be added next to `python` below.)
 */
import { defineRule } from '../../src/contract/rule.js';
import { type PyNode, field, named, unparen, comparisonOperators } from '../../src/lang/python/tree.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { isSetValued, setFromSequence, callOf } from '../../src/lang/python/facts.js';
import { literalSet, literalSetSize } from '../../src/lang/python/literal-values.js';
import { setSizeComparison, everyHasComparison, collapsedContentComparison, setDeepEqual, programOf } from '../../src/lang/js/index.js';
import type { LogicalExpression } from 'acorn';
import { pyAllAny, pyLoopLookup, pyUnique, jsEveryLookup, jsLoopLookup, type AnyMatch } from './multiset.js';

type Msg = 'collapse' | 'jsSize' | 'jsEveryHas' | 'jsContent' | 'anyMatch';

const OPS = new Set(['==', '!=', '<=', '>=', '<', '>']);

/** The sequence a set-valued operand was built from (`set(xs)` → `xs`, following a local). */
function sequenceOf(a: PythonAnalysis, e: PyNode): string | undefined {
  const s = setFromSequence(a, e);
  const c = s ? callOf(a, s) : undefined;
  const arg = c?.args[0];
  return arg ? a.src(unparen(arg)) : undefined;
}

/** The lengths were compared first (`if len(xs) != len(ys): return …`, or `len(xs) == len(ys) and …`):
 *  equal lengths and equal sets leave no room for a repeated line standing in for a missing one. */
function lengthsCompared(a: PythonAnalysis, n: PyNode, l: PyNode, r: PyNode): boolean {
  const x = sequenceOf(a, l) ?? (unparen(l).type === 'identifier' ? a.src(unparen(l)) : undefined);
  const y = sequenceOf(a, r) ?? (unparen(r).type === 'identifier' ? a.src(unparen(r)) : undefined);
  if (!x || !y) return false;
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lens = (op: string) => new RegExp(`len\\(\\s*(${esc(x)}|${esc(y)})\\s*\\)\\s*${op}\\s*len\\(\\s*(${esc(x)}|${esc(y)})\\s*\\)`);
  const fn = a.functionAt(n);
  const before = a.text.slice(fn?.node.start ?? 0, n.start);
  // the patterns are built only for text that calls len() at all (most comparisons' functions do not)
  if (before.includes('len')) {
    const m = lens('!=').exec(before);
    if (m && m[1] !== m[2]) return true;
  }
  for (let p = n.parent; p && p.type === 'boolean_operator'; p = p.parent) {
    const t = a.src(p);
    if (!t.includes('len')) continue;
    const k = lens('==').exec(t);
    if (k && k[1] !== k[2]) return true;
  }
  return false;
}

function reportAnyMatch(c: { report: (r: { messageId: Msg; data: Record<string, string>; at: { start: number; end: number } }) => void }, m: AnyMatch): void {
  const short = (t: string) => (t.replace(/\s+/g, ' ').length > 60 ? `${t.replace(/\s+/g, ' ').slice(0, 57)}...` : t.replace(/\s+/g, ' '));
  c.report({ messageId: 'anyMatch', data: { each: short(m.each), among: short(m.among) }, at: m.at });
}

/**
 * `set(xs) == set((A, B))` after an exit for `len(xs) > 2` (`if len(xs) > 2: raise …`, `>= 3`, `!= 2`):
 * with at most k items, xs can only equal a set of k distinct constants by holding each exactly once,
 * so no duplicate can stand in for a missing item.
 */
function boundedByLiteral(a: PythonAnalysis, n: PyNode, seqSide: PyNode, litSide: PyNode): boolean {
  const k = literalSetSize(a, litSide);
  const seq = sequenceOf(a, seqSide);
  if (k === undefined || !seq) return false;
  const esc = seq.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const bound = new RegExp(`len\\(\\s*${esc}\\s*\\)\\s*(?:>\\s*${k}|>=\\s*${k + 1}|!=\\s*${k})(?![\\d.])`);
  const fn = a.functionAt(n);
  if (!fn) return false;
  // an `if` before the comparison, in a block that encloses it, whose body ends by leaving the function
  for (let c: PyNode = n, p = n.parent; p && p !== fn.node; c = p, p = p.parent) {
    if (p.type !== 'block') continue;
    for (const st of named(p)) {
      if (st.start >= c.start) break;
      if (st.type !== 'if_statement') continue;
      const cond = field(st, 'condition');
      const body = field(st, 'consequence');
      const last = body ? named(body).filter((x) => x.type !== 'comment').pop() : undefined;
      if (cond && bound.test(a.src(cond)) && (last?.type === 'raise_statement' || last?.type === 'return_statement')) return true;
    }
  }
  return false;
}

export default defineRule<Msg>({
  meta: {
    id: 'set-collapse',
    description: 'Sequences compared after conversion to sets: duplicates collapse, so a duplicated line can stand in for a missing one.',
    defaultSeverity: 'warn',
    layers: ['python', 'javascript'],
    unitLocal: true,
    languages: ['python', 'javascript'],
    messages: {
      anyMatch: {
        what: 'Each element of `{{each}}` is looked up among all of `{{among}}`, and only the lengths were compared besides: a match is never used up.',
        why: '`{{each}}` = [A, A] passes against `{{among}}` = [A, B] of the same length, so a repeated answer stands in for a missing one.',
        fix: 'Compare multisets: `Counter(a) == Counter(b)` / `sorted(a) == sorted(b)` (with a tolerance, pair sorted values), or remove each matched element from a copy of the other side before matching the next.',
      },
      jsSize: {
        what: '`{{expr}}` compares the sizes of `new Set(...)` built from sequences, so duplicates collapse.',
        why: 'Output with a repeated line and a missing distinct line has the same set size as the expected lines.',
        fix: 'Compare sorted copies (`[...a].sort()` element by element) or count occurrences in a Map.',
      },
      jsContent: {
        what: '`{{expr}}` compares the content of sequences after `new Set(...)` removed their duplicates.',
        why: 'Expected `[a, a, b]` and output `[a, b, b]` give the same sorted, joined or deep-equal set content, so output that repeats one line and misses another passes.',
        fix: 'Compare sorted copies of the sequences themselves (`[...a].sort()` element by element, with equal lengths) or count occurrences in a Map.',
      },
      jsEveryHas: {
        what: '`{{expr}}` checks membership in a `new Set(...)` built from a sequence, so multiplicity is lost.',
        why: 'A repeated expected line is satisfied by a single occurrence, and extra lines go unseen.',
        fix: 'Compare sorted arrays element by element or compare occurrence counts.',
      },
      collapse: {
        what: '`{{expr}}` compares sequences after turning them into sets, so duplicates collapse.',
        why: 'Output with a repeated line and a missing distinct line can compare equal to the expected lines.',
        fix: 'Compare `sorted(a) == sorted(b)` or `Counter(a) == Counter(b)` to keep multiplicity while staying order-independent.',
      },
    },
    docs: {
      whatItDoes: 'Flags `==`, `!=` and subset comparisons (`<=`, `issubset`, `issuperset`) whose operands are sets built from sequences — `set(lines)`, `frozenset(...)`, set comprehensions, `dict.fromkeys(...)` — directly or through a local variable. Not when the other operand is a set written out in the code as a set (`{"tue", "thu"}`, `frozenset({…})`; a list written out and collapsed, `set(["1", "2"])`, is still a sequence): every item of it must then be present, so a repeated item cannot stand in for a missing one — the check has set semantics by design (weekdays, labels, permissions). Nor when `==`/`!=` compares the set of a sequence with k distinct constants after an exit for `len(xs) > k` (`>= k+1`, `!= k`): with at most k items the sequence equals the set only by holding each constant once. In JavaScript and TypeScript: `new Set(a).size === new Set(b).size`, containment `a.every((x) => S.has(x))` in a set built from a sequence, and content compared after `new Set(...)` removed duplicates — `[...new Set(a)].sort().join() === …`, `JSON.stringify(Array.from(new Set(a)).sort())`, `String([...new Set(a)])`, `isDeepStrictEqual(new Set(a), new Set(b))`, `assert.deepStrictEqual(…)`, `_.isEqual(…)`. Also a match that is never used up while the lengths were compared, so the check reads as an exact order-free comparison: `all(any(cmp(x, y) for y in ys) for x in xs)`, `all(x in ys for x in xs)` or `for x in xs: if x not in ys: return False` next to `len(xs) == len(ys)` (or an earlier `len(xs) != len(ys)` exit), and in JavaScript `xs.every((x) => ys.some(…) / ys.includes(x) / ys.indexOf(x) !== -1)` or the same `for…of` loop next to `xs.length === ys.length` — not when the iterated side cannot repeat (a set, dict keys, `range`, `Object.keys`, a written-out list of distinct items). `--confirm` runs Python functions only: JS/TS findings are static (no control case).',
      why: 'The expected output `["a", "a", "b"]` and the observed `["a", "b", "b"]` are equal as sets. The verifier passes output that is missing or duplicating lines (VER-004).',
      references: ['VER-004'],
    },
    confirm: {
      oracle: 'set-collapse',
      description: 'Runs the Python function on the expected lines and on a witness that duplicates one expected line and drops another; both passing confirms the collapse. JS/TS findings are not confirmed.',
    },
  },
  create() {
    return {
      javascript: {
        ForOfStatement(node, c, ancestors) {
          const m = jsLoopLookup(node, ancestors, c.text);
          if (m) reportAnyMatch(c, m);
        },
        BinaryExpression(node, c, ancestors) {
          const program = programOf(ancestors);
          if (program && collapsedContentComparison(node, program)) {
            c.report({ messageId: 'jsContent', data: { expr: c.text.slice(node.start, node.end).replace(/\s+/g, ' ').slice(0, 100) }, at: node });
            return;
          }
          if (!program || !setSizeComparison(node, program)) return;
          c.report({ messageId: 'jsSize', data: { expr: c.text.slice(node.start, node.end) }, at: node });
        },
        CallExpression(node, c, ancestors) {
          const program = programOf(ancestors);
          if (program && setDeepEqual(node, program)) {
            c.report({ messageId: 'jsContent', data: { expr: c.text.slice(node.start, node.end).replace(/\s+/g, ' ').slice(0, 100) }, at: node });
            return;
          }
          const any = jsEveryLookup(node, ancestors, c.text);
          if (any) {
            reportAnyMatch(c, any);
            return;
          }
          if (!program || !everyHasComparison(node, program)) return;
          // `A.size === B.size && [...A].every(x => B.has(x))` is one comparison: reported once, at the size test.
          const and = [...ancestors].reverse().find((a): a is LogicalExpression => a.type === 'LogicalExpression' && a.operator === '&&');
          if (and && (setSizeComparison(and.left, program) || setSizeComparison(and.right, program))) return;
          c.report({ messageId: 'jsEveryHas', data: { expr: c.text.slice(node.start, node.end).replace(/\s+/g, ' ').slice(0, 80) }, at: node });
        },
      },
      python: {
        for_statement(n, c) {
          const m = pyLoopLookup(c.python, n);
          if (m) reportAnyMatch(c, m);
        },
        comparison_operator(n, c) {
          const a = c.python;
          const kids = named(n);
          const ops = comparisonOperators(n);
          if (kids.length !== 2 || ops.length !== 1 || !OPS.has(ops[0]!)) return;
          const [l, r] = [unparen(kids[0]!), unparen(kids[1]!)];
          const seq = setFromSequence(a, l) ?? setFromSequence(a, r);
          if (!seq || !isSetValued(a, l) || !isSetValued(a, r)) return;
          if (lengthsCompared(a, n, l, r)) {
            // equal lengths and a subset (`len(xs) == len(ys) and set(xs) <= set(ys)`): xs = [A, A] is a subset of ys = [A, B]
            const op = ops[0]!;
            if (op === '==' || op === '!=') return;
            const each = op === '<=' || op === '<' ? l : r;
            const among = each === l ? r : l;
            const seqNode = setFromSequence(a, each);
            const inner = seqNode ? callOf(a, seqNode)?.args[0] : undefined;
            if (!inner || pyUnique(a, inner)) return;
            reportAnyMatch(c, { each: a.src(unparen(inner)), among: sequenceOf(a, among) ?? a.src(among), at: n });
            return;
          }
          // one side is a set written out as a set (`{"tue", "thu"}`): every item of it must be present in the other,
          // so a repeated item can never stand in for a missing one; the comparison is a set comparison by design
          if (literalSet(a, l) || literalSet(a, r)) return;
          if ((ops[0] === '==' || ops[0] === '!=') && (boundedByLiteral(a, n, l, r) || boundedByLiteral(a, n, r, l))) return;
          const fn = a.functionAt(n);
          c.report({
            messageId: 'collapse',
            data: { expr: a.src(n) },
            at: n,
            control: { oracle: 'set-collapse', file: a.path, line: a.line(n), qualname: fn?.qualname ?? '', left: a.src(l), right: a.src(r) },
          });
        },
        call(node, c) {
          const a = c.python;
          const m = pyAllAny(a, node);
          if (m) {
            reportAnyMatch(c, m);
            return;
          }
          const call = a.call(node);
          if (!call || !call.receiver || (call.method !== 'issubset' && call.method !== 'issuperset') || call.args.length !== 1) return;
          const other = call.args[0]!;
          const seq = setFromSequence(a, call.receiver) ?? (callOf(a, other) || other.type === 'identifier' ? setFromSequence(a, other) : undefined);
          if (!seq || !isSetValued(a, call.receiver)) return;
          if (literalSet(a, call.receiver) || literalSet(a, other)) return;
          const fn = a.functionAt(call.node);
          c.report({
            messageId: 'collapse',
            data: { expr: a.src(call.node) },
            at: call.node,
            control: { oracle: 'set-collapse', file: a.path, line: a.line(call.node), qualname: fn?.qualname ?? '', left: a.src(call.receiver), right: a.src(other) },
          });
        },
      },
    };
  },
});
