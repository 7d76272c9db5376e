/**
 * Facts about plain JavaScript verifier code that rules read: blocking calls without a bound
 * (`missing-timeout`) and sequence comparisons after `new Set(...)` (`set-collapse`).
 * Bindings are resolved through the module's scopes (imports, `require`, aliases), not names alone.
 */
import type { AnyNode, Expression, NewExpression, ObjectExpression, Program, SpreadElement } from 'acorn';
import { forEachChild, propName } from './nodes.js';
import { jsScopes, type JsBinding, type JsScopes } from './scope.js';

/** An argument of a call: an expression or a spread. */
type Arg = Expression | SpreadElement;

const CP_MODULES = new Set(['child_process', 'node:child_process']);
const HTTP_MODULES = new Set(['http', 'https', 'node:http', 'node:https', 'http2', 'node:http2']);
/** child_process functions that block or wait and accept a `timeout` option; value: index of the options argument when argv is given. */
const CP_CALLS: ReadonlyMap<string, 'exec' | 'file'> = new Map([
  ['exec', 'exec'],
  ['execSync', 'exec'],
  ['execFile', 'file'],
  ['execFileSync', 'file'],
  ['spawnSync', 'file'],
]); // a Map: `cp.toString()` must not find Object.prototype's members

interface CalleeModule {
  from: string;
  member: string;
}

/** Which module member a callee names: `execSync` (imported/required), `cp.execSync`, `require('child_process').execSync`. */
function calleeModule(callee: AnyNode, sc: JsScopes): CalleeModule | undefined {
  if (callee.type === 'Identifier') {
    const b = sc.resolve(callee);
    if (b?.module && b.module.imported !== '*' && b.module.imported !== 'default') return { from: b.module.from, member: b.module.imported };
    return undefined;
  }
  const member = propName(callee);
  if (callee.type === 'MemberExpression' && member !== undefined) {
    const obj = callee.object;
    if (obj.type === 'Identifier') {
      const b = resolveAlias(sc, sc.resolve(obj));
      if (b?.module && (b.module.imported === '*' || b.module.imported === 'default')) return { from: b.module.from, member };
      return undefined;
    }
    if (obj.type === 'CallExpression' && obj.callee.type === 'Identifier' && obj.callee.name === 'require' && obj.arguments[0]?.type === 'Literal') {
      return { from: String(obj.arguments[0].value), member };
    }
  }
  return undefined;
}

function resolveAlias(sc: JsScopes, b: JsBinding | undefined, depth = 0): JsBinding | undefined {
  if (!b || depth > 5) return b;
  if (!b.module && b.kind === 'const' && b.init?.type === 'Identifier') return resolveAlias(sc, sc.resolve(b.init), depth + 1);
  return b;
}

/** The object literal an options argument evaluates to, `null` when there is none, `undefined` when unknown. */
function optionsObject(arg: Arg | undefined, sc: JsScopes): ObjectExpression | null | undefined {
  if (!arg) return null;
  if (arg.type === 'ObjectExpression') return arg;
  if (arg.type === 'Identifier') {
    if (arg.name === 'undefined') return null;
    const b = sc.resolve(arg);
    if (b && b.kind === 'const' && b.init?.type === 'ObjectExpression') return b.init;
    return undefined;
  }
  if (arg.type === 'Literal' && arg.value === null) return null;
  return undefined;
}

/** Does the object literal set `key` (to something other than 0/undefined/null)? `undefined` when a spread hides it. */
function setsKey(obj: ObjectExpression, key: string): boolean | undefined {
  let unknown = false;
  for (const p of obj.properties) {
    if (p.type === 'SpreadElement') {
      unknown = true;
      continue;
    }
    const k = !p.computed && p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : undefined;
    if (k !== key) continue;
    const v = p.value;
    if (v.type === 'Literal' && (v.value === 0 || v.value === null)) return false;
    if (v.type === 'Identifier' && v.name === 'undefined') return false;
    return true;
  }
  return unknown ? undefined : false;
}

export interface UnboundedCall {
  kind: 'process' | 'fetch' | 'http';
  /** e.g. `execSync`, `fetch`, `https.get`. */
  callee: string;
}

/** A child_process / fetch / http(s) call with no time bound, or undefined. */
export function unboundedCall(node: AnyNode, program: Program): UnboundedCall | undefined {
  if (node.type !== 'CallExpression') return undefined;
  const sc = jsScopes(program);
  const callee = node.callee;
  const args = node.arguments;
  if (args.some((a) => a.type === 'SpreadElement')) return undefined;

  if (callee.type === 'Identifier' && callee.name === 'fetch' && !sc.resolve(callee)) {
    const o = optionsObject(args[1], sc);
    if (o === undefined) return undefined;
    if (o === null || setsKey(o, 'signal') === false) return { kind: 'fetch', callee: 'fetch' };
    return undefined;
  }
  const m = calleeModule(callee, sc);
  if (!m) return undefined;
  const cpKind = CP_MODULES.has(m.from) ? CP_CALLS.get(m.member) : undefined;
  if (cpKind) {
    // exec(cmd, options?, cb?) / execFile(file, args?, options?, cb?)
    let optArg: Arg | undefined;
    if (cpKind === 'exec') optArg = args[1];
    else optArg = args[1] && (args[1].type === 'ArrayExpression' || isArrayish(args[1], sc)) ? args[2] : args[1];
    if (optArg && (optArg.type === 'ArrowFunctionExpression' || optArg.type === 'FunctionExpression')) optArg = undefined;
    const o = optionsObject(optArg, sc);
    if (o === undefined) return undefined;
    if (o === null || setsKey(o, 'timeout') === false) return { kind: 'process', callee: m.member };
    return undefined;
  }
  if (HTTP_MODULES.has(m.from) && (m.member === 'request' || m.member === 'get')) {
    // request(url|options, options?, cb?): every argument must be a URL or a known options object
    for (const [i, a] of args.slice(0, 2).entries()) {
      if (a.type === 'ArrowFunctionExpression' || a.type === 'FunctionExpression') continue;
      // get(url, cb): with a URL first, a last non-object argument is the response callback
      if (i === args.length - 1 && i > 0 && isUrlValue(args[0]!, sc) && a.type === 'Identifier' && optionsObject(a, sc) === undefined) continue;
      if (isUrlValue(a, sc)) continue;
      const o = optionsObject(a, sc);
      if (o === undefined) return undefined;
      if (o && (setsKey(o, 'timeout') !== false || setsKey(o, 'signal') !== false)) return undefined;
    }
    if (timeoutSetOnResult(node, sc)) return undefined;
    return { kind: 'http', callee: `${m.from.replace(/^node:/, '')}.${m.member}` };
  }
  return undefined;
}

function isUrlValue(n: Arg, sc: JsScopes, depth = 0): boolean {
  if (depth > 4) return false;
  if ((n.type === 'Literal' && typeof n.value === 'string') || n.type === 'TemplateLiteral') return true;
  if (n.type === 'BinaryExpression' && n.operator === '+') return true;
  if (n.type === 'NewExpression' && n.callee.type === 'Identifier' && n.callee.name === 'URL') return true;
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    return !!b?.init && isUrlValue(b.init, sc, depth + 1);
  }
  return false;
}

function isArrayish(n: Arg, sc: JsScopes): boolean {
  if (n.type !== 'Identifier') return false;
  const b = sc.resolve(n);
  return b?.init?.type === 'ArrayExpression';
}

/** `http.get(...).setTimeout(...)`, or `const req = http.request(...); req.setTimeout(...)`. */
function timeoutSetOnResult(call: AnyNode, sc: JsScopes): boolean {
  const d = sc.references.find((r) => r.binding && r.binding.init === call)?.binding;
  let found = false;
  const visit = (n: AnyNode): void => {
    if (found) return;
    if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && propName(n.callee) === 'setTimeout') {
      const obj = n.callee.object;
      if (obj === call || (obj.type === 'Identifier' && d && sc.resolve(obj) === d)) found = true;
    }
    forEachChild(n, visit);
  };
  visit(sc.program);
  return found;
}

// ------------------------------------------------------------------ set-collapse

/** `new Set(x)` with an argument, directly or through a `const`. Returns the `new Set` node. */
function setFromSequence(n: AnyNode | undefined, sc: JsScopes, depth = 0): NewExpression | undefined {
  if (!n || depth > 4) return undefined;
  if (n.type === 'NewExpression' && n.callee.type === 'Identifier' && n.callee.name === 'Set' && !sc.resolve(n.callee) && n.arguments.length > 0) {
    // `new Set(['a', 'b'])` of literals is a lookup table, not a collapsed sequence of data
    const arg = n.arguments[0]!;
    if (arg.type === 'ArrayExpression' && arg.elements.every((e) => e?.type === 'Literal' || e?.type === 'TemplateLiteral')) return undefined;
    return n;
  }
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    if (b && (b.kind === 'const' || b.kind === 'let' || b.kind === 'var') && b.init) return setFromSequence(b.init, sc, depth + 1);
  }
  return undefined;
}

/** `Array.from(…)`: the call's first argument. */
const arrayFromArg = (n: AnyNode): Arg | undefined =>
  n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.object.type === 'Identifier' && n.callee.object.name === 'Array' && propName(n.callee) === 'from' ? n.arguments[0] : undefined;

/** `[...x]`: the spread's argument. */
const spreadArg = (n: AnyNode): Expression | undefined =>
  n.type === 'ArrayExpression' && n.elements.length === 1 && n.elements[0]?.type === 'SpreadElement' ? n.elements[0].argument : undefined;

/** `[...S]` or `Array.from(S)` where S is a set built from a sequence. */
function spreadOfSet(n: AnyNode | undefined, sc: JsScopes): NewExpression | undefined {
  if (!n) return undefined;
  const inner = spreadArg(n) ?? arrayFromArg(n);
  if (inner) return setFromSequence(inner, sc);
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    if (b && b.kind === 'const' && b.init) return spreadOfSet(b.init, sc);
  }
  return undefined;
}

/** A receiver whose elements cannot repeat (`[...m.keys()]`, `Array.from(m.keys())`): containment over it
 *  loses no multiplicity. (`[...new Set(x)]` is itself a collapsed sequence and stays flagged.) */
function uniqueElements(n: AnyNode | undefined, sc: JsScopes): boolean {
  if (!n) return false;
  const inner = spreadArg(n) ?? arrayFromArg(n);
  if (!inner) return false;
  void sc;
  return inner.type === 'CallExpression' && propName(inner.callee) === 'keys' && inner.arguments.length === 0;
}

export interface SetComparison {
  kind: 'size' | 'every-has' | 'json';
}

const EQ = new Set(['===', '==', '!==', '!=']);

/** `A.size === B.size` where A or B is `new Set(seq)` (and the other a Set). */
export function setSizeComparison(node: AnyNode, program: Program): SetComparison | undefined {
  if (node.type !== 'BinaryExpression' || !EQ.has(node.operator)) return undefined;
  const sc = jsScopes(program);
  const sizeOf = (x: AnyNode): AnyNode | undefined => (x.type === 'MemberExpression' && propName(x) === 'size' ? setFromSequence(x.object, sc) : undefined);
  if (sizeOf(node.left) && sizeOf(node.right)) return { kind: 'size' };
  return undefined;
}

/** `xs.every(x => S.has(x))` / `[...A].every(x => B.has(x))` where S/B is `new Set(seq)`: containment that ignores multiplicity. */
export function everyHasComparison(node: AnyNode, program: Program): SetComparison | undefined {
  if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression') return undefined;
  const m = propName(node.callee);
  if (m !== 'every' && m !== 'some') return undefined;
  const cb = node.arguments[0];
  if (!cb || (cb.type !== 'ArrowFunctionExpression' && cb.type !== 'FunctionExpression')) return undefined;
  const sc = jsScopes(program);
  if (uniqueElements(node.callee.object, sc)) return undefined;
  let hit = false;
  // `every(x => S.has(x))` is containment and `some(x => !S.has(x))` its negation; `some(x => S.has(x))`
  // (any overlap) and `every(x => !S.has(x))` (disjointness) do not depend on multiplicity. Only a
  // membership test that decides the callback's result counts: the result itself, a conjunct of it
  // (under `!`, a disjunct), or what a `return` gives — not a side condition of one alternative
  // (`status === 'passed' || (status === 'skipped' && optional.has(name))` is no containment).
  const visit = (n: AnyNode, negated: boolean): void => {
    if (hit) return;
    if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && propName(n.callee) === 'has' && setFromSequence(n.callee.object, sc)) {
      if ((m === 'every') !== negated) hit = true;
      return;
    }
    if (n.type === 'UnaryExpression' && n.operator === '!') {
      visit(n.argument, !negated);
      return;
    }
    // a conjunction requires each side; under `!` a disjunction is one (De Morgan)
    if (n.type === 'LogicalExpression' && n.operator === (negated ? '||' : '&&')) {
      visit(n.left, negated);
      visit(n.right, negated);
      return;
    }
    if (n.type === 'BlockStatement' || n.type === 'IfStatement') {
      forEachChild(n, (c) => visit(c, negated));
      return;
    }
    if (n.type === 'ReturnStatement' && n.argument) visit(n.argument, negated);
  };
  visit(cb.body, false);
  if (!hit) return undefined;
  // Containment of a sequence in a set collapses duplicates of the sequence; over `[...new Set(x)]` too.
  void spreadOfSet;
  return { kind: 'every-has' };
}


/** Methods whose result still shows a collapsed sequence's content (`x.sort()`, `x.join(',')`, …). */
const COLLAPSE_KEEPING = new Set(['sort', 'toSorted', 'join', 'toString', 'map', 'filter', 'slice']);

/** A sequence's content after `new Set(...)` collapsed it: `[...new Set(a)].sort().join()`,
 *  `JSON.stringify(Array.from(new Set(a)).sort())`, `String([...new Set(a)])`. Returns the `new Set` node. */
function collapsedContent(n: AnyNode | undefined, sc: JsScopes, depth = 0): AnyNode | undefined {
  if (!n || depth > 8) return undefined;
  const spread = spreadOfSet(n, sc);
  if (spread) return spread;
  if (n.type === 'CallExpression') {
    const c = n.callee;
    const member = propName(c);
    // JSON.stringify(x), String(x)
    if (c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'JSON' && member === 'stringify') return collapsedContent(n.arguments[0], sc, depth + 1);
    if (c.type === 'Identifier' && c.name === 'String' && !sc.resolve(c)) return collapsedContent(n.arguments[0], sc, depth + 1);
    // x.sort(), x.join(','), x.toString(), x.map(f), x.filter(f), x.toSorted()
    if (c.type === 'MemberExpression' && member !== undefined && COLLAPSE_KEEPING.has(member)) return collapsedContent(c.object, sc, depth + 1);
  }
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    if (b && b.kind === 'const' && b.init) return collapsedContent(b.init, sc, depth + 1);
  }
  return undefined;
}

const isLiteralish = (n: AnyNode) => n.type === 'Literal' || (n.type === 'TemplateLiteral' && n.expressions.length === 0);

/** `[...new Set(a)].sort().join() === [...new Set(b)].sort().join()` (either side collapsed, the other not a literal). */
export function collapsedContentComparison(node: AnyNode, program: Program): SetComparison | undefined {
  if (node.type !== 'BinaryExpression' || !EQ.has(node.operator)) return undefined;
  const sc = jsScopes(program);
  if (isLiteralish(node.left) || isLiteralish(node.right)) return undefined;
  // two Sets compared by size are the `size` shape (setSizeComparison)
  const viaSize = (x: AnyNode) => propName(x) === 'size';
  if (viaSize(node.left) || viaSize(node.right)) return undefined;
  return collapsedContent(node.left, sc) || collapsedContent(node.right, sc) ? { kind: 'json' } : undefined;
}

const DEEP_EQUAL = new Set(['isDeepStrictEqual', 'deepStrictEqual', 'deepEqual', 'isEqual']);

/** `isDeepStrictEqual(new Set(a), new Set(b))`, `assert.deepStrictEqual(...)`, `_.isEqual(...)`. */
export function setDeepEqual(node: AnyNode, program: Program): SetComparison | undefined {
  if (node.type !== 'CallExpression' || node.arguments.length < 2) return undefined;
  const c = node.callee;
  const name = c.type === 'Identifier' ? c.name : propName(c);
  if (!name || !DEEP_EQUAL.has(name)) return undefined;
  const sc = jsScopes(program);
  const [a, b] = node.arguments;
  return (setFromSequence(a, sc) || collapsedContent(a, sc)) && (setFromSequence(b, sc) || collapsedContent(b, sc)) ? { kind: 'json' } : undefined;
}

// ------------------------------------------------------------------ float-equality

const INT_MATH = new Set(['round', 'floor', 'ceil', 'trunc', 'sign', 'clz32', 'imul']);
const FLOAT_MATH = new Set(['sqrt', 'cbrt', 'pow', 'log', 'log2', 'log10', 'log1p', 'exp', 'expm1', 'sin', 'cos', 'tan', 'atan', 'atan2', 'asin', 'acos', 'hypot', 'sinh', 'cosh', 'tanh', 'fround']);

const nonIntegerLiteral = (n: AnyNode): boolean => n.type === 'Literal' && typeof n.value === 'number' && Number.isFinite(n.value) && !Number.isInteger(n.value);

/** The non-integer number literal an operand is, or holds through a `const` (`const want = 0.3`). */
function floatLiteral(n: AnyNode, sc: JsScopes): AnyNode | undefined {
  if (nonIntegerLiteral(n)) return n;
  if (n.type === 'UnaryExpression' && n.operator === '-' && nonIntegerLiteral(n.argument)) return n;
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    if (b?.kind === 'const' && b.init) return floatLiteral(b.init, sc);
  }
  return undefined;
}

/** Arithmetic whose result is, in general, not an integer: a division, `Math.sqrt(…)`, or arithmetic over a float literal. */
function computedFloat(n: AnyNode, sc: JsScopes, depth = 0): boolean {
  if (depth > 6) return false;
  if (n.type === 'BinaryExpression') {
    // dividing by a power of two is exact in binary floating point
    const pow2 = (x: AnyNode) => x.type === 'Literal' && typeof x.value === 'number' && x.value > 0 && Number.isInteger(Math.log2(x.value));
    if (n.operator === '/' && pow2(n.right)) return computedFloat(n.left, sc, depth + 1);
    if (n.operator === '/' || n.operator === '**') return true;
    if (['+', '-', '*'].includes(n.operator)) return [n.left, n.right].some((x) => !!floatLiteral(x, sc) || computedFloat(x, sc, depth + 1));
    return false;
  }
  if (n.type === 'CallExpression') {
    const c = n.callee;
    const member = propName(c);
    if (c.type === 'MemberExpression' && member !== undefined && c.object.type === 'Identifier' && c.object.name === 'Math') return FLOAT_MATH.has(member) && !INT_MATH.has(member);
    return false;
  }
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    if (b?.kind === 'const' && b.init) return computedFloat(b.init, sc, depth + 1);
  }
  return false;
}

const NUMERIC_LITERAL = (n: AnyNode) => (n.type === 'Literal' && (typeof n.value === 'number' || typeof n.value === 'string' || typeof n.value === 'boolean' || n.value === null)) || (n.type === 'UnaryExpression' && n.operator === '-' && n.argument.type === 'Literal') || (n.type === 'Identifier' && (n.name === 'undefined' || n.name === 'NaN' || n.name === 'Infinity'));

export type FloatEquality = { kind: 'literal'; value: string } | { kind: 'computed' };

/** Zod methods that keep a field's value as the JSON gave it (checks, nullability, docs). */
const ZOD_KEEPING = new Set(['nullable', 'optional', 'nullish', 'describe', 'min', 'max', 'gt', 'gte', 'lt', 'lte', 'positive', 'nonnegative', 'negative', 'nonpositive', 'finite', 'int', 'default', 'catch']);

/** `z.number()` / `z.string()` (with only value-keeping methods after it): the field's declared kind. */
function zodLeaf(n: AnyNode, sc: JsScopes, depth = 0): 'number' | 'string' | undefined {
  if (depth > 8) return undefined;
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    return b?.kind === 'const' && b.init ? zodLeaf(b.init, sc, depth + 1) : undefined;
  }
  if (n.type !== 'CallExpression' || n.callee.type !== 'MemberExpression') return undefined;
  const m = propName(n.callee);
  const o = n.callee.object;
  if ((m === 'number' || m === 'string') && o.type === 'Identifier' && n.arguments.length === 0) return m;
  return m && ZOD_KEEPING.has(m) ? zodLeaf(o, sc, depth + 1) : undefined;
}

/** A `z.object({…})` schema (or a `const` holding one) declares `key` (at any depth) with the given kinds. */
function schemaDeclares(n: AnyNode, key: string, sc: JsScopes, depth = 0): 'number' | 'string' | undefined {
  if (depth > 8) return undefined;
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    return b?.kind === 'const' && b.init ? schemaDeclares(b.init, key, sc, depth + 1) : undefined;
  }
  if (n.type !== 'CallExpression' || n.callee.type !== 'MemberExpression') return undefined;
  const m = propName(n.callee);
  if (m && ZOD_KEEPING.has(m)) return schemaDeclares(n.callee.object, key, sc, depth + 1);
  if (m === 'array') return n.arguments[0] && n.arguments[0].type !== 'SpreadElement' ? schemaDeclares(n.arguments[0], key, sc, depth + 1) : undefined;
  const shape = n.arguments[0];
  if (m !== 'object' || shape?.type !== 'ObjectExpression') return undefined;
  for (const p of shape.properties) {
    if (p.type !== 'Property') continue;
    const k = p.key.type === 'Identifier' && !p.computed ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : undefined;
    const leaf = k === key ? zodLeaf(p.value, sc) : undefined;
    if (leaf) return leaf;
    const inner = schemaDeclares(p.value, key, sc, depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

/** The export a callee names through an import (`generateObject` of `import { generateObject } from "ai"`,
 *  `ai.generateObject` of `import * as ai from "ai"`, a destructured `require`): module and export. */
function importedCallee(c: AnyNode, sc: JsScopes): { from: string; name: string } | undefined {
  if (c.type === 'Identifier') {
    const m = sc.resolve(c)?.module;
    return m && m.imported !== '*' && m.imported !== 'default' ? { from: m.from, name: m.imported } : undefined;
  }
  if (c.type !== 'MemberExpression' || c.object.type !== 'Identifier') return undefined;
  const m = sc.resolve(c.object)?.module;
  const name = propName(c);
  return m && name && (m.imported === '*' || m.imported === 'default') ? { from: m.from, name } : undefined;
}

const VERCEL_AI = (from: string) => from === 'ai';
const SDK_HELPERS = (from: string) => /^(openai|@anthropic-ai\/sdk)(\/|$)/.test(from);
/** OpenAI/Anthropic helpers that turn a zod schema into a structured-output format; the schema is their first argument. */
const ZOD_FORMATS = new Set(['zodResponseFormat', 'zodTextFormat', 'zodOutputFormat', 'betaZodOutputFormat']);

const member = (o: AnyNode, key: string) => (o.type === 'ObjectExpression' ? o.properties.find((x) => x.type === 'Property' && !x.computed && ((x.key.type === 'Identifier' && x.key.name === key) || (x.key.type === 'Literal' && x.key.value === key))) : undefined);
const memberValue = (o: AnyNode | undefined, key: string): AnyNode | undefined => {
  const p = o ? member(o, key) : undefined;
  return p?.type === 'Property' ? p.value : undefined;
};

/** The schema of a `zodResponseFormat(schema, …)` (and kin) call imported from the OpenAI/Anthropic SDK. */
function zodFormatSchema(n: AnyNode | undefined, sc: JsScopes): AnyNode | undefined {
  if (n?.type !== 'CallExpression') return undefined;
  const imp = importedCallee(n.callee, sc);
  const a = n.arguments[0];
  return imp && SDK_HELPERS(imp.from) && ZOD_FORMATS.has(imp.name) && a && a.type !== 'SpreadElement' ? a : undefined;
}

/** LangChain's `model.withStructuredOutput(schema)` (or a `const` holding it): that schema. */
function structuredRunnable(n: AnyNode, sc: JsScopes, depth = 0): AnyNode | undefined {
  if (depth > 4) return undefined;
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    return b?.kind === 'const' && b.init ? structuredRunnable(b.init, sc, depth + 1) : undefined;
  }
  if (n.type !== 'CallExpression' || n.callee.type !== 'MemberExpression' || propName(n.callee) !== 'withStructuredOutput') return undefined;
  const a = n.arguments[0];
  return a && a.type !== 'SpreadElement' ? a : undefined;
}

/** An instruction argument: text written in the call or a name holding it (not an object, not a schema). */
const textArg = (a: AnyNode | undefined) => !!a && (a.type === 'Literal' ? typeof a.value === 'string' : a.type === 'TemplateLiteral' || a.type === 'Identifier');

/** The text an argument writes (a string, a template's fixed parts, a `const` holding one); undefined when unknown. */
function writtenText(a: AnyNode | undefined, sc: JsScopes, depth = 0): string | undefined {
  if (!a || depth > 4) return undefined;
  if (a.type === 'Literal') return typeof a.value === 'string' ? a.value : undefined;
  if (a.type === 'TemplateLiteral') return a.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' x ');
  if (a.type === 'Identifier') {
    const b = sc.resolve(a);
    return b?.kind === 'const' && b.init ? writtenText(b.init, sc, depth + 1) : undefined;
  }
  return undefined;
}

/** Text that is code or an address, not an instruction to a model: SQL, a URL, a file path. */
const CODE_TEXT = [
  /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|REPLACE|UPSERT|MERGE|CREATE|DROP|ALTER|CALL|EXEC|PRAGMA)\b/,
  /\b(FROM|WHERE|GROUP BY|ORDER BY|JOIN)\b/,
  /^\s*(select|with)\b[\s\S]*\bfrom\b/i,
  /^\s*[a-z][a-z0-9+.-]*:\/\//i,
  /^\s*(\.{0,2}\/|~\/|[a-z]:\\)\S*\s*$/i,
];

/** An argument whose text, known here, is code or an address rather than an instruction. */
function codeText(a: AnyNode | undefined, sc: JsScopes): boolean {
  const t = writtenText(a, sc);
  return t !== undefined && CODE_TEXT.some((re) => re.test(t));
}

/**
 * A known model-extraction call, awaited or not, identified by what it calls, never by its wording:
 * Stagehand's `extract(instruction, schema)` / `extract({ instruction, schema })`; Vercel AI's
 * `generateObject`/`streamObject({ schema })` imported from `ai`; OpenAI/Anthropic structured outputs
 * (`….parse({ response_format: zodResponseFormat(schema, …) })`, `responses.parse({ text: { format:
 * zodTextFormat(schema, …) } })`, `output_format`); LangChain's `withStructuredOutput(schema).invoke(…)`.
 * That call's output schema. Any other call given a schema (`sql(query, schema)`, `getJson(url, schema)`,
 * a tool call with a `prompt` member) only validates what a program computed, and is not one.
 */
function outputSchema(n: AnyNode, sc: JsScopes): AnyNode | undefined {
  const c = n.type === 'AwaitExpression' ? n.argument : n;
  if (c.type !== 'CallExpression') return undefined;
  const [a0, a1] = c.arguments;
  const imp = importedCallee(c.callee, sc);
  if (imp && VERCEL_AI(imp.from) && (imp.name === 'generateObject' || imp.name === 'streamObject')) return memberValue(a0, 'schema');
  if (c.callee.type !== 'MemberExpression') return undefined;
  const m = propName(c.callee);
  if (m === 'extract') {
    // a method named `extract` is a model extraction only when what it is told is an instruction, not a
    // query, URL or path (`warehouse.extract("SELECT AVG(stars) …", schema)` computes the number)
    if (a0?.type === 'ObjectExpression') {
      const ins = memberValue(a0, 'instruction');
      return ins && !codeText(ins, sc) ? memberValue(a0, 'schema') : undefined;
    }
    return textArg(a0) && !codeText(a0, sc) && a1 && (a1.type === 'CallExpression' || a1.type === 'Identifier') ? a1 : undefined;
  }
  if (m === 'parse') return zodFormatSchema(memberValue(a0, 'response_format'), sc) ?? zodFormatSchema(memberValue(memberValue(a0, 'text'), 'format'), sc) ?? zodFormatSchema(memberValue(a0, 'output_format'), sc);
  if (m === 'invoke') return structuredRunnable(c.callee.object, sc);
  return undefined;
}

/** The name a write target is rooted in: `data` of `data.total`, `data.items[0].price`, `data?.total`. */
function rootName(n: AnyNode): AnyNode | undefined {
  for (let i = 0; i < 16; i++) {
    if (n.type === 'MemberExpression') n = n.object;
    else if (n.type === 'ChainExpression' || n.type === 'ParenthesizedExpression') n = n.expression;
    else return n.type === 'Identifier' ? n : undefined;
  }
  return undefined;
}

const writtenCache = new WeakMap<Program, ReadonlySet<JsBinding>>();

/**
 * The bindings whose value, or an object read out of it, something writes: an assignment or update
 * rooted in them (`data.total /= 100`, `total++`, `({ x: data.total } = o)`), `Object.assign(data, …)`, a
 * `delete`; and, through `const` aliases, the binding an alias reads (`const d = data; d.total *= 2`).
 */
function writtenBindings(sc: JsScopes): ReadonlySet<JsBinding> {
  const cached = writtenCache.get(sc.program);
  if (cached) return cached;
  const out = new Set<JsBinding>();
  const mark = (t: AnyNode | null | undefined) => {
    if (!t) return;
    if (t.type === 'ObjectPattern') for (const p of t.properties) mark(p.type === 'Property' ? p.value : p.argument);
    else if (t.type === 'ArrayPattern') for (const e of t.elements) mark(e);
    else if (t.type === 'RestElement') mark(t.argument);
    else if (t.type === 'AssignmentPattern') mark(t.left);
    else {
      const r = rootName(t);
      const b = r?.type === 'Identifier' ? sc.resolve(r) : undefined;
      if (b) out.add(b);
    }
  };
  const visit = (n: AnyNode) => {
    if (n.type === 'AssignmentExpression') mark(n.left);
    else if (n.type === 'UpdateExpression') mark(n.argument);
    else if (n.type === 'UnaryExpression' && n.operator === 'delete') mark(n.argument);
    else if ((n.type === 'ForInStatement' || n.type === 'ForOfStatement') && n.left.type !== 'VariableDeclaration') mark(n.left);
    else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.object.type === 'Identifier' && n.callee.object.name === 'Object' && propName(n.callee) === 'assign' && n.arguments[0]) mark(n.arguments[0]);
    forEachChild(n, visit);
  };
  visit(sc.program);
  // a write through a `const` alias (or an object read out of one) writes what the alias reads
  for (let changed = true, rounds = 0; changed && rounds < 8; rounds++) {
    changed = false;
    for (const b of [...out]) {
      const d = b.decl;
      const init = b.kind === 'const' ? (b.init ?? (d.type === 'VariableDeclarator' ? d.init : undefined)) : undefined;
      const src = init ? rootName(init) : undefined;
      const sb = src?.type === 'Identifier' ? sc.resolve(src) : undefined;
      if (sb && !out.has(sb)) {
        out.add(sb);
        changed = true;
      }
    }
  }
  writtenCache.set(sc.program, out);
  return out;
}

/**
 * A field of the structured output of a schema-typed extraction, read as it came (`const { price } =
 * await page.extract("…", z.object({ price: z.number() }))`, `object.rating` of `generateObject({ schema })`,
 * through `const` aliases): the JSON number the extractor's model wrote from decimal text, which parses to
 * the double a literal of the same digits gives. With `key`, the field must be declared a number; a
 * declared string field counts when it is parsed (`parseFloat(data.total)`). No arithmetic on the way, and
 * nothing writes the result, the field or an alias anywhere (`data.total /= 100` makes it computed).
 */
function extractedField(n: AnyNode, sc: JsScopes, kinds: ReadonlySet<string>, depth = 0): boolean {
  if (depth > 6) return false;
  const declared = (call: AnyNode, key: string) => {
    const schema = outputSchema(call, sc);
    const kind = schema ? schemaDeclares(schema, key, sc) : undefined;
    return !!kind && kinds.has(kind);
  };
  if (n.type === 'ChainExpression') return extractedField(n.expression, sc, kinds, depth + 1);
  if (n.type === 'MemberExpression') {
    const key = propName(n);
    if (!key) return false;
    // the call's result or an object read out of it (`result.price`, `res.object.price`, `const o = res.object`)
    let o: AnyNode = n.object;
    for (let hops = 0; hops < 8; hops++) {
      if (o.type === 'MemberExpression') {
        o = o.object;
        continue;
      }
      if (o.type !== 'Identifier') return false;
      const b = sc.resolve(o);
      if (b?.kind !== 'const' || writtenBindings(sc).has(b)) return false;
      if (b.init) {
        if (declared(b.init, key)) return true;
        if (b.init.type !== 'MemberExpression' && b.init.type !== 'Identifier') return false;
        o = b.init;
        continue;
      }
      // `const { object } = await generateObject(…)`
      const d = b.decl;
      return d.type === 'VariableDeclarator' && d.id.type === 'ObjectPattern' && !!d.init && declared(d.init, key);
    }
    return false;
  }
  if (n.type === 'Identifier') {
    const b = sc.resolve(n);
    if (b?.kind !== 'const' || writtenBindings(sc).has(b)) return false;
    if (b.init) return extractedField(b.init, sc, kinds, depth + 1);
    // `const { price } = await x.extract(…)`: the destructured member named as the field
    const d = b.decl;
    if (d.type !== 'VariableDeclarator' || d.id.type !== 'ObjectPattern' || !d.init) return false;
    const prop = d.id.properties.find((p) => p.type === 'Property' && p.value.type === 'Identifier' && p.value.name === n.name);
    const key = prop?.type === 'Property' && !prop.computed && prop.key.type === 'Identifier' ? prop.key.name : undefined;
    return !!key && declared(d.init, key);
  }
  return false;
}

const NUMBER_KIND: ReadonlySet<string> = new Set(['number']);
const TEXT_KINDS: ReadonlySet<string> = new Set(['number', 'string']);

/** An extracted number, or `parseFloat`/`Number` of an extracted field (no arithmetic on the way). */
function extractedNumber(n: AnyNode, sc: JsScopes): boolean {
  if (extractedField(n, sc, NUMBER_KIND)) return true;
  if (n.type !== 'CallExpression' || n.arguments.length !== 1 || n.arguments[0]!.type === 'SpreadElement') return false;
  const c = n.callee;
  const parse = (c.type === 'Identifier' && (c.name === 'parseFloat' || c.name === 'Number') && !sc.resolve(c)) || (c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'Number' && propName(c) === 'parseFloat');
  return parse && extractedField(n.arguments[0]!, sc, TEXT_KINDS);
}

/** `===`/`==`/`!==`/`!=` between a computed value and a non-integer literal (`parseFloat(x) === 0.3`), or between
 *  float arithmetic and another non-literal value (`a / b === expected`). */
export function floatEquality(node: AnyNode, program: Program, text: string): FloatEquality | undefined {
  if (node.type !== 'BinaryExpression' || !EQ.has(node.operator)) return undefined;
  const sc = jsScopes(program);
  const l = node.left;
  const r = node.right;
  const lit = floatLiteral(l, sc) ?? floatLiteral(r, sc);
  if (lit) {
    const other = floatLiteral(l, sc) ? r : l;
    if (NUMERIC_LITERAL(other) || floatLiteral(other, sc)) return undefined;
    // a number an extractor's model wrote from decimal text, compared as it came: exact
    if (extractedNumber(other, sc)) return undefined;
    return { kind: 'literal', value: text.slice(lit.start, lit.end) };
  }
  if (NUMERIC_LITERAL(l) || NUMERIC_LITERAL(r)) return undefined;
  return computedFloat(l, sc) || computedFloat(r, sc) ? { kind: 'computed' } : undefined;
}
