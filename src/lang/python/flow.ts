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
import { type FlowEnv, type FlowResult, type State, FlowState, emptyState, withFlowBudget } from './flow/state.js';
import { evalExpr } from './flow/expressions.js';
import { execBlock } from './flow/statements.js';

export type { Def, FlowEnv, FlowResult } from './flow/state.js';
export { handlerTypes, constKind } from './flow/syntax.js';

/**
 * A previous result of the same module before an edit, and which units of the new table may take their
 * entries from it: the caller (`Analysis.flowReuse`) answers for units whose subtree, scope id and every
 * input of their run outside it (module and class bindings, imports, which functions never return,
 * module-level text) it proved unchanged.
 */
export interface FlowReuse {
  prev: FlowResult;
  reusable(scope: Scope): boolean;
}

export function runFlow(env: FlowEnv, reuse?: FlowReuse): FlowResult {
  return withFlowBudget(() => runFlowUnits(env, reuse));
}

function runFlowUnits(env: FlowEnv, reuse?: FlowReuse): FlowResult {
  const cx = new FlowState(env);
  // copied definitions keep their ids: new ones are numbered above them
  if (reuse) cx.idsAbove(reuse.prev.maxId);
  for (const sc of env.table.scopes) {
    if (sc.kind !== 'module' && sc.kind !== 'function' && sc.kind !== 'lambda') continue;
    if (reuse && sc.kind !== 'module' && reuse.reusable(sc)) copyUnit(cx.res, reuse.prev, sc);
    else runUnit(cx, sc);
  }
  return cx.finish();
}

/** Take a unit's entries over from the previous result (its reads and bindings are the same nodes). */
function copyUnit(res: FlowResult, prev: FlowResult, scope: Scope): void {
  const log = prev.units.get(scope.node)!;
  res.units.set(scope.node, log);
  for (const r of log.reads) {
    res.reachable.add(r);
    const defs = prev.readDefs.get(r);
    if (defs) res.readDefs.set(r, defs);
    if (prev.classFallback.has(r)) res.classFallback.add(r);
  }
  for (const b of log.binds) res.defAt.set(b, prev.defAt.get(b)!);
}

/** Run one execution unit: the module body, or a function or lambda body from its parameters. */
function runUnit(cx: FlowState, scope: Scope): void {
  cx.beginUnit(scope);
  let s: State = emptyState();
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
