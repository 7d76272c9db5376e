/**
 * vacuous-verdict — a verdict that passes without comparing anything: `zip()` over two sequences with
 * no length check (the extra items are never compared, an empty result compares nothing), or a loop
 * that can only fail inside its body (or an `all(...)`) over a collection that may be empty.
 *
 * A new rule rather than a wider `vacuous-absence`: that rule is about absence checks on a None
 * operand; these are about iteration that never runs, and about failing guards that can never fire
 * (`if len(x) < 0: return 0`, `if x is None` / `if not isinstance(x, list)` right after `x = list(...)`).
 */
import { defineRule, type PythonVisitor, type RuleContext } from '../../src/contract/rule.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, nextNamed, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { isVerdictFunction } from '../../src/suites/verdict.js';
import { valueKind } from '../../src/lang/python/value-kind.js';
import { signatureOf } from '../../src/lang/python/signature.js';
import { jsVerdictScope } from '../../src/suites/verdict.js';
import { programOf } from '../../src/lang/js/index.js';
import { jsEmptyVerdict } from './js-empty.js';
import type { AnyNode } from 'acorn';

type Msg = 'zipTruncation' | 'zipPrefix' | 'emptyLoop' | 'emptyAll' | 'deadGuard' | 'jsEmptyResult';

/** `0`/`False`/`0.0`/`(False, …)` → false, `1`/`True`/`1.0` → true. */
function constTruth(a: PythonAnalysis, n: PyNode | undefined): boolean | undefined {
  if (!n) return undefined;
  const e = unparen(n);
  if (e.type === 'true') return true;
  if (e.type === 'false') return false;
  if (e.type === 'integer' || e.type === 'float') {
    const v = Number(a.src(e).replace(/_/g, ''));
    return v === 0 ? false : v === 1 ? true : undefined;
  }
  if (e.type === 'tuple' || e.type === 'expression_list') return constTruth(a, named(e)[0]);
  return undefined;
}

/** The root name of `x`, `x.attr`, `x["k"]`, `x.items()`. */
function rootName(a: PythonAnalysis, n: PyNode): string | undefined {
  let e = unparen(n);
  for (;;) {
    if (e.type === 'identifier') return a.src(e);
    if (e.type === 'attribute') e = field(e, 'object') ?? e;
    else if (e.type === 'subscript') e = field(e, 'value') ?? e;
    else if (e.type === 'call') e = field(e, 'function') ?? e;
    else return undefined;
    if (!e) return undefined;
  }
}

/** Does the function test the length or emptiness of `name` anywhere (`len(name)`, `not name`, `if name:`)? */
function guarded(a: PythonAnalysis, fn: FunctionInfo, texts: string[]): boolean {
  let hit = false;
  walk(fn.node, (n) => {
    if (hit) return false;
    if (n.type === 'call' && a.src(field(n, 'function') ?? n) === 'len') {
      const arg = named(field(n, 'arguments') ?? n)[0];
      if (arg && texts.some((t) => a.src(arg) === t || a.src(arg).startsWith(`${t}.`) || a.src(arg).startsWith(`${t}[`))) hit = true;
    } else if (n.type === 'not_operator') {
      const arg = field(n, 'argument');
      if (arg && texts.includes(a.src(unparen(arg)))) hit = true;
    } else if ((n.type === 'if_statement' || n.type === 'elif_clause' || n.type === 'while_statement' || n.type === 'assert_statement') && texts.includes(a.src(unparen(field(n, 'condition') ?? named(n)[0] ?? n)))) hit = true;
    return undefined;
  });
  return hit;
}

function paramIndex(fn: FunctionInfo, name: string | undefined): number {
  if (!name) return -1;
  const i = fn.params.indexOf(name);
  return fn.classNode ? (i > 0 ? i - 1 : -1) : i;
}

/** The parameter a collection is (or is a plain copy of, `cells = result`), as a call index. */
function paramOf(a: PythonAnalysis, fn: FunctionInfo, coll: PyNode): number {
  const direct = paramIndex(fn, a.src(coll));
  if (direct >= 0 || coll.type !== 'identifier') return direct;
  for (const v of a.valueSources(coll)) if (v.type === 'identifier' && paramIndex(fn, a.src(v)) >= 0) return paramIndex(fn, a.src(v));
  return -1;
}

const RESULT_NAME = /^(result|results|actual|pred|prediction|output|outputs|got|answer|submission|state|states)(_|$)/i;

/**
 * Does the collection hold the agent's result? It is (or is copied from) the first parameter — the
 * result state in `metric(result_state, expected_state)` — or a parameter named like one. Loops over
 * the task's own expectations are left alone: a task that lists nothing is a task-authoring question.
 */
function fromResult(a: PythonAnalysis, fn: FunctionInfo, coll: PyNode): boolean {
  const params = fn.classNode ? fn.params.slice(1) : fn.params;
  const names = new Set<string>([a.src(coll)]);
  for (const v of a.valueSources(coll)) {
    const r = rootName(a, v);
    if (r) names.add(r);
  }
  return [...names].some((n) => n === params[0] || (params.includes(n) && RESULT_NAME.test(n)));
}

/** The type an expression always has (never None), or null when it is not None but of unknown type; undefined when it may be None. */
function builtType(a: PythonAnalysis, e0: PyNode): string | null | undefined {
  const e = unparen(e0);
  const k = valueKind(a, e);
  if (k === 'none') return undefined;
  if (k !== undefined) return k;
  switch (e.type) {
    case 'boolean_operator': {
      // `x or []`: the left operand when truthy (so not None), else the right one
      if (a.src(e).slice((field(e, 'left') ?? e).end - e.start).trimStart().startsWith('or')) {
        const r = field(e, 'right');
        const t = r ? builtType(a, r) : undefined;
        return t === undefined ? undefined : null;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** What every value a local may hold at `x` has in common: its type, null (never None, type unknown), or undefined. */
function localType(a: PythonAnalysis, fn: FunctionInfo, x: PyNode): { type: string | null; sources: readonly PyNode[] } | undefined {
  if (x.type !== 'identifier' || fn.params.includes(a.src(x))) return undefined;
  const sources = a.valueSources(x);
  if (!sources.length || sources.some((s) => s.type === 'identifier')) return undefined;
  let type: string | null | undefined;
  for (const s of sources) {
    const t = builtType(a, s);
    if (t === undefined) return undefined;
    type = type === undefined || type === t ? t : null;
  }
  return type === undefined ? undefined : { type, sources };
}

/** The parameter (as a call index) a local is built from: `list(p)`, `p or []`, `sorted(p.items())`; -1 when none or several. */
function builtFrom(a: PythonAnalysis, fn: FunctionInfo, sources: readonly PyNode[]): number {
  const idx = new Set<number>();
  for (const s0 of sources) {
    const s = unparen(s0);
    const from = s.type === 'call' ? named(field(s, 'arguments') ?? s)[0] : s.type === 'boolean_operator' ? field(s, 'left') : undefined;
    const r = from ? rootName(a, from) : undefined;
    const i = paramIndex(fn, r);
    if (i >= 0) idx.add(i);
    else return -1;
  }
  return idx.size === 1 ? [...idx][0]! : -1;
}

interface DeadAtom {
  atom: PyNode;
  /** What makes it impossible (for the message). */
  reason: string;
  /** The local or collection the guard was meant to catch. */
  subject: PyNode;
  /** The input that passes the guard instead. */
  input: string;
  /** The guard is on a parameter's emptiness (`len(p) < 0`) or on a local built from one. */
  empty: number;
}

/** Atoms of a guard condition (through `and` / `or`) that can never be true. */
function deadAtoms(a: PythonAnalysis, fn: FunctionInfo, cond: PyNode): DeadAtom[] {
  const out: DeadAtom[] = [];
  const visit = (n0: PyNode) => {
    const n = unparen(n0);
    if (n.type === 'boolean_operator') {
      for (const k of [field(n, 'left'), field(n, 'right')]) if (k) visit(k);
      return;
    }
    if (n.type === 'comparison_operator') {
      const ops = named(n);
      if (ops.length !== 2) return;
      const [l, r] = ops as [PyNode, PyNode];
      const op = a.text.slice(l.end, r.start).trim();
      // len(x) < 0, len(x) <= -1, len(x) == -1, 0 > len(x)
      const lenArg = (k: PyNode) => (k.type === 'call' && a.qualifiedName(field(k, 'function') ?? k) === 'len' ? named(field(k, 'arguments') ?? k)[0] : undefined);
      const num = (k: PyNode) => {
        const t = a.src(unparen(k)).replace(/\s+/g, '');
        return /^-?\d+$/.test(t) ? Number(t) : undefined;
      };
      const checks: Array<[PyNode | undefined, string, number | undefined]> = [
        [lenArg(l), op, num(r)],
        [lenArg(r), ({ '>': '<', '>=': '<=', '<': '>', '<=': '>=', '==': '==' } as Record<string, string>)[op] ?? '', num(l)],
      ];
      for (const [arg, o, v] of checks) {
        if (!arg || v === undefined) continue;
        if ((o === '<' && v <= 0) || (o === '<=' && v < 0) || (o === '==' && v < 0)) {
          const subject = unparen(arg);
          out.push({ atom: n, reason: `a length is never negative, so \`${a.src(n)}\` is always false`, subject, input: `an empty \`${a.src(subject)}\``, empty: paramOf(a, fn, subject) });
          return;
        }
      }
      // x is None right after x = [] / list(...) / p or []
      if ((op === 'is' || op === '==') && r.type === 'none' && l.type === 'identifier') {
        const lt = localType(a, fn, l);
        if (lt) {
          const how = a.src(lt.sources[0]!);
          out.push({ atom: n, reason: `\`${a.src(l)}\` is never None here (it holds \`${how.length > 40 ? `${how.slice(0, 37)}...` : how}\`${lt.sources.length > 1 ? ' or a similar value' : ''}), so \`${a.src(n)}\` is always false`, subject: l, input: `a result that leaves \`${a.src(l)}\` empty`, empty: builtFrom(a, fn, lt.sources) });
        }
      }
      return;
    }
    // not isinstance(x, T) right after x = T(...) / a T literal
    if (n.type === 'not_operator') {
      const c = unparen(field(n, 'argument') ?? n);
      if (c.type !== 'call' || a.qualifiedName(field(c, 'function') ?? c) !== 'isinstance') return;
      const [x, t] = named(field(c, 'arguments') ?? c);
      if (!x || !t || x.type !== 'identifier' || t.type !== 'identifier') return;
      const lt = localType(a, fn, x);
      if (lt?.type && lt.type === a.src(t) && a.qualifiedName(t) === lt.type) {
        const how = a.src(lt.sources[0]!);
        out.push({ atom: n, reason: `\`${a.src(x)}\` always holds a ${lt.type} (\`${how.length > 40 ? `${how.slice(0, 37)}...` : how}\`), so \`${a.src(n)}\` is always false`, subject: x, input: `a result that leaves \`${a.src(x)}\` empty`, empty: builtFrom(a, fn, lt.sources) });
      }
    }
  };
  visit(cond);
  return out;
}

/** The failing constant a guard's body ends with (`return 0`, `return False`, `return (False, msg)`). */
function failingReturn(a: PythonAnalysis, body: PyNode | undefined): PyNode | undefined {
  const stmts = body ? named(body).filter((k) => k.type !== 'comment') : [];
  const last = stmts[stmts.length - 1];
  return last?.type === 'return_statement' && constTruth(a, named(last)[0]) === false ? last : undefined;
}

function onVerdictPath(c: { project: import('../../src/contract/project.js').Project }, a: PythonAnalysis, fn: FunctionInfo): boolean {
  return isVerdictFunction(c.project, a.path, fn) ?? true;
}

/** One defect per function and input that passes vacuously (a parameter, else the collection as written):
 *  a zip, a loop and a dead guard that all let the same empty result pass are one finding. */
function defect(a: PythonAnalysis, fn: FunctionInfo, collection: PyNode): string {
  const i = paramOf(a, fn, collection);
  const from = i >= 0 || collection.type !== 'identifier' ? i : builtFrom(a, fn, a.valueSources(collection));
  return `${fn.qualname}\0${from >= 0 ? `#${from}` : a.src(collection)}`;
}

/** Items of a fixed-length tuple type (`tuple[float, float]`, `Tuple[int, int, int]`); undefined for any other annotation. */
function tupleArity(annotation: string | undefined): number | undefined {
  const m = annotation ? /^(?:typing\.)?[Tt]uple\[(.*)\]$/s.exec(annotation.trim()) : null;
  if (!m) return undefined;
  let depth = 0;
  let items = 1;
  for (const ch of m[1]!) {
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (ch === ',' && depth === 0) items++;
  }
  return /\.\.\./.test(m[1]!) || !m[1]!.trim() ? undefined : items;
}

/** The length an operand of `zip` always has: a parameter annotated with a fixed-length tuple type, or a local every value of which is a tuple display of one length. */
function fixedLength(a: PythonAnalysis, fn: FunctionInfo, e0: PyNode): number | undefined {
  const e = unparen(e0);
  if (e.type !== 'identifier') return undefined;
  const name = a.src(e);
  if (fn.params.includes(name)) return tupleArity(signatureOf(a, fn).params.find((p) => p.name === name)?.annotation);
  const src = a.valueSources(e);
  const lens = new Set(src.map((v) => (unparen(v).type === 'tuple' ? named(unparen(v)).length : -1)));
  return src.length && lens.size === 1 && !lens.has(-1) ? [...lens][0] : undefined;
}

/**
 * What an empty or shorter operand of a `zip` does to the verdict:
 * - `passesEmpty`: the loop can only fail inside and a passing constant follows it, or the pairs feed
 *   `all()` (directly or through a comprehension's local): nothing compared, the check passes;
 * - `anyMatch`: the loop can only pass inside (on a match) and a failing constant follows it, or the
 *   pairs feed `any()`: an empty result fails, and truncation only takes chances to pass away;
 * - `prefix`: anything else (accumulators, scores): the result is graded on the items both sides have.
 */
function zipShape(a: PythonAnalysis, fn: FunctionInfo, z: PyNode): 'passesEmpty' | 'anyMatch' | 'prefix' {
  const p = z.parent!;
  if (p.type === 'for_statement') {
    let passes = 0;
    let fails = 0;
    let other = false;
    walk(field(p, 'body') ?? p, (k) => {
      if (k.type === 'function_definition' || k.type === 'lambda') return false;
      if (k.type === 'return_statement') {
        const t = constTruth(a, named(k)[0]);
        if (t === true) passes++;
        else if (t === false) fails++;
        else other = true;
      }
      return undefined;
    });
    const next = nextNamed(p);
    const after = next?.type === 'return_statement' ? constTruth(a, named(next)[0]) : undefined;
    if (!other && fails && !passes && after === true) return 'passesEmpty';
    if (!other && passes && !fails && after === false) return 'anyMatch';
    return 'prefix';
  }
  // a comprehension: what consumes it
  const comp = p.parent;
  if (!comp) return 'prefix';
  const consumer = (c: PyNode): 'passesEmpty' | 'anyMatch' | undefined => {
    const call = c.parent?.type === 'call' ? c.parent : c.parent?.type === 'argument_list' ? c.parent.parent : undefined;
    const name = call?.type === 'call' ? a.src(field(call, 'function') ?? call) : '';
    return name === 'all' ? 'passesEmpty' : name === 'any' ? 'anyMatch' : undefined;
  };
  const direct = consumer(comp);
  if (direct) return direct;
  // `diffs = [... for a, b in zip(x, y)]`, then `all(... for d in diffs)`
  const assign = comp.parent?.type === 'assignment' && field(comp.parent, 'right') === comp ? field(comp.parent, 'left') : undefined;
  if (assign?.type !== 'identifier') return 'prefix';
  let found: 'passesEmpty' | 'anyMatch' | undefined;
  walk(fn.node, (k) => {
    if (found) return false;
    if (k.type === 'for_in_clause' && a.src(field(k, 'right') ?? k) === a.src(assign) && k.parent) found = consumer(k.parent);
    return undefined;
  });
  return found ?? 'prefix';
}

/** Report the atoms of a failing guard's condition that can never be true. */
function guard(n: PyNode, c: Parameters<PythonVisitor<Msg>>[1]): void {
  const a = c.python;
  const cond = field(n, 'condition');
  const ret = failingReturn(a, field(n, 'consequence'));
  if (!cond || !ret) return;
  const fn = a.functionAt(n);
  if (!fn || !onVerdictPath(c, a, fn)) return;
  for (const d of deadAtoms(a, fn, cond)) {
    const subj = a.src(d.subject);
    const suggest = d.reason.startsWith('a length') ? `if len(${subj}) == 0: ${a.src(ret)}` : `if not ${subj}: ${a.src(ret)}`;
    c.report({
      messageId: 'deadGuard',
      data: { reason: d.reason, verdict: a.src(named(ret)[0]!), input: d.input, suggest },
      at: d.atom,
      control: { oracle: 'vacuous-verdict', shape: 'guard', file: a.path, line: a.line(n), qualname: fn.qualname, empty: d.empty, other: -1 },
      group: defect(a, fn, d.subject),
    });
  }
}

export default defineRule<Msg>({
  meta: {
    id: 'vacuous-verdict',
    description: 'A verdict that passes without comparing: `zip()` truncation with no length check, a fail-only loop or `all()` over a collection that may be empty, a failing guard that can never fire.',
    defaultSeverity: 'warn',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript'],
    messages: {
      zipTruncation: {
        what: '`{{call}}` stops at the shorter of `{{a}}` and `{{b}}` and nothing checks their lengths.',
        why: 'The extra items are never compared, so {{input}} passes.',
        fix: 'Compare `len({{a}}) == len({{b}})` first, or use `zip(..., strict=True)`.',
      },
      zipPrefix: {
        what: '`{{call}}` stops at the shorter of `{{a}}` and `{{b}}` and nothing checks their lengths.',
        why: 'The extra items are never compared, so a result with fewer or more items than expected is graded on the items both sides have.',
        fix: 'Compare `len({{a}}) == len({{b}})` first, or use `zip(..., strict=True)`.',
      },
      emptyLoop: {
        what: 'This loop can only fail inside its body and the function then returns `{{verdict}}`.',
        why: 'With an empty `{{collection}}` the body never runs, so {{input}} passes.',
        fix: 'Fail when `{{collection}}` is empty (`if not {{collection}}: return 0`) before the loop.',
      },
      emptyAll: {
        what: '`{{call}}` is True for an empty `{{collection}}`.',
        why: 'Then {{input}} passes without any check running.',
        fix: 'Require a non-empty `{{collection}}` (`bool({{collection}}) and all(...)`).',
      },
      jsEmptyResult: {
        what: '`{{test}}` is the whole verdict: it passes when `{{call}}` returns nothing.',
        why: 'A call that failed quietly, a page that did not load or a model that answered nothing also returns an empty `{{array}}`, so the check passes without anything having been looked at.',
        fix: 'Add a positive control next to the absence check (the page or element that must be there, a non-empty result of a related query), or fail when the call itself reports an error.',
      },
      deadGuard: {
        what: 'This failing guard can never fire: {{reason}}.',
        why: 'The `{{verdict}}` it should return is never reached, so {{input}} is not rejected here and the verdict is decided by the code after it (which may pass on nothing).',
        fix: 'Write the condition that was meant, e.g. `{{suggest}}`.',
      },
    },
    docs: {
      whatItDoes:
        'On a verdict path (a function a task entry is bound to, or one whose result it returns; any function when no entry is bound), flags `zip(a, b)` loops and generators that compare items when the function never tests the length of `a` or `b` (and no `strict=True`): as passing on an empty result when the loop can only fail inside and a passing constant follows it (or the pairs feed `all()`), as graded on the shared items otherwise; not when the loop can only pass inside (on a match) and a failing constant follows it, or the pairs feed `any()` (an empty result fails there), nor when both operands are tuples of one fixed length (`tuple[float, float]` parameters, tuple displays). Also flags `for` loops whose body can only return a failing constant and that are followed by `return <passing constant>` when the function never tests the collection for emptiness, and `return all(... for x in c)` with the same condition. The loop and `all()` shapes are reported only when the collection holds the agent\'s result (the first parameter, `metric(result_state, expected_state)`, or a parameter named like a result): a loop over the task\'s own expectations is a task-authoring question. Also flags a guard that returns a failing constant (`if …: return 0`) whose condition, or one of its `and`/`or` parts, can never be true: `len(x) < 0` (or `<= -1`, `== -1`, `0 > len(x)`); `x is None` / `x == None` when every value `x` can hold there is built by a literal, a comprehension, a builtin that never returns None (`list(…)`, `sorted(…)`, `dict(…)`…) or `… or <such a value>`; `not isinstance(x, T)` when every such value is a `T`. In JavaScript and TypeScript: a verdict that is, by itself, the emptiness of what a method call returned (`_success: observations.length === 0`, `return !found.length`, or a `const` holding that test which becomes the verdict), where the array is the awaited result of a call on another object (`await v3.observe(…)`, `await page.$$(…)`) — not an array the verifier fills itself (`errors.push(…)`), not one derived with built-in methods (`checks.filter(…)`, `Object.keys(…)`), and not when the emptiness is one part of a larger verdict (`… && title === "Vanta"`). The finding names the input that passes vacuously; `--confirm` runs the function with that collection (for a guard, the parameter the guarded local is built from) empty.',
      why: 'An agent that produces nothing, or fewer paragraphs, rows, cells or slides than expected, passes: the comparison only runs over the items both sides have; a guard written to reject that input but whose condition cannot hold rejects nothing. OSWorld-family metrics compare documents with `zip(doc1.paragraphs, doc2.paragraphs)` and notebooks with `zip(a.items(), b.items())`.',
    },
    confirm: {
      oracle: 'vacuous-verdict',
      description: 'Runs the function with the named collection empty (and, for zip, the other side non-empty); a passing verdict confirms the check is vacuous. JavaScript/TypeScript findings are static (no control case).',
    },
  },
  create(ctx) {
    return {
      javascript: {
        BinaryExpression(node, c, ancestors) {
          jsEmpty(node, c, ancestors);
        },
        UnaryExpression(node, c, ancestors) {
          jsEmpty(node, c, ancestors);
        },
      },
      python: {
        call(n, c) {
          const a = c.python;
          const f = field(n, 'function');
          if (!f || f.type !== 'identifier') return;
          const name = a.src(f);
          if (name !== 'zip' && name !== 'all') return;
          const fn = a.functionAt(n);
          if (!fn || !onVerdictPath(c, a, fn)) return;
          const args = named(field(n, 'arguments') ?? n);
          if (name === 'zip') {
            if (args.length !== 2 || args.some((x) => x.type === 'keyword_argument' || x.type === 'list_splat' || x.type === 'list' || x.type === 'tuple')) return;
            // the zip feeds a loop or a generator
            const p = n.parent;
            const feeds = p && (p.type === 'for_statement' || p.type === 'for_in_clause') && field(p, 'right') === n;
            if (!feeds) return;
            const [x, y] = args as [PyNode, PyNode];
            const ta = a.src(x), tb = a.src(y);
            const roots = [ta, tb, rootName(a, x), rootName(a, y)].filter((t): t is string => !!t);
            if (guarded(a, fn, [ta, tb, ...roots.filter((r) => r !== 'self')])) return;
            // two tuples of one fixed length (`tuple[float, float]` coordinates): nothing to truncate
            const la = fixedLength(a, fn, x);
            if (la !== undefined && la === fixedLength(a, fn, y)) return;
            const shape = zipShape(a, fn, n);
            if (shape === 'anyMatch') return;
            const ia = paramOf(a, fn, x), ib = paramOf(a, fn, y);
            c.report({
              messageId: shape === 'passesEmpty' ? 'zipTruncation' : 'zipPrefix',
              data: { call: a.src(n), a: ta, b: tb, input: `a result whose \`${ta}\` is empty or shorter than \`${tb}\`` },
              at: n,
              // the control case runs the empty witness: it proves the pass-on-empty shape only
              control: shape === 'passesEmpty' ? { oracle: 'vacuous-verdict', shape: 'zip', file: a.path, line: a.line(n), qualname: fn.qualname, empty: ia, other: ib } : undefined,
              group: defect(a, fn, x),
            });
            return;
          }
          // return all(<gen> for x in C)
          // `return all(...)`, or `return float(all(...))`
          const wrap = n.parent?.type === 'argument_list' && n.parent.parent?.type === 'call' && ['float', 'int', 'bool'].includes(a.src(field(n.parent.parent, 'function') ?? n)) ? n.parent.parent : n;
          const ret = wrap.parent?.type === 'return_statement' ? wrap.parent : undefined;
          const argNode = field(n, 'arguments');
          const gen = argNode?.type === 'generator_expression' ? argNode : args.length === 1 ? args[0] : undefined;
          if (!ret || gen?.type !== 'generator_expression') return;
          const clause = named(gen).find((k) => k.type === 'for_in_clause');
          const coll = clause ? field(clause, 'right') : undefined;
          if (!coll || coll.type !== 'identifier' || !fromResult(a, fn, coll)) return;
          const ct = a.src(coll);
          if (guarded(a, fn, [ct])) return;
          c.report({
            messageId: 'emptyAll',
            data: { call: a.src(n).length > 60 ? `all(... for ... in ${ct})` : a.src(n), collection: ct, input: `an empty \`${ct}\`` },
            at: n,
            control: { oracle: 'vacuous-verdict', shape: 'all', file: a.path, line: a.line(n), qualname: fn.qualname, empty: paramOf(a, fn, coll), other: -1 },
            group: defect(a, fn, coll),
          });
        },
        if_statement(n, c) {
          guard(n, c);
        },
        elif_clause(n, c) {
          guard(n, c);
        },
        for_statement(n, c) {
          const a = c.python;
          if (field(n, 'alternative')) return;
          const coll = field(n, 'right');
          if (!coll || coll.type !== 'identifier') return;
          const fn = a.functionAt(n);
          if (!fn || !onVerdictPath(c, a, fn)) return;
          // the body can only fail: every return in it is a failing constant, and there is one
          let fails = 0;
          let other = false;
          walk(field(n, 'body') ?? n, (k) => {
            if (k.type === 'function_definition' || k.type === 'lambda') return false;
            if (k.type === 'return_statement') {
              if (constTruth(a, named(k)[0]) === false) fails++;
              else other = true;
            }
            if (k.type === 'break_statement' || k.type === 'raise_statement') other = true;
            return undefined;
          });
          if (!fails || other) return;
          const next = nextNamed(n);
          if (next?.type !== 'return_statement' || constTruth(a, named(next)[0]) !== true) return;
          const ct = a.src(coll);
          if (!fromResult(a, fn, coll) || guarded(a, fn, [ct])) return;
          c.report({
            messageId: 'emptyLoop',
            data: { verdict: a.src(named(next)[0]!), collection: ct, input: `an empty \`${ct}\`` },
            at: { start: n.start, end: (field(n, 'right') ?? n).end },
            control: { oracle: 'vacuous-verdict', shape: 'loop', file: a.path, line: a.line(n), qualname: fn.qualname, empty: paramOf(a, fn, coll), other: -1 },
            group: defect(a, fn, coll),
          });
        },
      },
    };

    function jsEmpty(node: AnyNode, c: RuleContext<Msg>, ancestors: readonly AnyNode[]): void {
      const program = programOf(ancestors);
      if (!program) return;
      const scope = jsVerdictScope(ctx.project, c.unit.file.path, program);
      // with entries or exports naming the verdict functions: only those; else any function returning the test
      const onPath = (fn: unknown) => !(scope.known || scope.functions.size) || scope.functions.has(fn as never);
      const v = jsEmptyVerdict(node, ancestors, program, c.text, scope.shapes, onPath);
      if (!v) return;
      c.report({ messageId: 'jsEmptyResult', data: { test: c.text.slice(v.test.start, v.test.end), call: v.call, array: v.array }, at: v.test });
    }
  },
});
