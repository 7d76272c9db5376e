/**
 * How a boolean sub-expression decides a Python verdict: climbing from the expression through `not`,
 * `and`/`or`, `all()`/`any()`/`bool()`/`float()`/`int()`, a comprehension's element, `… is None` /
 * `… is not None`, a conditional expression with constant verdict arms, the verdict key of a returned
 * dict (`{"pass": …}`) or the first item of a returned tuple (`return ok, msg`), to a `return` (the value
 * is the verdict) or to the test of an
 * `if` whose body returns a constant verdict (or, when asked, counts or skips: `continue`,
 * `passed.append(t)`, `passed += 1`).
 *
 * true: the expression being true passes the agent; false: it fails the agent; undefined: it does not
 * decide a verdict this way.
 */
import type { PythonAnalysis } from '../lang/python/types.js';
import { comparisonOperators, field, named, walk, type PyNode } from '../lang/python/tree.js';
import { pyConst, verdictTruth, type VerdictShapes } from './verdict-shape.js';

export interface PolarityOptions {
  /** Only a returned value decides (not the test of an `if`). */
  returnedOnly?: boolean;
  /** The test of an `if` whose body is `continue` or counts (`.append`/`.add`/`+=`) decides in the positive direction. */
  countingIf?: boolean;
  /** The test of an `if` whose body assigns a constant verdict to a name a later `return` reads
   *  (`if "yes" in reply: score = 1.0` … `return score`) decides as that constant. */
  assignedVerdict?: boolean;
}

/** `name = <constant verdict>` in the block, where a `return` after the block reads `name`: the constant's truth. */
function assignedTruth(a: PythonAnalysis, block: PyNode, shapes: VerdictShapes): boolean | undefined {
  let fn: PyNode | null = block.parent;
  while (fn && fn.type !== 'function_definition' && fn.type !== 'module') fn = fn.parent;
  if (!fn) return undefined;
  for (const st of named(block)) {
    const e = st.type === 'expression_statement' ? named(st)[0] : undefined;
    const l = e?.type === 'assignment' ? field(e, 'left') : undefined;
    const r = e ? field(e, 'right') : undefined;
    if (l?.type !== 'identifier' || !r) continue;
    const t = verdictTruth(pyConst(a, r), shapes);
    if (t === undefined) continue;
    const name = a.src(l);
    let read = false;
    walk(fn, (k) => {
      if (read || (k !== fn && (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition'))) return false;
      if (k.type === 'return_statement' && k.start > block.end) walk(k, (x) => {
        if (x.type === 'identifier' && a.src(x) === name) read = true;
      });
      return undefined;
    });
    if (read) return t;
  }
  return undefined;
}

/** `target.append(x)` / `target.add(x)` / `target += …` as the one statement of a block: the target's text. */
export function countingTarget(a: PythonAnalysis, body: PyNode | undefined): string | undefined {
  const stmts = body ? named(body) : [];
  if (stmts.length !== 1) return undefined;
  const e = stmts[0]!.type === 'expression_statement' ? named(stmts[0]!)[0] : undefined;
  if (e?.type === 'augmented_assignment') return a.src(field(e, 'left') ?? e);
  if (e?.type !== 'call') return undefined;
  const f = field(e, 'function');
  if (f?.type !== 'attribute' || !['append', 'add'].includes(a.src(field(f, 'attribute') ?? f))) return undefined;
  return a.src(field(f, 'object') ?? f);
}

export function verdictPolarity(a: PythonAnalysis, start: PyNode, shapes: VerdictShapes, opts: PolarityOptions = {}): boolean | undefined {
  let positive = true;
  let n = start;
  for (let p = n.parent; p; n = p, p = p.parent) {
    switch (p.type) {
      case 'parenthesized_expression':
      case 'boolean_operator':
      case 'argument_list':
        continue;
      case 'not_operator':
        positive = !positive;
        continue;
      case 'generator_expression':
      case 'list_comprehension':
        if (field(p, 'body') !== n) return undefined;
        continue;
      case 'call': {
        const f = a.src(field(p, 'function') ?? p);
        if (['all', 'any', 'bool', 'float', 'int'].includes(f)) continue;
        return undefined;
      }
      case 'comparison_operator': {
        // `re.search(...) is not None` / `is None`
        const ops = comparisonOperators(p);
        const other = named(p).find((x) => x !== n);
        if (ops.length === 1 && other?.type === 'none' && (ops[0] === 'is not' || ops[0] === 'is')) {
          if (ops[0] === 'is') positive = !positive;
          continue;
        }
        return undefined;
      }
      case 'pair': {
        // `{"pass": "x" in text}`
        const k = field(p, 'key');
        const kc = k ? pyConst(a, k) : undefined;
        if (field(p, 'value') !== n || kc?.kind !== 'string' || !shapes.keys.has(kc.value.toLowerCase())) return undefined;
        continue;
      }
      case 'dictionary':
        if (n.type !== 'pair') return undefined;
        continue;
      case 'tuple':
      case 'expression_list':
        // `return "x" in text, msg`: the first item is the verdict
        if (named(p)[0] !== n) return undefined;
        continue;
      case 'conditional_expression': {
        const [yes, cond, no] = named(p);
        if (cond !== n || !yes || !no) return undefined;
        const t = verdictTruth(pyConst(a, yes), shapes);
        if (t === undefined || verdictTruth(pyConst(a, no), shapes) !== !t) return undefined;
        return positive === t;
      }
      case 'return_statement':
        return positive;
      case 'if_statement':
      case 'elif_clause': {
        if (opts.returnedOnly || field(p, 'condition') !== n) return undefined;
        const body = field(p, 'consequence');
        const first = body ? named(body)[0] : undefined;
        if (opts.countingIf && (first?.type === 'continue_statement' || countingTarget(a, body))) return positive;
        const ret = body ? named(body).find((s) => s.type === 'return_statement') : undefined;
        const v = ret ? named(ret)[0] : undefined;
        const t = v ? verdictTruth(pyConst(a, v), shapes) : opts.assignedVerdict && body ? assignedTruth(a, body, shapes) : undefined;
        return t === undefined ? undefined : positive === t;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}
