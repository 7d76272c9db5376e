/**
 * Small typed helpers over acorn's ESTree union (`AnyNode`): narrowing on `type` gives each node its
 * own fields, so a field read on a node type that never has it is a type error, not an `undefined`.
 */
import type { AnyNode, AnonymousFunctionDeclaration, ArrowFunctionExpression, FunctionDeclaration, FunctionExpression, Program } from 'acorn';

/** A function node: declaration (named, or the anonymous one of `export default function`), expression or arrow. */
export type JsFunction = FunctionDeclaration | AnonymousFunctionDeclaration | FunctionExpression | ArrowFunctionExpression;

/** The name of a non-computed member (`a.name`), else undefined (`a[x]`, `a.#private`, not a member). */
export const propName = (m: AnyNode): string | undefined => (m.type === 'MemberExpression' && !m.computed && m.property.type === 'Identifier' ? m.property.name : undefined);

/** The Program a visitor's ancestors start from (undefined for the Program node itself). */
export const programOf = (ancestors: readonly AnyNode[]): Program | undefined => {
  const root = ancestors[0];
  return root?.type === 'Program' ? root : undefined;
};

/** Is `v` an ESTree node (an object with a string `type`)? Fields such as `loc`, `regex` or a
 *  template element's `value` are objects without one. */
const isNode = (v: unknown): v is AnyNode => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';

/** Each child node of `n` with the field that holds it, in field order (array fields element by
 *  element; holes and non-node values skipped). The generic walk every untyped traversal shares. */
export function forEachChild(n: AnyNode, f: (child: AnyNode, key: string) => void): void {
  const fields: Array<[string, unknown]> = Object.entries(n);
  for (const [key, v] of fields) {
    if (key === 'loc') continue;
    if (Array.isArray(v)) {
      for (const c of v as unknown[]) if (isNode(c)) f(c, key);
    } else if (isNode(v)) f(v, key);
  }
}

const parentMaps = new WeakMap<AnyNode, Map<AnyNode, AnyNode>>();

/** Each node under `root` to its parent, built once per root (a program's tree does not change). */
export function parentMap(root: AnyNode): ReadonlyMap<AnyNode, AnyNode> {
  let m = parentMaps.get(root);
  if (m) return m;
  const map = new Map<AnyNode, AnyNode>();
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    forEachChild(n, (k) => {
      map.set(k, n);
      stack.push(k);
    });
  }
  parentMaps.set(root, (m = map));
  return m;
}

/** An expression without the wrappers that do not change what it reads: `await`, optional chaining,
 *  parentheses and a TypeScript `as` cast. */
export function unwrapExpr(e: AnyNode): AnyNode {
  let x = e;
  for (;;) {
    if (x.type === 'AwaitExpression') x = x.argument;
    else if (x.type === 'ChainExpression') x = x.expression;
    else if (x.type === 'ParenthesizedExpression') x = x.expression;
    else if (x.type === ('TSAsExpression' as string)) x = (x as unknown as { expression: AnyNode }).expression;
    else return x;
  }
}
