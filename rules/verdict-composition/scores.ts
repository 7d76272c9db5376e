/**
 * Partial scores turned into verdicts, and items left out of a score:
 * - looseThreshold: a fraction (a ratio, a mean, a similarity, a product of partial scores) passes the
 *   agent when it is above zero (`float(score > 0)`, `1 if ratio != 0 else 0`, `bool(score)`);
 * - rawSimilarity: a project function that returns a raw similarity (`SequenceMatcher(…).ratio()`,
 *   `fuzz.ratio(…) / 100`) with no threshold is read as pass/fail by a caller (`if fuzzy_match(a, b):`);
 * - droppedItems: an item whose check raises is skipped (`except …: continue`) and the score is divided
 *   by the items that did not raise; or a component missing from the results is left out of both sides
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
  if (verdictPolarity(a, n, pythonVerdictShapes(c.project)) !== true) return;
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

/** `except …: continue` in a loop whose score is divided by the items that did not raise. */
export function droppedOnError(n: PyNode, c: Ctx): void {
  const a = c.python;
  const tryNode = n.parent;
  if (tryNode?.type !== 'try_statement') return;
  const body = named(field(n, 'body') ?? named(n).find((k) => k.type === 'block') ?? n).filter((k) => k.type !== 'comment');
  const last = body[body.length - 1];
  if (last?.type !== 'continue_statement' || !body.slice(0, -1).every((s) => s.type === 'expression_statement' || s.type === 'pass_statement')) return;
  // the enclosing loop, and what it counts after the `try`
  let loop: PyNode | undefined;
  for (let p = tryNode.parent; p; p = p.parent) {
    if (p.type === 'for_statement' || p.type === 'while_statement') {
      loop = p;
      break;
    }
    if (p.type === 'function_definition') return;
  }
  if (!loop || loop.type !== 'for_statement') return;
  const counted = new Set<string>();
  walk(field(loop, 'body') ?? loop, (k) => {
    if (k.start < tryNode.start && k.end < tryNode.start) return false;
    if (k.type === 'augmented_assignment') counted.add(a.src(field(k, 'left') ?? k));
    if (k.type === 'call') {
      const f = field(k, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'append') counted.add(`len(${a.src(field(f, 'object') ?? f)})`);
    }
    return undefined;
  });
  const fn = verdictFunctionAt(c, n);
  if (!fn || !counted.size) return;
  const iterable = a.src(field(loop, 'right') ?? loop);
  // after the loop: a division by one of the counts (not by len(<iterable>))
  let division: PyNode | undefined;
  walk(field(fn.node, 'body') ?? fn.node, (k) => {
    if (division || k.start < loop.end) return k.end < loop.end ? false : undefined;
    if (k.type === 'binary_operator' && a.text.slice(field(k, 'left')?.end ?? k.start, field(k, 'right')?.start ?? k.end).trim() === '/') {
      const den = a.src(unparen(field(k, 'right') ?? k)).replace(/\s+/g, '');
      if (counted.has(den) && den !== `len(${iterable})`) division = k;
    }
    return undefined;
  });
  if (!division) return;
  const header = a.src(n).split('\n')[0]!.replace(/:\s*(#.*)?$/, '').trim();
  c.report({ messageId: 'droppedItems', data: { handler: header.length > 50 ? `${header.slice(0, 47)}...` : header, score: short(a, division, 50), items: short(a, field(loop, 'right') ?? loop, 30) }, at: { start: n.start, end: (named(n).find((k) => k.type === 'block') ?? n).start } });
}
