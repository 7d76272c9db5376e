/** JavaScript/TypeScript loop facts for control-flow-slip: does a loop body return on every path? */
import type { AnyNode, ReturnStatement, ThrowStatement } from 'acorn';
import { eachOwnNode } from '../../src/lang/js/index.js';

/** Every path through the statement ends in `return` or `throw`. */
export function jsAlwaysExits(s: AnyNode | null | undefined): boolean {
  if (!s) return false;
  switch (s.type) {
    case 'ReturnStatement':
    case 'ThrowStatement':
      return true;
    case 'BlockStatement':
      return jsAlwaysExits(s.body[s.body.length - 1]);
    case 'IfStatement':
      return !!s.alternate && jsAlwaysExits(s.consequent) && jsAlwaysExits(s.alternate);
    default:
      return false;
  }
}

/** The loop body has a `break` or `continue` of its own (not one of an inner loop or switch). */
export function jsLoopJumps(body: AnyNode): boolean {
  let hit = false;
  const visit = (n: AnyNode, inner: boolean): void => {
    eachOwnNode(n, (k) => {
      if (k === n) return undefined;
      if (k.type === 'BreakStatement' || k.type === 'ContinueStatement') {
        if (!inner || k.label) hit = true;
        return false;
      }
      if (/^(For|ForOf|ForIn|While|DoWhile)Statement$/.test(k.type) || k.type === 'SwitchStatement') {
        visit(k, true);
        return false;
      }
      return undefined;
    });
  };
  visit(body, false);
  return hit;
}

/** The `return` and `throw` statements of the body (nested functions excluded). */
export function jsExits(body: AnyNode): Array<ReturnStatement | ThrowStatement> {
  const out: Array<ReturnStatement | ThrowStatement> = [];
  eachOwnNode(body, (k) => {
    if (k.type === 'ReturnStatement' || k.type === 'ThrowStatement') out.push(k);
  });
  return out;
}

/** Names a loop declares or assigns in its head (`for (const [k, v] of …)`, `for (let i = 0; …)`). */
export function jsLoopNames(head: AnyNode): Set<string> {
  const out = new Set<string>();
  const add = (p: AnyNode | null | undefined): void => {
    if (!p) return;
    if (p.type === 'Identifier') out.add(p.name);
    else if (p.type === 'VariableDeclaration') for (const d of p.declarations) add(d.id);
    else if (p.type === 'ArrayPattern') for (const e of p.elements) add(e);
    else if (p.type === 'ObjectPattern') for (const pr of p.properties) add(pr.type === 'Property' ? pr.value : pr.argument);
    else if (p.type === 'AssignmentPattern') add(p.left);
    else if (p.type === 'RestElement') add(p.argument);
  };
  add(head);
  return out;
}

/** An `if` test or conditional of the body reads one of the names. */
export function jsReadsAny(body: AnyNode, names: ReadonlySet<string>): boolean {
  let hit = false;
  eachOwnNode(body, (k) => {
    if (k.type !== 'IfStatement' && k.type !== 'ConditionalExpression') return undefined;
    eachOwnNode(k.test, (x) => {
      if (x.type === 'Identifier' && names.has(x.name)) hit = true;
      return hit || undefined;
    });
    return hit || undefined;
  });
  return hit;
}
