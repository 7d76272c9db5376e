/**
 * Definite assignment and reaching definitions, per execution unit (the module
 * body, each function body, each lambda body; class bodies and comprehensions
 * run inline in the unit that executes them).
 *
 * The lattice is "set of reaching definitions" per local name, with one
 * synthetic UNBOUND definition per name: a read whose reaching set is exactly
 * {UNBOUND} is unbound on every path, one that contains UNBOUND and others is
 * possibly unbound. Narrowing (`x is None`, `x is not None`, truthiness, `not`,
 * `and`/`or`, `assert`) adds synthetic `narrow` definitions so that constant
 * propagation knows, e.g., that `raw_key` is still None on a path.
 *
 * The parts, in `flow/`: `state.ts` (the lattice, the result being filled, the
 * executing unit's context: `FlowState`), `expressions.ts` (expressions,
 * comprehensions, assignment targets, conditions), `statements.ts` (statements,
 * branches, loops, try/with/match), `facts.ts` (path correlation over pure
 * atoms), `loop-facts.ts` (loop indexes, integer bounds, non-empty iterables),
 * `patterns.ts` (match patterns), `raises.ts` (statements that cannot raise),
 * `syntax.ts` (literals, call shapes, handler types, constant kinds).
 */
import { type PyNode, field, named } from './tree.js';
import type { Scope } from './scopes.js';
import { type FlowEnv, type FlowResult, type State, FlowState } from './flow/state.js';
import { evalExpr } from './flow/expressions.js';
import { execBlock } from './flow/statements.js';

export type { Def, FlowEnv, FlowResult } from './flow/state.js';
export { handlerTypes, constKind } from './flow/syntax.js';

export function runFlow(env: FlowEnv): FlowResult {
  const cx = new FlowState(env);
  for (const sc of env.table.scopes) if (sc.kind === 'module' || sc.kind === 'function' || sc.kind === 'lambda') runUnit(cx, sc);
  return cx.res;
}

/** Run one execution unit: the module body, or a function or lambda body from its parameters. */
function runUnit(cx: FlowState, scope: Scope): void {
  cx.beginUnit(scope);
  let s: State = new Map();
  if (scope.kind === 'module') {
    cx.res.moduleEnd = execBlock(cx, scope.node, s);
    return;
  }
  const p = field(scope.node, 'parameters');
  if (p) {
    for (const c of named(p)) {
      let id: PyNode | undefined = c.type === 'identifier' ? c : field(c, 'name');
      if (!id) {
        const k = named(c).find((x) => x.type === 'identifier' || x.type === 'list_splat_pattern' || x.type === 'dictionary_splat_pattern');
        id = k && k.type !== 'identifier' ? named(k)[0] : k;
      }
      if (id) s = cx.bindId(s, id, 'param');
    }
  }
  const body = field(scope.node, 'body');
  if (!body) return;
  if (scope.kind === 'lambda') evalExpr(cx, body, s);
  else execBlock(cx, body, s);
}
