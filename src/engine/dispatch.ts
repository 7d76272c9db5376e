/**
 * The central pass: each parsed tree is walked once, and every enabled rule's
 * visitor for the node's type is called. Rules never walk trees privately.
 */
import type { PyNode } from '../lang/python/tree.js';
import type { AnyNode } from 'acorn';
import type { JavaScriptVisitors, JsVisitor, PythonVisitor, PythonVisitors, RuleContext } from '../contract/rule.js';
import type { PythonAnalysis } from '../lang/python/types.js';

export interface PythonSubscriber {
  visitors: PythonVisitors<string>;
  ctx: RuleContext & { python: PythonAnalysis };
  /** Called when a visitor throws; the pass goes on. */
  onError(err: unknown): void;
}

/** What the walk of an edited file skips, and how findings learn the function they were reported in. */
export interface PythonWalkUnits {
  /** Top-level functions and methods (outermost function definitions): the units findings are kept by. */
  units: ReadonlySet<PyNode>;
  /** Units whose findings of unit-local rules an editor session keeps: those rules do not visit them. */
  carried: ReadonlySet<PyNode>;
  /** Subscribers of unit-local rules. */
  local: ReadonlySet<PythonSubscriber>;
  /** Called with the unit the walk enters, and with null when it leaves it. */
  onUnit(unit: PyNode | null): void;
}

const ENTER = 0;
const EXIT = 1;
/** Leaving a unit: report it, and restore the full tables after a carried one. */
const LEAVE_UNIT = 2;

/**
 * Walk a Python unit once, dispatching enter and `:exit` visitors over the analysis core's plain tree
 * (no wasm crossing per node). With `units`, each top-level function is announced as it is entered and
 * left, and inside a carried one only the rules that are not unit-local are visited.
 */
export function walkPython(root: PyNode, subs: readonly PythonSubscriber[], units?: PythonWalkUnits): void {
  if (subs.length === 0) return;
  const all = tables<PythonVisitor<string>, PythonSubscriber>(subs);
  const rest = units?.carried.size ? tables<PythonVisitor<string>, PythonSubscriber>(subs.filter((s) => !units.local.has(s))) : all;
  let { enter, exit } = all;
  // indexed, without destructuring: called for every node of every unit, mostly before the optimising
  // compiler gets to it, where `for (const [fn, s] of list)` allocates an iterator result per step
  const fire = (list: Array<[PythonVisitor<string>, PythonSubscriber]>, node: PyNode) => {
    for (let i = 0; i < list.length; i++) {
      const pair = list[i]!;
      try {
        pair[0](node, pair[1].ctx);
      } catch (err) {
        pair[1].onError(err);
      }
    }
  };
  // iterative: a deeply nested module must not overflow the stack of the pass itself. The stack holds
  // nodes to enter, and (tagged by a parallel action only for types with `:exit` visitors, and for
  // units) nodes to leave: no allocation per node.
  const stack: PyNode[] = [root];
  const action: number[] = [ENTER];
  while (stack.length) {
    const n = stack.pop()!;
    const what = action.pop()!;
    if (what === EXIT) {
      const list = exit.get(n.type);
      if (list) fire(list, n);
      continue;
    }
    if (what === LEAVE_UNIT) {
      ({ enter, exit } = all);
      units!.onUnit(null);
      continue;
    }
    if (units && n.type === 'function_definition' && units.units.has(n)) {
      units.onUnit(n);
      stack.push(n);
      action.push(LEAVE_UNIT);
      if (units.carried.has(n)) ({ enter, exit } = rest);
    }
    const onEnter = enter.get(n.type);
    if (onEnter) fire(onEnter, n);
    if (exit.size && exit.has(n.type)) {
      stack.push(n);
      action.push(EXIT);
    }
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) {
      stack.push(kids[i]!);
      action.push(ENTER);
    }
  }
}

type Table<V, S> = Map<string, Array<[V, S]>>;

/** Visitors of every subscriber by node type, for entering and for `:exit`. The typed visitor maps
 *  (each key's visitor takes that node type) meet the walk here, which only calls a visitor with a
 *  node of its key's type: the one place their keys are read as plain strings. */
function tables<V, S extends { visitors: object }>(subs: readonly S[]): { enter: Table<V, S>; exit: Table<V, S> } {
  const enter: Table<V, S> = new Map();
  const exit: Table<V, S> = new Map();
  for (const s of subs) {
    const visitors = s.visitors as Record<string, V | undefined>;
    for (const key of Object.keys(visitors)) {
      const fn = visitors[key];
      if (!fn) continue;
      const { type, isExit } = keyInfo(key);
      const table = isExit ? exit : enter;
      let list = table.get(type);
      if (!list) table.set(type, (list = []));
      list.push([fn, s]);
    }
  }
  return { enter, exit };
}

/** Node type and direction of a visitor key, per key (tables are built for every unit, embedded lambdas included). */
const KEY_INFO = new Map<string, { type: string; isExit: boolean }>();
function keyInfo(key: string): { type: string; isExit: boolean } {
  let k = KEY_INFO.get(key);
  if (!k) {
    const isExit = key.endsWith(':exit');
    KEY_INFO.set(key, (k = { type: isExit ? key.slice(0, -5) : key, isExit }));
  }
  return k;
}

export interface JsSubscriber {
  visitors: JavaScriptVisitors<string>;
  ctx: RuleContext;
  onError(err: unknown): void;
}

/** Walk an acorn AST once, with ancestors, dispatching enter and `:exit` visitors. */
export function walkJs(root: AnyNode, subs: readonly JsSubscriber[]): void {
  if (subs.length === 0) return;
  const ancestors: AnyNode[] = [];
  const { enter, exit } = tables<JsVisitor<string>, JsSubscriber>(subs);
  const fire = (list: Array<[JsVisitor<string>, JsSubscriber]> | undefined, node: AnyNode) => {
    if (!list) return;
    for (const [fn, s] of list) {
      try { fn(node, s.ctx, ancestors); } catch (err) { s.onError(err); }
    }
  };
  // A generic walk: it reads every field of any node type by name (no ESTree type has an index
  // signature), and a field's value is a node when it is an object with a string `type` (acorn's
  // nodes are exactly those), so the casts below say what the check just established.
  const children = (node: AnyNode): AnyNode[] => {
    const out: AnyNode[] = [];
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key === 'start' || key === 'end' || key === 'type' || key === 'range') continue;
      const v = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object' && typeof (c as AnyNode).type === 'string') out.push(c as AnyNode);
      } else if (v && typeof v === 'object' && typeof (v as AnyNode).type === 'string') {
        out.push(v as AnyNode);
      }
    }
    return out;
  };
  // iterative (explicit stack): deep nesting must not overflow the pass itself
  const stack: Array<[AnyNode, boolean]> = [[root, false]];
  while (stack.length) {
    const [node, exiting] = stack.pop()!;
    if (exiting) {
      ancestors.pop();
      fire(exit.get(node.type), node);
      continue;
    }
    fire(enter.get(node.type), node);
    ancestors.push(node);
    stack.push([node, true]);
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i]!, false]);
  }
}
