/** Small control-flow facts over acorn ancestors. */
import type { AnyNode, CatchClause, Node } from 'acorn';
import { forEachChild, type JsFunction } from './nodes.js';

/** The innermost `try` whose block holds `node` and whose `catch` returns a constant verdict (`false`, `true`, `0`, `{ ... }`). */
export function swallowingCatch(node: Node, ancestors: readonly AnyNode[]): { catchStart: number; verdict: string } | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i]!;
    if (isJsFunction(a)) return undefined;
    if (a.type !== 'TryStatement' || !a.handler) continue;
    if (node.start < a.block.start || node.end > a.block.end) continue;
    for (const st of a.handler.body.body) {
      if (st.type !== 'ReturnStatement' || !st.argument) continue;
      const arg = st.argument;
      if (arg.type === 'Literal') return { catchStart: a.handler.start, verdict: String(arg.raw) };
      if (arg.type === 'ObjectExpression') return { catchStart: a.handler.start, verdict: '{ … }' };
    }
    return undefined;
  }
  return undefined;
}

/** Does the object a catch returns hold the caught error, or a value the catch computed from it
 *  (`error: err`, `message: err.message`, a local computed from it)? */
export function carriesCaught(handler: CatchClause, obj: AnyNode): boolean {
  const param = handler.param?.type === 'Identifier' ? handler.param.name : undefined;
  if (!param) return false;
  const derived = new Set([param]);
  for (const st of handler.body.body) {
    if (st.type !== 'VariableDeclaration') continue;
    for (const d of st.declarations) if (d.id.type === 'Identifier' && d.init && mentions(d.init, derived)) derived.add(d.id.name);
  }
  return obj.type === 'ObjectExpression' && obj.properties.some((p) => p.type === 'Property' && mentions(p.value, derived));
}

function mentions(n: AnyNode, names: ReadonlySet<string>): boolean {
  let hit = false;
  const rec = (k: AnyNode) => {
    if (hit) return;
    if (k.type === 'Identifier' && names.has(k.name)) { hit = true; return; }
    forEachChild(k, rec);
  };
  rec(n);
  return hit;
}

/** A function node (declaration, expression or arrow). */
export const isJsFunction = (n: Node | null | undefined): n is JsFunction =>
  !!n && (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression');

/** Visit `root` and its descendants in its own function body (nested functions are not entered; `root`
 *  itself may be a function). `visit` returning false skips a node's children; returning true stops the walk. */
export function eachOwnNode(root: AnyNode, visit: (n: AnyNode) => boolean | void): void {
  let stop = false;
  const rec = (n: AnyNode): void => {
    if (stop) return;
    if (n !== root && isJsFunction(n)) return;
    const r = visit(n);
    if (r === true) { stop = true; return; }
    if (r === false) return;
    forEachChild(n, rec);
  };
  rec(root);
}

/** The first node in `root`'s own body (nested functions excluded) that satisfies `pred`. */
export function findOwn<T extends AnyNode>(root: AnyNode, pred: (n: AnyNode) => n is T): T | undefined;
export function findOwn(root: AnyNode, pred: (n: AnyNode) => boolean): AnyNode | undefined;
export function findOwn(root: AnyNode, pred: (n: AnyNode) => boolean): AnyNode | undefined {
  let hit: AnyNode | undefined;
  eachOwnNode(root, (n) => {
    if (pred(n)) { hit = n; return true; }
    return undefined;
  });
  return hit;
}
