/**
 * Collections of constants written in the code, held unchanged: a membership test against one
 * (`charset not in (None, "us-ascii")`, `status not in ARCHIVED`) compares a value with fixed
 * alternatives and looks up no item of the program's state.
 *
 * A name counts only when its scope binds it exactly once, by `NAME = <display>` (or `NAME: T = <display>`), and every other
 * mention of the name under that scope (nested functions included) only reads it: the right side of
 * `in`, the receiver of a method that reads (`.get`, `.keys`, …), a subscript that is read, the iterable
 * of a loop, the argument of a builtin that reads (`len`, `sorted`, …). Anything else — another binding,
 * a parameter of the same name, `global`, a method that changes it, an alias, an argument to any other
 * function — may change it, and the collection is not taken as fixed.
 */
import { resolveScope, soleAssignment } from './scopes.js';
import { constantText, displayItems, displayKeys } from './literal-values.js';
import { field, named, unparen, walk, type PyNode } from './tree.js';
import type { PythonAnalysis } from './types.js';

/** Methods of a tuple, list, set or dict that read it (and `copy`, whose result is another object). */
const READING_METHODS = new Set(['get', 'keys', 'values', 'items', 'count', 'index', 'copy', 'issubset', 'issuperset', 'isdisjoint', 'union', 'intersection', 'difference', 'symmetric_difference']);
/** Builtins that read their argument and change nothing. */
const READING_BUILTINS = new Set(['len', 'sorted', 'list', 'tuple', 'set', 'frozenset', 'dict', 'enumerate', 'iter', 'reversed', 'any', 'all', 'min', 'max', 'sum', 'zip', 'repr', 'str', 'bool']);

/**
 * Whether every value `e` may hold is a collection of constants written in the code and never changed (see
 * above). `mentionedElsewhere(name)`: another module of the project names `name` (it may import the module's
 * collection and change or rebind it); asked only of module-level names.
 */
export function constantCollection(a: PythonAnalysis, e: PyNode, mentionedElsewhere: (name: string) => boolean): boolean {
  const u = unparen(e);
  if (u.type !== 'identifier') return constantDisplay(a, u);
  const name = a.src(u);
  const scope = resolveScope(a.scopeOf(u), name);
  const sole = scope ? soleAssignment(scope, name) : undefined;
  // `SEEN = PENDING = []`: two names of one object (the assignment of PENDING sits in that of SEEN)
  if (!scope || !sole || sole.assignment.parent?.type === 'assignment') return false;
  const { id, value } = sole;
  if (!constantDisplay(a, value)) return false;
  // another module may import and change it; the module's own code may reach it through its namespace
  // (`globals()["TABLE"] = …`, `vars()["TABLE"].append(…)`, `exec("TABLE = …")`)
  if (scope.kind === 'module' && (mentionedElsewhere(name) || a.reachesNamespace())) return false;
  // a tuple or frozenset cannot change in place: the one binding is all that matters
  return immutable(a, value) || onlyRead(a, scope.node, name, id);
}

function immutable(a: PythonAnalysis, v0: PyNode): boolean {
  const v = unparen(v0);
  if (v.type === 'tuple') return true;
  const f = v.type === 'call' ? field(v, 'function') : undefined;
  return f?.type === 'identifier' && a.src(f) === 'frozenset' && a.resolution(f) === 'builtin';
}

/** A tuple, list, set or dict display (or `set(…)` / `frozenset(…)` / `dict(…)` of one) whose items (a dict's
 *  keys) are constants. */
function constantDisplay(a: PythonAnalysis, e: PyNode): boolean {
  const items = displayItems(a, e, ['tuple', 'list', 'set']);
  if (items) return items.every((k) => constantItem(a, k));
  return !!displayKeys(a, e) && named(unparen(e)).every((p) => p.type !== 'pair' || constantItem(a, field(p, 'key') ?? p));
}

/** A string, number, boolean or None, or a dotted name on a class or module (`Kind.FILE`, `http.HTTPStatus.OK`):
 *  the root is bound in the module by a `class` statement or an import, and by nothing else. */
function constantItem(a: PythonAnalysis, k0: PyNode): boolean {
  if (constantText(a, k0) === undefined) return false;
  const k = unparen(k0);
  if (k.type !== 'attribute') return true;
  let root = k;
  while (root.type === 'attribute') root = field(root, 'object') ?? root;
  const scope = resolveScope(a.scopeOf(root), a.src(root));
  const bindings = scope?.kind === 'module' ? scope.bindings.get(a.src(root)) : undefined;
  return !!bindings?.length && bindings.every((b) => b.kind === 'class' || b.kind === 'import');
}

/** Every mention of `name` under `root` but the binding `id` only reads the collection (see above). */
function onlyRead(a: PythonAnalysis, root: PyNode, name: string, id: PyNode): boolean {
  let ok = true;
  walk(root, (n) => {
    if (!ok) return false;
    if (n.type !== 'identifier' || n === id || a.src(n) !== name) return undefined;
    const p = n.parent;
    // `obj.name`, `f(name=…)`: not the variable
    if (p?.type === 'attribute' && field(p, 'attribute') === n) return undefined;
    if (p?.type === 'keyword_argument' && field(p, 'name') === n) return undefined;
    if (!readOnly(a, n)) ok = false;
    return undefined;
  });
  return ok;
}

function readOnly(a: PythonAnalysis, n: PyNode): boolean {
  const p = n.parent;
  if (!p) return false;
  switch (p.type) {
    case 'comparison_operator':
      // the collection of `x in NAME` / `x not in NAME`
      return named(p)[0] !== n && p.children.some((c) => c.type === 'in' || c.type === 'not in');
    case 'attribute': {
      const call = p.parent;
      return field(p, 'object') === n && call?.type === 'call' && field(call, 'function') === p && READING_METHODS.has(a.src(field(p, 'attribute') ?? p));
    }
    case 'subscript':
      return field(p, 'value') === n && !target(p);
    case 'for_statement':
    case 'for_in_clause':
      return field(p, 'right') === n;
    case 'argument_list': {
      const call = p.parent;
      const f = call?.type === 'call' ? field(call, 'function') : undefined;
      return f?.type === 'identifier' && READING_BUILTINS.has(a.src(f)) && a.resolution(f) === 'builtin';
    }
    default:
      return false;
  }
}

/** Nodes a target of several names is built of (`a, X[k] = …`, `for (i, X[k]) in …`). */
const TARGET_PARTS = new Set(['tuple', 'list', 'pattern_list', 'expression_list', 'tuple_pattern', 'list_pattern', 'parenthesized_expression', 'as_pattern_target']);

/** The node is assigned, deleted or bound as a loop or `with` target (alone or inside a target of several). */
function target(n0: PyNode): boolean {
  let n = n0;
  while (n.parent && TARGET_PARTS.has(n.parent.type)) n = n.parent;
  const p = n.parent;
  if (!p) return false;
  switch (p.type) {
    case 'assignment':
    case 'augmented_assignment':
    case 'for_statement':
    case 'for_in_clause':
      return field(p, 'left') === n;
    case 'delete_statement':
      return true;
    case 'as_pattern':
      return field(p, 'alias') === n || named(p).indexOf(n) > 0;
    default:
      return false;
  }
}
