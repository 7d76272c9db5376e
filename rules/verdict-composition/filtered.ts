/**
 * droppedFiltered in Python: a score divided by the length of the items a filter keeps, when the filter
 * drops the items that errored, were skipped or timed out (`passed / len([r for r in rs if r["status"] != "error"])`,
 * `len(list(filter(lambda r: not r.get("error"), rs)))`, or a name bound once to either). An item that did not
 * run then counts neither for nor against the agent. The JavaScript twin is js-dropped.ts's jsFilteredDenominator.
 */
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { NOT_RUN, NOT_RUN_FLAG, STATUS_KEY, short, verdictFunctionAt, type Ctx } from './kinds.js';
import { leavesFunction } from '../../src/lang/python/leaves.js';

/** Outcomes of an item that ran: a keep-list of these and nothing else drops every item that did not. */
const PASS_WORD = /^(?:pass|passed|success|succeeded|ok)$/i;
const FAIL_WORD = /^(?:fail|failed|failure|failing)$/i;

/** The word a key, an attribute or a string names: `r["error"]`, `r.get("error")`, `r.error`, `"error"`. */
function wordOf(a: PythonAnalysis, n0: PyNode): string | undefined {
  const n = unparen(n0);
  if (n.type === 'string') return a.src(n).replace(/^[a-zA-Z]*(['"]{1,3})([\s\S]*)\1$/, '$2');
  if (n.type === 'attribute') return a.src(field(n, 'attribute') ?? n);
  if (n.type === 'subscript') {
    const k = field(n, 'subscript');
    return k ? wordOf(a, k) : undefined;
  }
  if (n.type === 'call') {
    const f = field(n, 'function');
    const arg = named(field(n, 'arguments') ?? n)[0];
    // `r.get("error")`, and ElementTree's `case.find("skipped")` (the child element a JUnit testcase has when skipped)
    const m = f?.type === 'attribute' ? a.src(field(f, 'attribute') ?? f) : '';
    return (m === 'get' || m === 'find') && arg ? wordOf(a, arg) : undefined;
  }
  return undefined;
}

const notRun = (a: PythonAnalysis, n: PyNode | undefined): boolean => !!n && NOT_RUN.test(wordOf(a, n) ?? '');
/** A field of the item that is itself a not-run outcome: `r["error"]`, `r.get("timeout")`, `r.exception`. */
const notRunFlag = (a: PythonAnalysis, n: PyNode | undefined): boolean => !!n && unparen(n).type !== 'string' && NOT_RUN_FLAG.test(wordOf(a, n) ?? '');
/** A status field of the item: `r["status"]`, `r.get("outcome")`, `r.state`. */
const statusKey = (a: PythonAnalysis, n: PyNode | undefined): boolean => !!n && unparen(n).type !== 'string' && STATUS_KEY.test(wordOf(a, n) ?? '');

/** Does the condition keep only the items that ran: `r["status"] != "error"`, `r.status not in ("error", "skipped")`,
 *  `not r.get("error")`, `r.error is None`, `"error" not in r`, or any of these joined with `and`? */
function excludesNotRun(a: PythonAnalysis, cond0: PyNode): boolean {
  const cond = unparen(cond0);
  if (cond.type === 'boolean_operator') {
    const op = a.text.slice(field(cond, 'left')?.end ?? cond.start, field(cond, 'right')?.start ?? cond.end).trim();
    return op === 'and' && (excludesNotRun(a, field(cond, 'left') ?? cond) || excludesNotRun(a, field(cond, 'right') ?? cond));
  }
  if (cond.type === 'not_operator') {
    const arg = unparen(field(cond, 'argument') ?? cond);
    return arg.type !== 'comparison_operator' && arg.type !== 'boolean_operator' && notRunFlag(a, arg);
  }
  if (cond.type !== 'comparison_operator') return false;
  const ops = comparisonOperators(cond);
  const [l, r] = named(cond);
  if (ops.length !== 1 || !l || !r) return false;
  const op = ops[0]!;
  const nil = (x: PyNode) => unparen(x).type === 'none';
  if (op === 'is' || op === '==') return (nil(r) && notRunFlag(a, l)) || (nil(l) && notRunFlag(a, r));
  if (op === 'is not' || op === '!=') return !nil(l) && !nil(r) && ((notRun(a, r) && statusKey(a, l)) || (notRun(a, l) && statusKey(a, r)));
  if (op === 'in') {
    // a keep-list of the outcomes of a test that ran, `t["outcome"] in ("passed", "failed")`: every other
    // outcome (skipped, error, xfail…) leaves
    const rr = unparen(r);
    if (!['tuple', 'list', 'set'].includes(rr.type) || !statusKey(a, l)) return false;
    const ws = named(rr).map((x) => (unparen(x).type === 'string' ? wordOf(a, x) ?? '' : ''));
    return ws.every((w) => PASS_WORD.test(w) || FAIL_WORD.test(w)) && ws.some((w) => PASS_WORD.test(w)) && ws.some((w) => FAIL_WORD.test(w));
  }
  if (op === 'not in') {
    const rr = unparen(r);
    // `r["status"] not in ("error", "skipped")`, or `"error" not in r`
    if (['tuple', 'list', 'set'].includes(rr.type)) return statusKey(a, l) && named(rr).some((x) => notRun(a, x));
    return unparen(l).type === 'string' && NOT_RUN_FLAG.test(wordOf(a, l) ?? '');
  }
  return false;
}

/** The filter an expression is: a list comprehension with an `if`, `list(filter(lambda …, items))`,
 *  `[*filter(…)]`. Returns the condition and the items filtered. */
function filterOf(a: PythonAnalysis, e0: PyNode): { cond: PyNode; items: PyNode } | undefined {
  const e = unparen(e0);
  if (e.type === 'list_comprehension' || e.type === 'generator_expression' || e.type === 'set_comprehension') {
    const clauses = named(e);
    const fors = clauses.filter((k) => k.type === 'for_in_clause');
    const ifs = clauses.filter((k) => k.type === 'if_clause');
    if (fors.length !== 1 || ifs.length !== 1) return undefined;
    const cond = named(ifs[0]!)[0];
    const items = field(fors[0]!, 'right');
    return cond && items ? { cond, items } : undefined;
  }
  if (e.type === 'call') {
    const f = a.src(field(e, 'function') ?? e);
    const args = named(field(e, 'arguments') ?? e);
    if ((f === 'list' || f === 'tuple' || f === 'set') && args.length === 1) return filterOf(a, args[0]!);
    if (f === 'filter' && args.length === 2 && unparen(args[0]!).type === 'lambda') {
      const body = field(unparen(args[0]!), 'body');
      return body ? { cond: body, items: args[1]! } : undefined;
    }
  }
  return undefined;
}

/** The one value a local is bound to in the function (`done = [...]`), if it is bound exactly once. */
function onlyBinding(a: PythonAnalysis, fnNode: PyNode, name: string): PyNode | undefined {
  const values: PyNode[] = [];
  let rebound = false;
  walk(field(fnNode, 'body') ?? fnNode, (k) => {
    if (k !== fnNode && (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition')) return false;
    if (k.type === 'assignment' && a.src(field(k, 'left') ?? k) === name) {
      const v = field(k, 'right');
      if (v) values.push(v);
      else rebound = true;
    }
    if ((k.type === 'augmented_assignment' && a.src(field(k, 'left') ?? k) === name) || (k.type === 'for_in_clause' && a.src(field(k, 'left') ?? k) === name)) rebound = true;
    if (k.type === 'call') {
      // `done.append(…)`, `done.extend(…)`: the list is not only what the filter kept
      const f = field(k, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'object') ?? f) === name) rebound = true;
    }
    return undefined;
  });
  return !rebound && values.length === 1 ? values[0] : undefined;
}

/** Before the score, an early failure when an item did not run, so that by the time the division runs the
 *  filter removes nothing: `if len(done) != len(rs): return 0`, `if any(r["status"] == "error" for r in rs): raise …`,
 *  `assert all(r["status"] != "error" for r in rs)`, `assert len(done) == len(rs)`, `if skipped: sys.exit(1)` with
 *  `skipped` the items that did not run, or `if len(done) == len(rs): … else: raise …`. */
function failsOnNotRunFirst(a: PythonAnalysis, fnNode: PyNode, score: PyNode, kept: string | undefined, items: string): boolean {
  // the condition names the kept list and the items (`len(done) != len(rs)`), a not-run word, or a list of the
  // items that did not run (`skipped = [r for r in rs if r["status"] == "skipped"]`)
  const covers = (cond: PyNode): boolean => {
    const text = a.src(cond);
    if (kept && new RegExp(`\\b${kept}\\b`).test(text) && text.includes(items)) return true;
    let hit = false;
    walk(cond, (t) => {
      if (hit) return false;
      if (t.type === 'string' || t.type === 'attribute' || t.type === 'subscript') hit ||= notRun(a, t);
      if (t.type === 'identifier' && t.parent?.type !== 'attribute' && a.src(t) !== kept) {
        const v = onlyBinding(a, fnNode, a.src(t));
        const f = v ? filterOf(a, v) : undefined;
        if (f && a.src(f.items) === items) walk(f.cond, (u) => {
          if (u.type === 'string' || u.type === 'attribute' || u.type === 'subscript') hit ||= notRun(a, u);
          return hit ? false : undefined;
        });
      }
      return undefined;
    });
    return hit;
  };
  let hit = false;
  walk(field(fnNode, 'body') ?? fnNode, (k) => {
    if (hit || k.start >= score.start) return false;
    if (k !== fnNode && (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition')) return false;
    if (k.type === 'assert_statement') {
      const cond = named(k)[0];
      if (cond && covers(cond)) hit = true;
      return undefined;
    }
    if (k.type !== 'if_statement') return undefined;
    const cond = field(k, 'condition');
    const orElse = named(k).find((x) => x.type === 'else_clause');
    const exits = leavesFunction(a, field(k, 'consequence')) || (!!orElse && leavesFunction(a, field(orElse, 'body') ?? field(orElse, 'consequence')));
    if (cond && exits && covers(cond)) hit = true;
    return undefined;
  });
  return hit;
}

/** `passed / len([r for r in results if r["status"] != "error"])`: items that did not run leave the denominator. */
export function droppedFiltered(n: PyNode, c: Ctx): void {
  const a = c.python;
  const left = field(n, 'left');
  const right = field(n, 'right');
  if (!left || !right || a.text.slice(left.end, right.start).trim() !== '/') return;
  const den = unparen(right);
  if (den.type !== 'call' || a.src(field(den, 'function') ?? den) !== 'len') return;
  const arg = named(field(den, 'arguments') ?? den)[0];
  if (!arg) return;
  const fn = verdictFunctionAt(c, n);
  if (!fn) return;
  const kept = unparen(arg).type === 'identifier' ? a.src(arg) : undefined;
  const value = kept ? onlyBinding(a, fn.node, kept) : arg;
  const filter = value ? filterOf(a, value) : undefined;
  if (!filter || !excludesNotRun(a, filter.cond)) return;
  if (failsOnNotRunFirst(a, fn.node, n, kept, a.src(filter.items))) return;
  c.report({
    messageId: 'droppedFiltered',
    data: { filter: short(a, value!, 60), items: short(a, filter.items, 30), score: short(a, n, 50) },
    at: den,
  });
}
