/** Small control-flow facts over acorn ancestors. */
import type { Node } from 'acorn';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ESTree nodes carry per-type fields that acorn's Node does not declare
type AnyNode = Node & Record<string, any>;

/** The innermost `try` whose block holds `node` and whose `catch` returns a constant verdict (`false`, `true`, `0`, `{ ... }`). */
export function swallowingCatch(node: Node, ancestors: readonly Node[]): { catchStart: number; verdict: string } | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i] as AnyNode;
    if (a.type === 'FunctionDeclaration' || a.type === 'FunctionExpression' || a.type === 'ArrowFunctionExpression') return undefined;
    if (a.type !== 'TryStatement' || !a.handler) continue;
    if (node.start < a.block.start || node.end > a.block.end) continue;
    const body = a.handler.body.body as AnyNode[];
    for (const st of body) {
      if (st.type !== 'ReturnStatement' || !st.argument) continue;
      const arg = st.argument as AnyNode;
      if (arg.type === 'Literal') return { catchStart: a.handler.start, verdict: String(arg.raw) };
      if (arg.type === 'ObjectExpression') return { catchStart: a.handler.start, verdict: '{ … }' };
    }
    return undefined;
  }
  return undefined;
}

/** A function node (declaration, expression or arrow). */
export const isJsFunction = (n: Node | null | undefined): boolean =>
  !!n && (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression');

/** Visit `root` and its descendants in its own function body (nested functions are not entered; `root`
 *  itself may be a function). `visit` returning false skips a node's children; returning true stops the walk. */
export function eachOwnNode(root: Node, visit: (n: AnyNode) => boolean | void): void {
  let stop = false;
  const rec = (n: AnyNode): void => {
    if (stop || !n || typeof n.type !== 'string') return;
    if (n !== root && isJsFunction(n)) return;
    const r = visit(n);
    if (r === true) { stop = true; return; }
    if (r === false) return;
    for (const k of Object.keys(n)) {
      if (k === 'loc' || k === 'start' || k === 'end' || k === 'range') continue;
      const v = n[k];
      if (Array.isArray(v)) for (const c of v) { if (c && typeof c === 'object' && typeof c.type === 'string') rec(c); }
      else if (v && typeof v === 'object' && typeof v.type === 'string') rec(v);
    }
  };
  rec(root as AnyNode);
}

/** The first node in `root`'s own body (nested functions excluded) that satisfies `pred`. */
export function findOwn(root: Node, pred: (n: AnyNode) => boolean): AnyNode | undefined {
  let hit: AnyNode | undefined;
  eachOwnNode(root, (n) => {
    if (pred(n)) { hit = n; return true; }
    return undefined;
  });
  return hit;
}
