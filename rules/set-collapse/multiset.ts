/**
 * Matching without consuming (set-collapse `anyMatch`, Python and JS/TS): every element of one collection
 * is looked up among *all* elements of another — `all(any(cmp(x, y) for y in ys) for x in xs)`,
 * `all(x in ys for x in xs)`, `for x in xs: if x not in ys: return False`, `xs.every(x => ys.some(…))`,
 * `xs.every(x => ys.includes(x))` — while the lengths were compared for equality, so the code reads as
 * an exact, order-free comparison. It is not one: a match is never used up, so `xs = [A, A]` passes
 * against `ys = [A, B]` of the same length. Silent when the iterated side cannot repeat (a set, dict
 * keys, `range`, a written-out list of distinct items).
 */
import type { AnyNode, Function as JsFunction } from 'acorn';
import { type PyNode, field, named, unparen, comparisonOperators, walk } from '../../src/lang/python/tree.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { callOf, isSetValued } from '../../src/lang/python/facts.js';
import { forEachChild, propName } from '../../src/lang/js/nodes.js';

export interface AnyMatch {
  /** The iterated collection (each of its elements is looked up). */
  each: string;
  /** The collection searched for each element. */
  among: string;
  /** The node to report at. */
  at: { start: number; end: number };
}

const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `len(x) == len(y)` (in an `and` chain around `n`) or `len(x) != len(y)` earlier in the function. */
function pyLengthsCompared(a: PythonAnalysis, n: PyNode, x: string, y: string): boolean {
  const either = `(${esc(x)}|${esc(y)})`;
  // the two lengths themselves, not a sum (`len(after) != len(before) + len(added)` compares other counts)
  const lens = (op: string) => new RegExp(`(?<![-+*/%]\\s*)len\\(\\s*${either}\\s*\\)\\s*${op}\\s*len\\(\\s*${either}\\s*\\)(?!\\s*[-+*/%])`);
  const fn = a.functionAt(n);
  const before = a.text.slice(fn?.node.start ?? 0, n.start);
  if (before.includes('len')) {
    const m = lens('!=').exec(before);
    if (m && m[1] !== m[2]) return true;
  }
  for (let p = n.parent; p && (p.type === 'boolean_operator' || p.type === 'parenthesized_expression'); p = p.parent) {
    const t = a.src(p);
    if (!t.includes('len')) continue;
    const k = lens('==').exec(t);
    if (k && k[1] !== k[2]) return true;
  }
  return false;
}

const mentions = (n: PyNode, name: string): boolean => {
  let hit = false;
  walk(n, (k) => {
    if (hit) return false;
    if (k.type === 'identifier' && k.text === name) hit = true;
    return !hit;
  });
  return hit;
};

/** The iterated side cannot hold a repeated element: a set, dict keys, `range`, `os.listdir`, a dict,
 *  or a written-out list/tuple of distinct literals. */
export function pyUnique(a: PythonAnalysis, x: PyNode): boolean {
  if (isSetValued(a, x)) return true;
  for (const s of [x, ...a.valueSources(x)]) {
    const u = unparen(s);
    if (u.type === 'set' || u.type === 'set_comprehension' || u.type === 'dictionary' || u.type === 'dictionary_comprehension') return true;
    if (u.type === 'list' || u.type === 'tuple') {
      const items = named(u);
      if (items.every((i) => i.type === 'string' || i.type === 'integer') && new Set(items.map((i) => i.text)).size === items.length) return true;
    }
    const c = callOf(a, u);
    if (c && (c.qualified === 'range' || c.method === 'keys' || c.qualified === 'dict' || c.qualified === 'os.listdir')) return true;
  }
  return false;
}

/** The one `for … in …` clause of a generator/comprehension with no `if` filter: [loop var, iterable]. */
function singleClause(g: PyNode): [string, PyNode] | undefined {
  const kids = named(g);
  const clauses = kids.filter((k) => k.type === 'for_in_clause');
  if (clauses.length !== 1 || kids.some((k) => k.type === 'if_clause')) return undefined;
  const left = field(clauses[0]!, 'left');
  const right = field(clauses[0]!, 'right');
  if (left?.type !== 'identifier' || !right) return undefined;
  return [left.text, right];
}

/** The collection `body` searches for `x`: `any(… x … for y in ys)` or `x in ys`. */
function pyLookup(a: PythonAnalysis, body: PyNode, x: string): PyNode | undefined {
  const b = unparen(body);
  if (b.type === 'comparison_operator') {
    const ops = comparisonOperators(b);
    const [l, r] = named(b);
    if (ops.length === 1 && ops[0] === 'in' && l && r && unparen(l).type === 'identifier' && unparen(l).text === x && !mentions(r, x)) return r;
    return undefined;
  }
  const c = callOf(a, b);
  if (!c || c.qualified !== 'any' || c.args.length !== 1) return undefined;
  const g = unparen(c.args[0]!);
  if (g.type !== 'generator_expression' && g.type !== 'list_comprehension') return undefined;
  const clause = singleClause(g);
  const inner = field(g, 'body');
  if (!clause || !inner || mentions(clause[1], x) || !mentions(inner, x) || !mentions(inner, clause[0])) return undefined;
  return clause[1];
}

/** `not <lookup>` / `x not in ys`: the negated lookup of `x` in a loop's `if`. */
function pyNegatedLookup(a: PythonAnalysis, cond: PyNode, x: string): PyNode | undefined {
  const c = unparen(cond);
  if (c.type === 'not_operator') {
    const arg = field(c, 'argument');
    return arg ? pyLookup(a, arg, x) : undefined;
  }
  if (c.type === 'comparison_operator') {
    const ops = comparisonOperators(c);
    const [l, r] = named(c);
    if (ops.length === 1 && ops[0] === 'not in' && l && r && unparen(l).type === 'identifier' && unparen(l).text === x && !mentions(r, x)) return r;
  }
  return undefined;
}

/** A falsy verdict: `return False`, `return 0`, `return 0.0`, `return None`. */
const falsyReturn = (n: PyNode): boolean => {
  if (n.type !== 'return_statement') return false;
  const v = named(n)[0];
  return !!v && /^(False|0|0\.0|None)$/.test(v.text);
};

function pyReport(a: PythonAnalysis, at: PyNode, xs: PyNode, ys: PyNode): AnyMatch | undefined {
  const x = a.src(unparen(xs));
  const y = a.src(unparen(ys));
  if (x === y || pyUnique(a, xs)) return undefined;
  if (!pyLengthsCompared(a, at, x, y)) return undefined;
  return { each: x, among: y, at };
}

/** `all(<lookup of x> for x in xs)` with the lengths of xs and ys compared. */
export function pyAllAny(a: PythonAnalysis, node: PyNode): AnyMatch | undefined {
  const c = callOf(a, node);
  if (!c || c.qualified !== 'all' || c.args.length !== 1) return undefined;
  const g = unparen(c.args[0]!);
  if (g.type !== 'generator_expression' && g.type !== 'list_comprehension') return undefined;
  const clause = singleClause(g);
  const body = field(g, 'body');
  if (!clause || !body) return undefined;
  const ys = pyLookup(a, body, clause[0]);
  return ys ? pyReport(a, node, clause[1], ys) : undefined;
}

/** `for x in xs: if <x not found in ys>: return False` with the lengths of xs and ys compared. */
export function pyLoopLookup(a: PythonAnalysis, node: PyNode): AnyMatch | undefined {
  const left = field(node, 'left');
  const xs = field(node, 'right');
  const body = field(node, 'body');
  if (left?.type !== 'identifier' || !xs || !body) return undefined;
  for (const s of named(body)) {
    if (s.type !== 'if_statement') continue;
    const cond = field(s, 'condition');
    const then = field(s, 'consequence');
    if (!cond || !then || named(s).some((k) => k.type === 'else_clause' || k.type === 'elif_clause')) continue;
    const ys = pyNegatedLookup(a, cond, left.text);
    if (!ys || !named(then).some(falsyReturn)) continue;
    // the matched element is removed from ys (`ys.remove(x)`): matches are consumed
    if (new RegExp(`${esc(a.src(ys))}\\s*\\.\\s*(remove|pop)\\s*\\(`).test(a.src(body))) return undefined;
    return pyReport(a, node, xs, ys);
  }
  return undefined;
}

// ------------------------------------------------------------------ JavaScript / TypeScript

type Fn = JsFunction & AnyNode;
const isFn = (n: AnyNode | null | undefined): n is Fn => !!n && (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration');

/** The expression a callback returns: its expression body, or its block's single `return`. */
function returned(f: Fn): AnyNode | undefined {
  if (f.body.type !== 'BlockStatement') return f.body;
  const b = f.body.body;
  return b.length === 1 && b[0]!.type === 'ReturnStatement' ? (b[0].argument ?? undefined) : undefined;
}

function jsMentions(n: AnyNode, name: string): boolean {
  let hit = false;
  const visit = (k: AnyNode): void => {
    if (hit) return;
    if (k.type === 'Identifier' && k.name === name) hit = true;
    else forEachChild(k, visit);
  };
  visit(n);
  return hit;
}

const isMinusOne = (n: AnyNode): boolean => n.type === 'UnaryExpression' && n.operator === '-' && n.argument.type === 'Literal' && n.argument.value === 1;

/** The array a lookup call searches for `x` (the searched array not depending on x): `ys.includes(x)`,
 *  `ys.indexOf(x)`, `ys.some(y => … x … y …)`, `ys.find(…)`, `ys.findIndex(…)`. */
function lookupCall(e: AnyNode, x: string, methods: readonly string[]): AnyNode | undefined {
  if (e.type !== 'CallExpression' || e.callee.type !== 'MemberExpression') return undefined;
  const m = propName(e.callee);
  const ys = e.callee.object;
  if (!m || !methods.includes(m) || jsMentions(ys, x)) return undefined;
  if (m === 'includes' || m === 'indexOf') {
    const a = e.arguments[0];
    return e.arguments.length === 1 && a?.type === 'Identifier' && a.name === x ? ys : undefined;
  }
  const cb = e.arguments[0];
  if (!isFn(cb) || cb.params[0]?.type !== 'Identifier') return undefined;
  const r = returned(cb);
  return r && jsMentions(r, x) && jsMentions(r, cb.params[0].name) ? ys : undefined;
}

const isZero = (n: AnyNode): boolean => n.type === 'Literal' && n.value === 0;

/** The array `e` finds `x` in: `ys.some(…)`, `ys.includes(x)`, `ys.find(…)`, `ys.indexOf(x) !== -1`, `ys.findIndex(…) >= 0`, `!!…`. */
function jsLookup(e: AnyNode | undefined, x: string): AnyNode | undefined {
  if (!e) return undefined;
  if (e.type === 'UnaryExpression' && e.operator === '!' && e.argument.type === 'UnaryExpression' && e.argument.operator === '!') return jsLookup(e.argument.argument, x);
  if (e.type === 'BinaryExpression') {
    const found = ((e.operator === '!==' || e.operator === '!=' || e.operator === '>') && isMinusOne(e.right)) || (e.operator === '>=' && isZero(e.right));
    return found ? lookupCall(e.left, x, ['indexOf', 'findIndex']) : undefined;
  }
  return lookupCall(e, x, ['includes', 'some', 'find']);
}

/** `!<lookup>`: the negated lookup in a loop's `if`, also `ys.indexOf(x) === -1` / `< 0`. */
function jsNegatedLookup(e: AnyNode, x: string): AnyNode | undefined {
  if (e.type === 'UnaryExpression' && e.operator === '!') return jsLookup(e.argument, x);
  if (e.type === 'BinaryExpression') {
    const missing = ((e.operator === '===' || e.operator === '==') && isMinusOne(e.right)) || (e.operator === '<' && isZero(e.right));
    return missing ? lookupCall(e.left, x, ['indexOf', 'findIndex']) : undefined;
  }
  return undefined;
}

/** Unique by construction: `Object.keys(…)`, `[...m.keys()]`, `[...new Set(…)]`, `Array.from(new Set(…))`. */
function jsUnique(n: AnyNode, text: string): boolean {
  const t = text.slice(n.start, n.end);
  return /^(Object\.keys\(|\[\.\.\.new Set\(|Array\.from\(new Set\()/.test(t) || /\.keys\(\)\]?\)?$/.test(t);
}

/** `a.length === b.length` in an enclosing `&&` chain, or `a.length !== b.length` earlier in the function. */
function jsLengthsCompared(node: AnyNode, ancestors: readonly AnyNode[], text: string, x: string, y: string): boolean {
  const either = `(${esc(x)}|${esc(y)})`;
  const lens = (op: string) => new RegExp(`(?<![-+*/%]\\s*)${either}\\s*\\.\\s*length\\s*${op}\\s*${either}\\s*\\.\\s*length(?!\\s*[-+*/%])`);
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const p = ancestors[i]!;
    if (p === node) continue;
    if (p.type === 'LogicalExpression' && p.operator === '&&') {
      const k = lens('===?').exec(text.slice(p.start, p.end));
      if (k && k[1] !== k[2]) return true;
      continue;
    }
    if (isFn(p)) {
      const m = lens('!==?').exec(text.slice(p.start, node.start));
      return !!m && m[1] !== m[2];
    }
  }
  const m = lens('!==?').exec(text.slice(0, node.start));
  return !!m && m[1] !== m[2];
}

function jsReport(node: AnyNode, xs: AnyNode, ys: AnyNode, ancestors: readonly AnyNode[], text: string): AnyMatch | undefined {
  const x = text.slice(xs.start, xs.end);
  const y = text.slice(ys.start, ys.end);
  if (x === y || jsUnique(xs, text)) return undefined;
  if (xs.type === 'ArrayExpression' && xs.elements.every((e) => e?.type === 'Literal')) {
    const vals = xs.elements.map((e) => String((e as { value: unknown }).value));
    if (new Set(vals).size === vals.length) return undefined;
  }
  if (!jsLengthsCompared(node, ancestors, text, x, y)) return undefined;
  return { each: x, among: y, at: node };
}

/** `xs.every(x => <lookup of x in ys>)` with the lengths compared. */
export function jsEveryLookup(node: AnyNode, ancestors: readonly AnyNode[], text: string): AnyMatch | undefined {
  if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression' || propName(node.callee) !== 'every') return undefined;
  const cb = node.arguments[0];
  if (!isFn(cb) || cb.params[0]?.type !== 'Identifier') return undefined;
  const ys = jsLookup(returned(cb), cb.params[0].name);
  return ys ? jsReport(node, node.callee.object, ys, ancestors, text) : undefined;
}

/** `for (const x of xs) { if (!<lookup of x in ys>) return false; }` with the lengths compared. */
export function jsLoopLookup(node: AnyNode, ancestors: readonly AnyNode[], text: string): AnyMatch | undefined {
  if (node.type !== 'ForOfStatement') return undefined;
  const d = node.left.type === 'VariableDeclaration' ? node.left.declarations[0]?.id : node.left;
  if (d?.type !== 'Identifier') return undefined;
  const stmts = node.body.type === 'BlockStatement' ? node.body.body : [node.body];
  for (const s of stmts) {
    if (s.type !== 'IfStatement' || s.alternate) continue;
    const ys = jsNegatedLookup(s.test, d.name);
    if (!ys) continue;
    const then = s.consequent.type === 'BlockStatement' ? s.consequent.body : [s.consequent];
    const fails = then.some((t) => t.type === 'ReturnStatement' && t.argument && /^(false|0|null)$/.test(text.slice(t.argument.start, t.argument.end)));
    if (!fails) continue;
    const yText = text.slice(ys.start, ys.end);
    if (new RegExp(`${esc(yText)}\\s*\\.\\s*splice\\s*\\(`).test(text.slice(node.start, node.end))) return undefined;
    return jsReport(node, node.right, ys, ancestors, text);
  }
  return undefined;
}

