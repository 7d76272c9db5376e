/**
 * Partial scores turned into verdicts, and items left out of a score:
 * - looseThreshold: a fraction (a ratio, a mean, a similarity, a product of partial scores) passes the
 *   agent when it is above zero (`float(score > 0)`, `1 if ratio != 0 else 0`, `bool(score)`);
 * - rawSimilarity: a project function that returns a raw similarity (`SequenceMatcher(…).ratio()`,
 *   `fuzz.ratio(…) / 100`) with no threshold is read as pass/fail by a caller (`if fuzzy_match(a, b):`);
 * - droppedItems: an item whose check raises is skipped (`except …: continue`) and the score is divided
 *   by the items that did not raise (or by the count less what the handler counted); droppedFromAll: the same
 *   skip before `all()` over the results the `try` filled (all of nothing is True); or a component missing from the results is left out of both sides
 *   of a weighted mean (`if k in results: num += w * results[k]; den += w`).
 */
import type { PythonAnalysis, PythonProject } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { pythonVerdictShapes } from '../../src/suites/verdict.js';
import { verdictPolarity } from '../../src/suites/verdict-polarity.js';
import { short, verdictFunctionAt, type Ctx } from './kinds.js';
import { truthPosition } from './truthy.js';

const SIMILARITY = /(^|\.)(ratio|quick_ratio|real_quick_ratio|partial_ratio|token_sort_ratio|token_set_ratio|partial_token_sort_ratio|partial_token_set_ratio|WRatio|QRatio|jaro_similarity|jaro_winkler_similarity|jaro_winkler|normalized_similarity|cosine_similarity|jaccard_score|jaccard_similarity|sentence_bleu|corpus_bleu|structural_similarity|similarity)$/;
const MEAN = /(^|\.)(mean|fmean|average|nanmean)$/;

/** A similarity call (difflib, rapidfuzz/fuzzywuzzy, Levenshtein, jellyfish, sklearn, nltk, skimage…). */
function similarityCall(a: PythonAnalysis, e: PyNode): boolean {
  if (e.type !== 'call') return false;
  const f = field(e, 'function');
  if (!f) return false;
  const text = a.qualifiedName(f) ?? a.src(f);
  return SIMILARITY.test(text.replace(/\s+/g, ''));
}

/** Does the expression hold a fraction: a ratio, a mean, a similarity, a product of partial scores? */
function fraction(a: PythonAnalysis, e0: PyNode, project: PythonProject | undefined, depth = 0): boolean {
  const e = unparen(e0);
  if (depth > 3) return false;
  switch (e.type) {
    case 'binary_operator': {
      const op = a.text.slice(field(e, 'left')?.end ?? e.start, field(e, 'right')?.start ?? e.end).trim();
      if (op === '/') return true;
      if (op === '*') return fraction(a, field(e, 'left') ?? e, project, depth + 1) && fraction(a, field(e, 'right') ?? e, project, depth + 1);
      return false;
    }
    case 'call': {
      if (similarityCall(a, e)) return true;
      const f = field(e, 'function');
      if (!f) return false;
      const q = a.qualifiedName(f) ?? a.src(f);
      if (MEAN.test(q)) return true;
      if (['float', 'round', 'min', 'max'].includes(q)) {
        const arg = named(field(e, 'arguments') ?? e)[0];
        return !!arg && fraction(a, arg, project, depth + 1);
      }
      if (f.type === 'identifier' && project) {
        const r = project.resolveFunction(a.path, a.src(f));
        const ra = r ? project.analysis(r.file) : undefined;
        if (r && ra) return returnsFraction(ra, r.fn.node, project, depth + 1);
      }
      // `self.partial(...)`: the one method of this file with that name
      if (f.type === 'attribute' && project) {
        const name = a.src(field(f, 'attribute') ?? f);
        const methods = a.functions().filter((m) => m.name === name && m.classNode);
        if (methods.length === 1) return returnsFraction(a, methods[0]!.node, project, depth + 1);
      }
      return false;
    }
    case 'conditional_expression': {
      // `np.mean(xs) if xs else 0.0`
      const [yes, , no] = named(e);
      return (!!yes && fraction(a, yes, project, depth + 1)) || (!!no && fraction(a, no, project, depth + 1));
    }
    case 'identifier': {
      const fn = a.functionAt(e);
      // `score *= part` anywhere in the function: a product of partial scores
      if (fn && multiplied(a, fn.node, a.src(e))) return true;
      return a.valueSources(e).some((v) => v !== e && fraction(a, v, project, depth + 1));
    }
    default:
      return false;
  }
}

function multiplied(a: PythonAnalysis, fnNode: PyNode, name: string): boolean {
  let hit = false;
  walk(fnNode, (k) => {
    if (hit) return false;
    if (k.type === 'augmented_assignment' && a.src(field(k, 'left') ?? k) === name && a.text.slice(field(k, 'left')?.end ?? k.start, field(k, 'right')?.start ?? k.end).includes('*=')) hit = true;
    return undefined;
  });
  return hit;
}

function returnsFraction(a: PythonAnalysis, fnNode: PyNode, project: PythonProject, depth: number): boolean {
  let hit = false;
  walk(field(fnNode, 'body') ?? fnNode, (k) => {
    if (hit || k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type === 'return_statement' && named(k)[0] && fraction(a, named(k)[0]!, project, depth)) hit = true;
    return undefined;
  });
  return hit;
}

/** `x > 0`, `x != 0`, `0 < x`, `bool(x)`, `if x:` that passes the agent on any fraction above zero. */
export function looseThreshold(n: PyNode, c: Ctx): void {
  const a = c.python;
  let subject: PyNode | undefined;
  if (n.type === 'comparison_operator') {
    const ops = comparisonOperators(n);
    const [l, r] = named(n);
    if (ops.length !== 1 || !l || !r) return;
    const zero = (x: PyNode) => /^0(\.0*)?$/.test(a.src(unparen(x)).trim());
    if ((ops[0] === '>' || ops[0] === '!=') && zero(r)) subject = l;
    else if ((ops[0] === '<' || ops[0] === '!=') && zero(l)) subject = r;
  } else if (n.type === 'identifier' || n.type === 'call') {
    // `if score:` / `bool(score)`: the value itself read for its truth
    if (n.type === 'call' && !(a.src(field(n, 'function') ?? n) === 'bool')) return;
    subject = n.type === 'call' ? named(field(n, 'arguments') ?? n)[0] : n;
    if (n.type === 'identifier' && !truthPosition(n)) return;
  }
  if (!subject) return;
  const fn = verdictFunctionAt(c, n);
  if (!fn) return;
  if (verdictPolarity(a, n, pythonVerdictShapes(c.project), { assignedVerdict: true }) !== true) return;
  if (!fraction(a, subject, c.project.python)) return;
  c.report({ messageId: 'looseThreshold', data: { test: short(a, n), score: short(a, subject, 40) }, at: n });
}

/** The return of a project function that hands back a raw similarity (not compared with a threshold). */
function rawSimilarityReturn(a: PythonAnalysis, fnNode: PyNode): PyNode | undefined {
  let hit: PyNode | undefined;
  walk(field(fnNode, 'body') ?? fnNode, (k) => {
    if (hit || k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type !== 'return_statement') return undefined;
    const v = named(k)[0];
    if (!v) return false;
    const e = unparen(v);
    const direct = (x: PyNode): boolean => {
      const u = unparen(x);
      if (similarityCall(a, u)) return true;
      if (u.type === 'binary_operator' && a.text.slice(field(u, 'left')?.end ?? u.start, field(u, 'right')?.start ?? u.end).trim() === '/') return direct(field(u, 'left') ?? u);
      if (u.type === 'call' && ['float', 'round'].includes(a.src(field(u, 'function') ?? u))) return !!named(field(u, 'arguments') ?? u)[0] && direct(named(field(u, 'arguments') ?? u)[0]!);
      if (u.type === 'identifier') return a.valueSources(u).some((s) => s !== u && direct(s));
      return false;
    };
    if (direct(e)) hit = k;
    return false;
  });
  return hit;
}

/** A call of a project function that returns a raw similarity, read for its truth. */
export function rawSimilarity(n: PyNode, c: Ctx): void {
  const a = c.python;
  if (!truthPosition(n)) return;
  const f = field(n, 'function');
  const name = f?.type === 'identifier' ? a.src(f) : f?.type === 'attribute' ? a.src(field(f, 'attribute') ?? f) : undefined;
  if (!name || !verdictFunctionAt(c, n)) return;
  const r = f?.type === 'identifier' ? c.project.python.resolveFunction(a.path, name) : undefined;
  const ra = r ? c.project.python.analysis(r.file) : undefined;
  const ret = r && ra ? rawSimilarityReturn(ra, r.fn.node) : undefined;
  if (!ret || !ra || !r) return;
  c.report({
    messageId: 'rawSimilarity',
    data: { call: short(a, n), returned: short(ra, named(ret)[0]!, 50), where: `${r.file.split('/').pop()}:${ra.line(ret)}` },
    at: n,
  });
}

/** The enclosing `for` loop of a node, within its function. */
function enclosingFor(n: PyNode): PyNode | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'for_statement') return p;
    if (p.type === 'while_statement' || p.type === 'function_definition' || p.type === 'lambda') return undefined;
  }
  return undefined;
}

/** What the loop body counts from `from` on: names incremented (`n += 1`, `total += s`) and `len(list)` of lists appended to. */
function countedFrom(a: PythonAnalysis, loop: PyNode, from: number): Set<string> {
  const counted = new Set<string>();
  walk(field(loop, 'body') ?? loop, (k) => {
    if (k.end < from) return false;
    if (k.type === 'augmented_assignment') counted.add(a.src(field(k, 'left') ?? k));
    if (k.type === 'call') {
      const f = field(k, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'append') counted.add(`len(${a.src(field(f, 'object') ?? f)})`);
    }
    return undefined;
  });
  return counted;
}

/** After the loop: a division by one of the counts (not by the length of what the loop iterates). */
function divisionByCount(a: PythonAnalysis, fnNode: PyNode, loop: PyNode, counted: Set<string>, skipped: ReadonlySet<string> = new Set()): PyNode | undefined {
  const iterable = a.src(field(loop, 'right') ?? loop).replace(/\s+/g, '');
  let division: PyNode | undefined;
  walk(field(fnNode, 'body') ?? fnNode, (k) => {
    // nodes before the loop, and the loop itself, are not what comes after it
    if (division || k.end <= loop.start || (k.start >= loop.start && k.end <= loop.end)) return false;
    if (k.type === 'binary_operator' && a.text.slice(field(k, 'left')?.end ?? k.start, field(k, 'right')?.start ?? k.end).trim() === '/') {
      const right = unparen(field(k, 'right') ?? k);
      const den = a.src(right).replace(/\s+/g, '');
      if (counted.has(den) && den !== `len(${iterable})`) division = k;
      // `passed / (len(cases) - skipped)`: the items the handler counted taken off the denominator
      else if (right.type === 'binary_operator' && a.text.slice(field(right, 'left')?.end ?? right.start, field(right, 'right')?.start ?? right.end).trim() === '-' && skipped.has(a.src(unparen(field(right, 'right') ?? right)).replace(/\s+/g, ''))) division = k;
    }
    return undefined;
  });
  return division;
}

/** `except …: continue` in a loop whose score is divided by the items that did not raise. */
export function droppedOnError(n: PyNode, c: Ctx): void {
  const a = c.python;
  const tryNode = n.parent;
  if (tryNode?.type !== 'try_statement') return;
  const block = field(n, 'body') ?? named(n).find((k) => k.type === 'block');
  const body = named(block ?? n).filter((k) => k.type !== 'comment');
  const last = body[body.length - 1];
  const loop = enclosingFor(tryNode);
  const loopBody = loop ? field(loop, 'body') : undefined;
  // the item is skipped: the handler continues, or the `try` is the loop body's last statement
  const skips = last?.type === 'continue_statement' || (tryNode.parent === loopBody && named(loopBody!).filter((k) => k.type !== 'comment').at(-1) === tryNode);
  const simple = body.slice(0, last?.type === 'continue_statement' ? -1 : undefined).every((s) => s.type === 'expression_statement' || s.type === 'pass_statement');
  if (!skips || !simple) return;
  const fn = loop ? verdictFunctionAt(c, n) : undefined;
  if (!loop || !fn) return;
  const header = a.src(n).split('\n')[0]!.replace(/:\s*(#.*)?$/, '').trim();
  const data = { handler: header.length > 50 ? `${header.slice(0, 47)}...` : header, items: short(a, field(loop, 'right') ?? loop, 30) };
  const at = { start: n.start, end: (block ?? n).start };
  const counted = countedFrom(a, loop, tryNode.start);
  const skipped = countedFrom(a, n, n.start);
  const division = counted.size ? divisionByCount(a, fn.node, loop, counted, skipped) : undefined;
  if (division) {
    c.report({ messageId: 'droppedItems', data: { ...data, score: short(a, division, 50) }, at });
    return;
  }
  // a handler that records the item (`results[k] = False`) does not skip it
  const filled = filledIn(a, field(tryNode, 'body'));
  for (const x of filledIn(a, block)) filled.delete(x);
  const all = allOverFilled(a, fn.node, loop, filled);
  if (all) c.report({ messageId: 'droppedFromAll', data: { ...data, score: short(a, all, 50) }, at });
}

/** Collections a block fills with a check's result: `results[k] = …`, `results.append(…)`. */
function filledIn(a: PythonAnalysis, block: PyNode | undefined): Set<string> {
  const out = new Set<string>();
  for (const st of block ? named(block) : []) {
    const e = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (e?.type === 'assignment' && field(e, 'left')?.type === 'subscript') {
      const obj = field(field(e, 'left')!, 'value');
      if (obj?.type === 'identifier') out.add(a.src(obj));
    }
    if (e?.type === 'call') {
      const f = field(e, 'function');
      const obj = f?.type === 'attribute' ? field(f, 'object') : undefined;
      if (obj?.type === 'identifier' && a.src(field(f!, 'attribute') ?? f!) === 'append') out.add(a.src(obj));
    }
  }
  return out;
}

/** After the loop: `all(results)`, `all(results.values())` or `all(… for … in results…)` over a filled collection. */
function allOverFilled(a: PythonAnalysis, fnNode: PyNode, loop: PyNode, filled: Set<string>): PyNode | undefined {
  if (!filled.size) return undefined;
  let hit: PyNode | undefined;
  walk(field(fnNode, 'body') ?? fnNode, (k) => {
    if (hit || k.end <= loop.start || (k.start >= loop.start && k.end <= loop.end)) return false;
    if (k.type !== 'call' || a.src(field(k, 'function') ?? k) !== 'all') return undefined;
    // `all(x for x in c)`: the call's arguments are the generator itself
    const args = field(k, 'arguments');
    let arg = args?.type === 'generator_expression' ? args : named(args ?? k)[0];
    if (arg?.type === 'generator_expression') arg = named(named(arg).find((x) => x.type === 'for_in_clause') ?? arg).at(-1);
    if (arg?.type === 'call') {
      const f = field(arg, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'values') arg = field(f, 'object');
    }
    if (arg?.type === 'identifier' && filled.has(a.src(arg))) hit = k;
    return undefined;
  });
  return hit;
}

/** An absence (`x is None`, `not x`, `k not in m`) or presence (`x is not None`, `k in m`, `x`) test of a missing item. */
function missingTest(a: PythonAnalysis, cond0: PyNode): 'absent' | 'present' | undefined {
  const cond = unparen(cond0);
  if (cond.type === 'not_operator') {
    const t = missingTest(a, field(cond, 'argument') ?? cond);
    return t === 'present' ? 'absent' : t === 'absent' ? 'present' : undefined;
  }
  if (cond.type === 'identifier' || cond.type === 'attribute' || cond.type === 'subscript') return 'present';
  if (cond.type === 'call') {
    const f = field(cond, 'function');
    return f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get' ? 'present' : undefined;
  }
  if (cond.type !== 'comparison_operator') return undefined;
  const ops = comparisonOperators(cond);
  const r = named(cond)[1];
  if (ops.length !== 1 || !r) return undefined;
  if ((ops[0] === 'is' || ops[0] === '==') && r.type === 'none') return 'absent';
  if ((ops[0] === 'is not' || ops[0] === '!=') && r.type === 'none') return 'present';
  // `k in results`, not a filter against a literal list (`name in ("f", "g")`)
  if (['list', 'tuple', 'set', 'string'].includes(unparen(r).type)) return undefined;
  if (ops[0] === 'not in') return 'absent';
  if (ops[0] === 'in') return 'present';
  return undefined;
}

/** A missing item left out of both sides of a ratio: `if x is None: continue` before the counts, or
 *  `if k in results: num += …; den += …` with no `else`. */
export function droppedOnMissing(n: PyNode, c: Ctx): void {
  const a = c.python;
  const cond = field(n, 'condition');
  const body = field(n, 'consequence');
  if (!cond || !body || n.children.some((k) => k.type === 'elif_clause' || k.type === 'else_clause')) return;
  const t = missingTest(a, cond);
  if (!t) return;
  const stmts = named(body);
  const loop = enclosingFor(n);
  if (!loop || field(loop, 'body') !== n.parent) return;
  let counted: Set<string>;
  if (t === 'absent' && stmts.length === 1 && stmts[0]!.type === 'continue_statement') counted = countedFrom(a, loop, n.end);
  else if (t === 'present') {
    counted = new Set(stmts.filter((s) => s.type === 'expression_statement' && named(s)[0]?.type === 'augmented_assignment').map((s) => a.src(field(named(s)[0]!, 'left') ?? s)));
    if (counted.size < 2) return;
  } else return;
  const fn = verdictFunctionAt(c, n);
  const division = fn && counted.size ? divisionByCount(a, fn.node, loop, counted) : undefined;
  if (!division) return;
  c.report({ messageId: 'droppedMissing', data: { guard: short(a, cond, 50), score: short(a, division, 50), items: short(a, field(loop, 'right') ?? loop, 30) }, at: cond });
}
