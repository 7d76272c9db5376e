/**
 * The JavaScript/TypeScript layer of vacuous-verdict: a verdict that is, by itself, the emptiness of what
 * a tool or agent call returned — `_success: observations.length === 0`, `return !found.length` — where
 * `observations` is `await v3.observe(…)`, `await page.$$(…)`, `await agent.extract(…)`. A call that
 * failed quietly, a page that did not load, or a model that returned nothing yields the same empty
 * result, so the check passes without anything having been looked at. Not when the array is one the
 * verifier fills itself (`errors.push(…)`, `checks.filter(…)`: its own checks ran), nor when the
 * emptiness is one part of a larger verdict (`observations.length === 0 && title === "Vanta"`).
 */
import type { AnyNode, Program } from 'acorn';
import { isJsFunction, jsScopes, propName, type JsFunction } from '../../src/lang/js/index.js';
import type { VerdictShapes } from '../../src/suites/verdict-shape.js';

/** Methods of built-in values (arrays, strings, objects, promises): their result derives from data the
 *  verifier already holds, it is no tool's answer. */
const DERIVING = new Set([
  'filter', 'map', 'flatMap', 'flat', 'slice', 'concat', 'reduce', 'sort', 'toSorted', 'reverse', 'splice', 'keys', 'values', 'entries',
  'split', 'match', 'matchAll', 'trim', 'from', 'of', 'parse', 'stringify', 'all', 'allSettled', 'race', 'any', 'assign', 'find', 'findLast',
]);

export interface EmptyVerdict {
  /** The emptiness test. */
  test: AnyNode;
  /** The array whose emptiness decides. */
  array: string;
  /** The call that produced it. */
  call: string;
}

type Ident = AnyNode & { type: 'Identifier'; name: string };

/** `X.length === 0` (either side), `== 0`, `< 1`, `<= 0`, `!X.length`: the `X` tested. */
function emptinessOf(n: AnyNode): AnyNode | undefined {
  const len = (e: AnyNode): AnyNode | undefined => (e.type === 'MemberExpression' && propName(e) === 'length' ? e.object : undefined);
  const lit = (e: AnyNode, v: number) => e.type === 'Literal' && e.value === v;
  if (n.type === 'UnaryExpression' && n.operator === '!') return len(n.argument);
  if (n.type !== 'BinaryExpression') return undefined;
  if (n.operator === '===' || n.operator === '==') {
    if (lit(n.right, 0)) return len(n.left);
    if (lit(n.left, 0)) return len(n.right);
  }
  if (n.operator === '<' && lit(n.right, 1)) return len(n.left);
  if (n.operator === '<=' && lit(n.right, 0)) return len(n.left);
  return undefined;
}

/** The tool call an array is the (awaited) result of, through `const x = await recv.method(…)` and
 *  member reads of it (`res.items`). */
function toolCall(x: AnyNode, sc: ReturnType<typeof jsScopes>, fnText: string): AnyNode | undefined {
  let root = x;
  while (root.type === 'MemberExpression' && !root.computed) root = root.object;
  if (root.type !== 'Identifier') return undefined;
  const b = sc.resolve(root as Ident);
  if (b?.kind !== 'const' || !b.init) return undefined;
  const name = (root as Ident).name;
  // an array the verifier fills itself is its own list (`errors.push(…)`)
  if (new RegExp(`\\b${name}\\s*\\.\\s*(push|unshift|splice)\\s*\\(`).test(fnText)) return undefined;
  let init: AnyNode = b.init;
  while (init.type === 'AwaitExpression' || init.type === 'ChainExpression') init = init.type === 'AwaitExpression' ? init.argument : init.expression;
  if (init.type !== 'CallExpression' || init.callee.type !== 'MemberExpression') return undefined;
  const m = propName(init.callee);
  const recv = init.callee.object;
  if (!m || DERIVING.has(m) || recv.type === 'ThisExpression' || recv.type === 'ArrayExpression' || recv.type === 'Literal') return undefined;
  // Object.keys(…), JSON.parse(…), Promise.all(…), Array.from(…): built-ins
  if (recv.type === 'Identifier' && ['Object', 'JSON', 'Promise', 'Array', 'Math', 'Reflect', 'String', 'Number'].includes((recv as Ident).name) && !sc.resolve(recv as Ident)) return undefined;
  return init;
}

/** The emptiness test is the whole verdict: through `!`/parentheses only, the value of a verdict key of a
 *  returned object, the returned value itself, or a `const` that is one of these. Returns whether an empty
 *  array passes, and the enclosing function. */
function decides(test: AnyNode, ancestors: readonly AnyNode[], shapes: VerdictShapes): { pass: boolean; fn: JsFunction } | undefined {
  let positive = true;
  let n = test;
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const p = ancestors[i]!;
    if (p === n) continue;
    const fn = [...ancestors.slice(0, i)].reverse().find((x) => isJsFunction(x)) as JsFunction | undefined;
    switch (p.type) {
      case 'UnaryExpression':
        if (p.operator !== '!') return undefined;
        positive = !positive;
        n = p;
        continue;
      case 'ParenthesizedExpression':
      case 'ChainExpression':
        n = p;
        continue;
      case 'Property': {
        const k = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : '';
        const obj = ancestors[i - 1];
        const holder = ancestors[i - 2];
        if (p.value !== n || obj?.type !== 'ObjectExpression' || !shapes.keys.has(k.toLowerCase())) return undefined;
        const returned = holder?.type === 'ReturnStatement' || (holder && isJsFunction(holder) && (holder as JsFunction).body === obj);
        return returned && fn ? { pass: positive, fn } : undefined;
      }
      case 'ReturnStatement':
        return fn ? { pass: positive, fn } : undefined;
      case 'ArrowFunctionExpression':
        return p.body === n ? { pass: positive, fn: p } : undefined;
      default:
        return undefined;
    }
  }
  return undefined;
}

/** A local holding the test (`const ok = xs.length === 0`) whose only use is a verdict key's value or the returned value. */
function viaLocal(test: AnyNode, ancestors: readonly AnyNode[], shapes: VerdictShapes, sc: ReturnType<typeof jsScopes>): { pass: boolean; fn: JsFunction } | undefined {
  let positive = true;
  let n = test;
  let i = ancestors.length - 1;
  for (; i >= 0; i--) {
    const p = ancestors[i]!;
    if (p === n) continue;
    if (p.type === 'UnaryExpression' && p.operator === '!') { positive = !positive; n = p; continue; }
    if (p.type === 'ParenthesizedExpression') { n = p; continue; }
    break;
  }
  const decl = ancestors[i];
  if (decl?.type !== 'VariableDeclarator' || decl.init !== n || decl.id.type !== 'Identifier') return undefined;
  const fn = [...ancestors.slice(0, i)].reverse().find((x) => isJsFunction(x)) as JsFunction | undefined;
  if (!fn) return undefined;
  const name = decl.id.name;
  const uses: { node: AnyNode; path: AnyNode[] }[] = [];
  const visit = (k: AnyNode, path: AnyNode[]): void => {
    if (k.type === 'Identifier' && k.name === name && k !== decl.id) {
      const b = sc.resolve(k as Ident);
      if (b?.kind === 'const' && b.init === decl.init) uses.push({ node: k, path });
      return;
    }
    for (const key of Object.keys(k)) {
      if (key === 'parent') continue;
      const v = (k as unknown as Record<string, unknown>)[key];
      const kids = Array.isArray(v) ? v : [v];
      for (const c of kids) if (c && typeof c === 'object' && typeof (c as AnyNode).type === 'string') visit(c as AnyNode, [...path, k]);
    }
  };
  visit(fn.body as AnyNode, [...ancestors.slice(0, ancestors.indexOf(fn as AnyNode) + 1)]);
  if (uses.length !== 1) return undefined;
  const d = decides(uses[0]!.node, uses[0]!.path, shapes);
  return d ? { pass: d.pass === positive, fn: d.fn } : undefined;
}

export function jsEmptyVerdict(
  node: AnyNode,
  ancestors: readonly AnyNode[],
  program: Program,
  text: string,
  shapes: VerdictShapes,
  onPath: (fn: JsFunction) => boolean,
): EmptyVerdict | undefined {
  const x = emptinessOf(node);
  if (!x) return undefined;
  const sc = jsScopes(program);
  const d = decides(node, ancestors, shapes) ?? viaLocal(node, ancestors, shapes, sc);
  if (!d || !d.pass || !onPath(d.fn)) return undefined;
  const fnNode = d.fn as AnyNode;
  const call = toolCall(x, sc, text.slice(fnNode.start, fnNode.end));
  if (!call) return undefined;
  const short = (s: string) => (s.replace(/\s+/g, ' ').length > 60 ? `${s.replace(/\s+/g, ' ').slice(0, 57)}...` : s.replace(/\s+/g, ' '));
  return { test: node, array: text.slice(x.start, x.end), call: short(text.slice(call.start, call.end)) };
}
