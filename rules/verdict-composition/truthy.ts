/**
 * Alternatives combined wrongly:
 * - truthyElement: `any([check(v)] for v in alternatives)` — each element is a one-item list, truthy
 *   whatever `check` returned, so `any`/`all` is True for any non-empty input;
 * - truthyCollection: a comprehension or generator tested for truth (`if [v == x for v in vs]:`,
 *   `assert (check(v) for v in vs)`): true whenever it has an element (a generator always);
 * - alternativesAnded: alternatives split on an OR separator (`ref.split(" |OR| ")`) combined as AND
 *   (`score *= match(v)`, `all(...)`, a failing `return` inside the loop): every alternative must match;
 * - jsTruthyArray: an array (`xs.map(check)`, `xs.filter(check)`, `[…]`) tested for truth in
 *   JavaScript/TypeScript, where every array is truthy, even an empty one.
 */
import type { AnyNode } from 'acorn';
import type { RuleContext } from '../../src/contract/rule.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { isJsFunction, programOf, propName } from '../../src/lang/js/index.js';
import { jsOnVerdictPath } from '../../src/suites/verdict.js';
import { unwrapExpr } from '../../src/lang/js/nodes.js';
import type { Project } from '../../src/contract/project.js';
import { short, verdictFunctionAt, type Ctx, type Msg } from './kinds.js';

const LITERAL_COLLECTION = new Set(['list', 'tuple', 'set', 'dictionary']);

/** `any(...)`/`all(...)` whose generator or list comprehension yields non-empty literal collections. */
export function truthyElement(n: PyNode, c: Ctx): void {
  const a = c.python;
  const f = field(n, 'function');
  const name = f?.type === 'identifier' ? a.src(f) : '';
  if (name !== 'any' && name !== 'all') return;
  const args = field(n, 'arguments');
  const gen = args?.type === 'generator_expression' ? args : named(args ?? n)[0];
  if (!gen || (gen.type !== 'generator_expression' && gen.type !== 'list_comprehension')) return;
  const body = field(gen, 'body');
  const el = body ? unparen(body) : undefined;
  if (!el || !LITERAL_COLLECTION.has(el.type) || !named(el).length) return;
  const fn = verdictFunctionAt(c, n);
  if (!fn) return;
  c.report({ messageId: 'truthyElement', data: { call: short(a, n), element: short(a, el, 40), name }, at: el });
}

/** Where a value is read for its truth: an `if`/`elif`/`while`/`assert` test, `not`, `and`/`or`, `bool()`, a conditional's test. */
export function truthPosition(n: PyNode): boolean {
  const p = n.parent;
  if (!p) return false;
  switch (p.type) {
    case 'if_statement':
    case 'elif_clause':
    case 'while_statement':
      return field(p, 'condition') === n;
    case 'assert_statement':
      return named(p)[0] === n;
    case 'not_operator':
    case 'boolean_operator':
      return true;
    case 'conditional_expression':
      return named(p)[1] === n;
    case 'argument_list': {
      const call = p.parent;
      return call?.type === 'call' && ['bool'].includes(call.children[0]?.text ?? '') && named(p).length === 1;
    }
    case 'parenthesized_expression':
      return truthPosition(p);
    default:
      return false;
  }
}

/** A value that is a boolean result: a comparison, `not`, `and`/`or`, or a call. */
function checkLike(n: PyNode): boolean {
  const e = unparen(n);
  return e.type === 'comparison_operator' || e.type === 'not_operator' || e.type === 'boolean_operator' || e.type === 'call';
}

/** A list comprehension with no `if` clause over checks, or a generator expression, read for its truth. */
export function truthyCollection(n: PyNode, c: Ctx): void {
  const a = c.python;
  if (!truthPosition(n)) return;
  const body = field(n, 'body');
  if (!body || !checkLike(body)) return;
  if (n.type === 'list_comprehension' && named(n).some((k) => k.type === 'if_clause')) return;
  const fn = verdictFunctionAt(c, n);
  if (!fn) return;
  const kind = n.type === 'generator_expression' ? 'a generator object, which is always true' : 'a list, true whenever it has an item, whatever the checks in it returned';
  c.report({ messageId: 'truthyCollection', data: { expr: short(a, n), kind }, at: n });
}

/** The separator of `x.split("<sep>")` when it names OR as a word (`" |OR| "`, `" or "`). */
function orSplit(a: PythonAnalysis, e0: PyNode, depth = 0): string | undefined {
  const e = unparen(e0);
  if (depth > 3) return undefined;
  if (e.type === 'identifier') {
    for (const v of a.valueSources(e)) if (v !== e) {
      const s = orSplit(a, v, depth + 1);
      if (s) return s;
    }
    return undefined;
  }
  // [clean(x) for x in ref.split(" |OR| ")]
  if (e.type === 'list_comprehension' || e.type === 'generator_expression') {
    const clause = named(e).find((k) => k.type === 'for_in_clause');
    const right = clause ? field(clause, 'right') : undefined;
    return right ? orSplit(a, right, depth + 1) : undefined;
  }
  if (e.type !== 'call') return undefined;
  const f = field(e, 'function');
  if (f?.type !== 'attribute' || a.src(field(f, 'attribute') ?? f) !== 'split') return undefined;
  const sep = named(field(e, 'arguments') ?? e)[0];
  if (sep?.type !== 'string') return undefined;
  const text = sep.children.filter((k) => k.type === 'string_content').map((k) => k.text).join('');
  return /(^|[^A-Za-z])(OR|or)([^A-Za-z]|$)/.test(text) && /[^A-Za-z\s]|^\s+or\s+$/i.test(text) ? text : undefined;
}

/** A loop or generator over OR-split alternatives that combines them as AND. */
export function alternativesAnded(n: PyNode, c: Ctx): void {
  const a = c.python;
  let over: PyNode | undefined;
  let how: string | undefined;
  if (n.type === 'for_statement') {
    over = field(n, 'right');
    const body = field(n, 'body');
    if (!over || !body) return;
    walk(body, (k) => {
      if (how || k.type === 'function_definition' || k.type === 'lambda') return false;
      if (k.type === 'augmented_assignment' && a.text.slice(field(k, 'left')?.end ?? k.start, field(k, 'right')?.start ?? k.end).includes('*=')) how = `\`${short(a, k, 40)}\` multiplies every alternative's score`;
      if (k.type === 'return_statement' && /^(0|0\.0?|False|0\.)$/.test(a.src(named(k)[0] ?? k).trim())) how = `\`${short(a, k, 40)}\` inside the loop fails on the first alternative that does not match`;
      return undefined;
    });
  } else if (n.type === 'call' && a.src(field(n, 'function') ?? n) === 'all') {
    const gen = field(n, 'arguments');
    const clause = gen?.type === 'generator_expression' ? named(gen).find((k) => k.type === 'for_in_clause') : undefined;
    over = clause ? field(clause, 'right') : undefined;
    how = `\`${short(a, n, 40)}\` requires every alternative`;
  }
  if (!over || !how) return;
  const sep = orSplit(a, over);
  if (!sep || !verdictFunctionAt(c, n)) return;
  c.report({ messageId: 'alternativesAnded', data: { over: short(a, over, 40), sep: JSON.stringify(sep), how }, at: n.type === 'for_statement' ? { start: n.start, end: over.end } : n });
}

// ------------------------------------------------------------------ JavaScript / TypeScript

const ARRAY_METHODS = new Set(['map', 'filter', 'flatMap', 'flat', 'keys', 'values', 'entries']);

/** An expression that is always an array: an array literal, `xs.map(…)`, `xs.filter(…)`, `Array.from(…)`. */
function jsArray(e: AnyNode): boolean {
  if (e.type === 'ArrayExpression') return true;
  if (e.type !== 'CallExpression' || e.callee.type !== 'MemberExpression') return false;
  const m = propName(e.callee);
  if (m === 'from' && e.callee.object.type === 'Identifier' && e.callee.object.name === 'Array') return true;
  return !!m && ARRAY_METHODS.has(m) && (m !== 'keys' && m !== 'values' && m !== 'entries' ? true : e.callee.object.type === 'Identifier' && e.callee.object.name === 'Object');
}

/** An array tested for truth in a verdict function of an eval module. */
export function jsTruthyArray(node: AnyNode, c: RuleContext<Msg>, ancestors: readonly AnyNode[], project: Project): void {
  const parent = ancestors[ancestors.length - 1];
  if (!parent || !jsArray(node)) return;
  const grand = ancestors[ancestors.length - 2];
  const TESTERS = ['some', 'every', 'filter', 'find', 'findIndex', 'findLast', 'findLastIndex'];
  // `alts.some((a) => [check(a)])`: the callback returns an array, truthy for every item
  const callbackResult = parent.type === 'ArrowFunctionExpression' && parent.body === node && grand?.type === 'CallExpression' && grand.arguments[0] === parent && TESTERS.includes(propName(grand.callee) ?? '');
  // `[alts.map(check)].some(Boolean)`: the elements are arrays, so each one is truthy
  const identity = (f: AnyNode | undefined): boolean =>
    (f?.type === 'Identifier' && f.name === 'Boolean') ||
    (f?.type === 'ArrowFunctionExpression' && f.params.length === 1 && f.params[0]!.type === 'Identifier' && (() => {
      const name = (f.params[0] as { name: string }).name;
      let b: AnyNode = f.body;
      while (b.type === 'UnaryExpression' && b.operator === '!') b = b.argument;
      return b.type === 'Identifier' && b.name === name && (f.body === b || (f.body.type === 'UnaryExpression' && f.body.argument.type === 'UnaryExpression'));
    })());
  const arrayOfArrays =
    node.type === 'ArrayExpression' && node.elements.length > 0 && node.elements.every((e) => !!e && e.type !== 'SpreadElement' && jsArray(e)) &&
    parent.type === 'MemberExpression' && parent.object === node && TESTERS.includes(propName(parent) ?? '') && grand?.type === 'CallExpression' && grand.callee === parent && identity(grand.arguments[0]);
  const test =
    callbackResult ||
    arrayOfArrays ||
    ((parent.type === 'IfStatement' || parent.type === 'WhileStatement' || parent.type === 'ConditionalExpression') && parent.test === node) ||
    (parent.type === 'UnaryExpression' && parent.operator === '!') ||
    (parent.type === 'LogicalExpression' && (parent.operator === '&&' || (parent.operator === '||' && !emptyDefault(parent.right))) && parent.left === node) ||
    (parent.type === 'CallExpression' && parent.callee.type === 'Identifier' && parent.callee.name === 'Boolean');
  if (!test) return;
  const program = programOf(ancestors);
  // the callback's own function is not the verdict function; the one that calls `.some(...)` is
  const fn = [...ancestors].reverse().find((a) => isJsFunction(a) && !(callbackResult && a === parent));
  if (!program || !fn || !isJsFunction(fn)) return;
  if (!jsOnVerdictPath(project, c.unit.file.path, program, fn)) return;
  const text = c.text.slice(node.start, node.end).replace(/\s+/g, ' ');
  c.report({ messageId: 'jsTruthyArray', data: { expr: text.length > 60 ? `${text.slice(0, 57)}...` : text }, at: node });
}

/** `xs.map(f) || []`: a default of the same kind, so the expression is used as an array, not tested for truth. */
function emptyDefault(e: AnyNode): boolean {
  const x = unwrapExpr(e);
  return (x.type === 'ArrayExpression' && x.elements.length === 0) || (x.type === 'ObjectExpression' && x.properties.length === 0);
}
