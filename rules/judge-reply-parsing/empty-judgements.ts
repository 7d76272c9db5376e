/**
 * `emptyJudgements`: `all(…)` decides the verdict over the judgements a model's structured reply lists
 * (`json.loads(reply)["results"]`, `.get("results", [])`), with no test that the list holds one
 * judgement per assertion. A reply that lacks the list, or lists fewer items, passes every assertion it
 * left out: `all()` of nothing is True.
 */
import type { PythonAnalysis, PythonProject } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { llmReply } from '../../src/lang/python/llm-reply.js';
import { boundParam } from '../../src/lang/python/state-reads.js';

export interface EmptyJudgements {
  /** The read of the list from the reply (`data.get("results", [])`). */
  list: PyNode;
}

/** `all(<judgements>)` where the judgements are items of a list read from a model's parsed reply. */
export function emptyJudgements(a: PythonAnalysis, call: PyNode, project: PythonProject | undefined): EmptyJudgements | undefined {
  if (call.type !== 'call') return undefined;
  const f = field(call, 'function');
  if (f?.type !== 'identifier' || a.src(f) !== 'all') return undefined;
  // `all(x for x in xs)`: the generator is the call's arguments node itself
  const args = field(call, 'arguments');
  const arg = args?.type === 'generator_expression' ? args : args && named(args)[0];
  if (!arg) return undefined;
  const list = judgementList(a, arg, project, 0, new Set());
  if (!list) return undefined;
  // a length test of what all() runs over, in the function that decides, answers the question
  const fn = a.functionAt(call);
  const iter = iterable(arg);
  if (fn && iter.type === 'identifier' && (lengthTested(a, fn.node, a.src(iter)) || countCompared(a, fn.node, a.src(iter)) || helperCounts(a, fn.node, a.src(iter), project))) return undefined;
  // a schema the reply is validated against bounds the list's length (`"minItems": …`)
  if (fn && schemaBounded(a, fn.node, list)) return undefined;
  return { list };
}

/** A count of the items of `name` (`sum(1 for v in name if …)`, `len([v for v in name if …])`) compared with
 *  something, directly or through a local: `passed == len(rubric)` fails a reply that lists too few. */
function countCompared(a: PythonAnalysis, scope: PyNode, name: string): boolean {
  let hit = false;
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type !== 'call' || !/^(?:sum|len)$/.test(a.src(field(x, 'function') ?? x))) return undefined;
    const args = field(x, 'arguments');
    const gen = args?.type === 'generator_expression' ? args : args && named(args)[0];
    if (!gen || (gen.type !== 'generator_expression' && gen.type !== 'list_comprehension') || a.src(iterable(gen)) !== name) return undefined;
    let p = x.parent;
    while (p?.type === 'parenthesized_expression') p = p.parent;
    if (p?.type === 'comparison_operator') hit = true;
    else if (p?.type === 'assignment' && field(p, 'left')?.type === 'identifier') {
      const local = a.src(field(p, 'left')!);
      walk(scope, (y) => {
        if (hit) return false;
        if (y.type === 'identifier' && a.src(y) === local && y.parent?.type === 'comparison_operator') hit = true;
        return undefined;
      });
    }
    return undefined;
  });
  return hit;
}

/** `name` is passed to a function of this file, in a condition (`if not _complete(verdicts, rubric):`), whose
 *  body tests the length of the parameter it receives. */
function helperCounts(a: PythonAnalysis, scope: PyNode, name: string, project: PythonProject | undefined): boolean {
  let hit = false;
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type !== 'identifier' || a.src(x) !== name || x.parent?.type !== 'argument_list') return undefined;
    const call = x.parent.parent;
    if (call?.type !== 'call' || !inTest(call)) return undefined;
    const f = field(call, 'function');
    if (f?.type !== 'identifier') return undefined;
    const r = project?.resolveFunction(a.path, a.src(f));
    const b = r ? project!.analysis(r.file) : a;
    const fn = r ? r.fn : a.functionByQualname(a.src(f));
    if (!fn || !b) return undefined;
    const c = a.call(call);
    const param = c && boundParam(fn, c, x);
    if (param && lengthTested(b, fn.node, param)) hit = true;
    return undefined;
  });
  return hit;
}

function inTest(x: PyNode): boolean {
  let child = x;
  for (let p = x.parent; p; child = p, p = p.parent) {
    if (p.type === 'parenthesized_expression' || p.type === 'not_operator' || p.type === 'boolean_operator') continue;
    if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement') return field(p, 'condition') === child;
    return p.type === 'assert_statement';
  }
  return false;
}

/** Before `all()`, the parsed reply the list is read from is validated against a JSON schema that bounds an
 *  array's length (`jsonschema.validate(data, {… "minItems": len(rubric) …})`). */
function schemaBounded(a: PythonAnalysis, scope: PyNode, list: PyNode): boolean {
  const base = list.type === 'subscript' ? field(list, 'value') : list.type === 'call' ? field(field(list, 'function') ?? list, 'object') : undefined;
  if (!base) return false;
  const subject = a.src(unparen(base));
  let hit = false;
  walk(scope, (x) => {
    if (hit || x.start >= list.start) return false;
    if (x.type !== 'call') return undefined;
    const f = field(x, 'function');
    const q = f ? a.qualifiedName(f) ?? '' : '';
    if (!/^jsonschema\.(?:\w+\.)*validate$/.test(q)) return undefined;
    const args = named(field(x, 'arguments') ?? x);
    if (!args[0] || a.src(unparen(args[0])) !== subject || !args[1]) return undefined;
    let schema = a.src(args[1]);
    if (unparen(args[1]).type === 'identifier') schema = a.valueSources(unparen(args[1])).map((v) => a.src(v)).join(' ');
    if (/["']minItems["']/.test(schema)) hit = true;
    return undefined;
  });
  return hit;
}

function iterable(e: PyNode): PyNode {
  const u = unparen(e);
  if (u.type !== 'generator_expression' && u.type !== 'list_comprehension') return u;
  const clause = named(u).find((k) => k.type === 'for_in_clause');
  const right = clause && field(clause, 'right');
  return right ? unparen(right) : u;
}

function lengthTested(a: PythonAnalysis, scope: PyNode, name: string): boolean {
  let hit = false;
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type === 'call' && a.src(field(x, 'function') ?? x) === 'len' && a.src(named(field(x, 'arguments') ?? x)[0] ?? x) === name) hit = true;
    if ((x.type === 'not_operator' || x.type === 'if_statement') && new RegExp(`^(?:not\\s+|if\\s+(?:not\\s+)?)${name}\\b\\s*:?`).test(a.src(x))) hit = true;
    return undefined;
  });
  return hit;
}

/** The list read from a model's parsed reply that `e` runs over, through comprehensions, locals and the
 *  returns of a method of the same class or a function of the same file. */
function judgementList(a: PythonAnalysis, e0: PyNode, project: PythonProject | undefined, depth: number, seen: Set<PyNode>): PyNode | undefined {
  const e = unparen(e0);
  if (depth > 6 || seen.has(e)) return undefined;
  seen.add(e);
  const next = (n: PyNode | undefined, d = depth) => (n ? judgementList(a, n, project, d + 1, seen) : undefined);
  switch (e.type) {
    case 'generator_expression':
    case 'list_comprehension': {
      const clause = named(e).find((k) => k.type === 'for_in_clause');
      return next(clause && field(clause, 'right'));
    }
    case 'identifier': {
      for (const v of a.valueSources(e)) if (v !== e) {
        const r = next(v);
        if (r) return r;
      }
      return undefined;
    }
    case 'boolean_operator':
      return next(field(e, 'left'));
    case 'subscript': {
      const key = named(e).slice(1)[0];
      return key && /^["']/.test(a.src(key)) && parsedReply(a, field(e, 'value'), project) ? e : undefined;
    }
    case 'call': {
      const f = field(e, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get') return parsedReply(a, field(f, 'object'), project) ? e : undefined;
      // a method of the same class (`cls.evaluate(…)`, `self.evaluate(…)`) or a function of this file: its returns
      const name = f?.type === 'identifier' ? a.src(f) : f?.type === 'attribute' && /^(?:self|cls)$/.test(a.src(field(f, 'object') ?? f)) ? a.src(field(f, 'attribute') ?? f) : undefined;
      if (!name) return undefined;
      let found: PyNode | undefined;
      walk(a.ast, (x) => {
        if (found) return false;
        if (x.type !== 'function_definition' || a.src(field(x, 'name') ?? x) !== name) return undefined;
        walk(x, (r) => {
          if (found) return false;
          if (r.type === 'function_definition' && r !== x) return false;
          if (r.type === 'return_statement' && named(r)[0]) found = next(named(r)[0], depth + 1);
          return undefined;
        });
        return false;
      });
      return found;
    }
    default:
      return undefined;
  }
}

/** `data` is a model's reply parsed as JSON: `json.loads(reply)` (or a local holding it). */
function parsedReply(a: PythonAnalysis, e0: PyNode | undefined, project: PythonProject | undefined, depth = 0): boolean {
  if (!e0 || depth > 4) return false;
  const e = unparen(e0);
  if (e.type === 'identifier') return a.valueSources(e).some((v) => v !== e && parsedReply(a, v, project, depth + 1));
  if (e.type !== 'call') return false;
  const f = field(e, 'function');
  const q = f ? a.qualifiedName(f) : undefined;
  const arg = named(field(e, 'arguments') ?? e)[0];
  return q === 'json.loads' && !!arg && !!llmReply(a, arg, project);
}
