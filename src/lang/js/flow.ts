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
