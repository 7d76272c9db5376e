/**
 * The state an application's own JavaScript builds, read from its source: what a verifier that reads
 * the app's state as JSON (`requests.get(…/api/state).json()["bookingPages"][i]["location"]`) can
 * find at a path, when the app's code fixes it.
 *
 * A path is a list of keys, `*` standing for "any element of an array". For a path the model answers
 * - `kind`: `array` or `object` when every value the app writes there is one (an array or object
 *   literal, a copy of a constant array, a `filter`/`slice`/`sort` of itself);
 * - `strings`: the string literals the app can write there, when it writes nothing else: a literal,
 *   `x || 'Zoom'`, a method parameter filled by callers with such values, or the value of a form
 *   control whose options are listed in the code (`dropdown('bp-location', [{ value: 'Zoom', … }])`
 *   read back through `document.getElementById('bp-location').dataset.value`).
 *
 * Top-level keys are matched by name against every `key: value` and `x.key = value` the app writes
 * (state keys are distinctive names); nested keys only through the objects that are elements (or
 * values) of their parent path. Anything the model cannot follow — a `.map` rewriting elements, an
 * `Object.assign` into them that may carry the field, an assignment to the field anywhere, a spread, a computed-key
 * write (`obj[k] = v`, `_.set`, `Reflect.set`, `Object.defineProperty`) into an object it cannot resolve — makes the answer
 * "unknown" (undefined), never a guess.
 */
import type { AnyNode, Program } from 'acorn';
import { forEachChild, propName } from './nodes.js';
import { jsNesting, MAX_JS_NESTING, parseAcorn, shallowEnough } from './parse.js';

type Kind = 'array' | 'object' | 'string' | 'other';

interface Located {
  node: AnyNode;
  /** The functions enclosing it, innermost last (for locals and parameters). */
  fns: AnyNode[];
}

interface Index {
  programs: Program[];
  /** Top-level `const/let/var NAME = init` of every script (classic scripts share the page's globals). */
  globals: Map<string, AnyNode>;
  /** `key: value` properties and `x.key = value` assignments, by key. */
  writes: Map<string, Located[]>;
  /** `x.key.push(a, …)` / `unshift` arguments, by key. */
  pushes: Map<string, Located[]>;
  /** Fields assigned in place (`x.field = …`, `x.field += …`), and objects merged into (`Object.assign(t, …)`). */
  assignedFields: Set<string>;
  /** The keys written into a named object (`updates.name = …`), by the object's name. */
  namedFields: Map<string, string[]>;
  /** Fields updated by arithmetic in place (`x.field += …`, `x.field++`). */
  updatedFields: Set<string>;
  /** For a written value: the key of the object it is written into (`P: { key: v }`, `x.P = { key: v }`, `x.P.key = v`). */
  owners: WeakMap<AnyNode, string>;
  /** Objects merged into (`Object.assign(t, …)`) or written with a computed key (`obj[k] = v`): the names their expressions mention. */
  dynamicTargets: Array<Set<string>>;
  /** The target expression of each entry of `dynamicTargets` (same index). */
  dynamicNodes: Located[];
  /** The computed key of each `obj[k] = v` in `dynamicTargets` (same index), or the sources of a merge. */
  dynamicKeys: Array<Located | { sources: Located[] } | undefined>;
  /** Every call, with its enclosing functions. */
  calls: Located[];
  /** What the app sends as a request body: `body: JSON.stringify(x)`. */
  posted: Located[];
  /** Methods and functions by name: `name(params) {…}` in object literals and classes, `function name`. */
  functions: Map<string, AnyNode[]>;
  /** Every template literal (markup the app renders), with its enclosing functions. */
  templates: Located[];
}

const MAX_DEPTH = 8;
/** An ISO date, optionally with a time (`2026-03-08`, `2026-03-08T10:00:00Z`, `2026-03-08T10:00:00.000+02:00`). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const MAX_DOMAIN = 32;
/** Stands for an interpolated expression in template markup (no markup holds it). */
const HOLE = '\u0000';
/** Array methods whose callback gets each element as its first argument. */
const ITERATORS = new Set(['map', 'forEach', 'filter', 'find', 'some', 'every', 'flatMap', 'findIndex']);

function keyName(k: AnyNode | null | undefined, computed: boolean): string | undefined {
  if (!k || computed) return k && k.type === 'Literal' && typeof k.value === 'string' ? k.value : undefined;
  if (k.type === 'Identifier') return k.name;
  if (k.type === 'Literal' && typeof k.value === 'string') return k.value;
  return undefined;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

function isFn(n: AnyNode): boolean {
  return n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';
}

function buildIndex(programs: Program[]): Index {
  const ix: Index = { programs, globals: new Map(), writes: new Map(), pushes: new Map(), assignedFields: new Set(), namedFields: new Map(), updatedFields: new Set(), owners: new WeakMap(), dynamicTargets: [], dynamicNodes: [], dynamicKeys: [], calls: [], posted: [], functions: new Map(), templates: [] };
  for (const p of programs) {
    for (const st of p.body) {
      if (st.type === 'VariableDeclaration') for (const d of st.declarations) if (d.id.type === 'Identifier' && d.init) ix.globals.set(d.id.name, d.init);
      if (st.type === 'FunctionDeclaration' && st.id) push(ix.functions, st.id.name, st);
    }
    const walk = (n: AnyNode, fns: AnyNode[]): void => {
      const inner = isFn(n) ? [...fns, n] : fns;
      switch (n.type) {
        case 'Property': {
          const k = keyName(n.key, n.computed);
          if (k !== undefined) {
            push(ix.writes, k, { node: n.value, fns });
            ownInto(ix, n.value, k);
            const v = n.value;
            if (k === 'body' && v.type === 'CallExpression' && v.callee.type === 'MemberExpression' && propName(v.callee) === 'stringify' && v.arguments[0] && v.arguments[0].type !== 'SpreadElement') ix.posted.push({ node: v.arguments[0], fns });
            if (n.value.type === 'FunctionExpression') push(ix.functions, k, n.value);
          }
          break;
        }
        case 'MethodDefinition': {
          const k = keyName(n.key, n.computed);
          if (k !== undefined) push(ix.functions, k, n.value);
          break;
        }
        case 'AssignmentExpression': {
          const k = n.left.type === 'MemberExpression' ? (propName(n.left) ?? keyName(n.left.property, n.left.computed)) : undefined;
          if (k !== undefined) {
            // `x.items = x.items.filter(…)`: the same elements, fewer of them
            if (n.operator === '=' && selfRead(n.right, k)) break;
            if (n.operator === '=') push(ix.writes, k, { node: n.right, fns });
            else ix.updatedFields.add(k);
            ownInto(ix, n.right, k);
            const owner = n.left.type === 'MemberExpression' && n.left.object.type === 'MemberExpression' ? propName(n.left.object) : undefined;
            if (owner !== undefined) ix.owners.set(n.right, owner);
            ix.assignedFields.add(k);
            if (n.left.type === 'MemberExpression' && n.left.object.type === 'Identifier') push(ix.namedFields, n.left.object.name, k);
          } else if (n.left.type === 'MemberExpression' && n.left.object.type !== 'Super') {
            ix.dynamicTargets.push(targetNames(n.left.object, fns));
            ix.dynamicNodes.push({ node: n.left.object, fns });
            ix.dynamicKeys.push(n.left.property.type === 'PrivateIdentifier' ? undefined : { node: n.left.property, fns });
          }
          break;
        }
        case 'TemplateLiteral':
          ix.templates.push({ node: n, fns });
          break;
        case 'UpdateExpression': {
          const k = n.argument.type === 'MemberExpression' ? propName(n.argument) : undefined;
          if (k !== undefined) ix.updatedFields.add(k);
          break;
        }
        case 'CallExpression': {
          ix.calls.push({ node: n, fns });
          const c = n.callee;
          const m = propName(c);
          if (c.type === 'MemberExpression' && (m === 'push' || m === 'unshift')) {
            const k = propName(c.object);
            if (k !== undefined) for (const a of n.arguments) push(ix.pushes, k, { node: a, fns });
          }
          // `_.set(obj, path, v)`, `Reflect.set(obj, k, v)`, `Object.defineProperty(obj, k, d)`: a write of a computed key
          const setter = c.type === 'MemberExpression' && c.object.type === 'Identifier' ? `${c.object.name}.${m ?? ''}` : c.type === 'Identifier' ? c.name : '';
          if (/^(?:_\.(?:set|setWith|update)|lodash\.(?:set|setWith|update)|Reflect\.(?:set|defineProperty)|Object\.defineProperty|set|setWith)$/.test(setter) && n.arguments.length >= (c.type === 'Identifier' ? 3 : 2) && n.arguments[0]!.type !== 'SpreadElement' && n.arguments[1]!.type !== 'SpreadElement') {
            const key = n.arguments[1]!;
            // a path string (`'a.b'`, `['a', 'b']`) of lodash names several keys: any of them
            const single = setter.startsWith('Reflect') || setter.startsWith('Object');
            const names = targetNames(n.arguments[0]!, fns);
            if (!single) {
              // the path's literal keys name the objects it goes through; a computed path can reach any of them
              const parts = key.type === 'Literal' && typeof key.value === 'string' ? key.value.split(/[.[\]]+/) : key.type === 'ArrayExpression' && key.elements.every((e) => e?.type === 'Literal') ? key.elements.map((e) => String((e as { value: unknown }).value)) : undefined;
              if (parts) for (const x of parts) names.add(x);
              else names.add(ANY_TARGET);
            }
            ix.dynamicTargets.push(names);
            ix.dynamicNodes.push({ node: n.arguments[0]!, fns });
            ix.dynamicKeys.push(single ? { node: key, fns } : undefined);
          }
          if (c.type === 'MemberExpression' && propName(c) === 'assign' && c.object.type === 'Identifier' && c.object.name === 'Object' && n.arguments[0]) {
            ix.dynamicTargets.push(targetNames(n.arguments[0], fns));
            ix.dynamicNodes.push({ node: n.arguments[0], fns });
            ix.dynamicKeys.push({ sources: n.arguments.slice(1).map((a) => ({ node: a, fns })) });
          }
          break;
        }
        default:
          break;
      }
      forEachChild(n, (c) => walk(c, inner));
    };
    walk(p, []);
  }
  return ix;
}

/** The values of an object literal written under `key`: owned by that key. */
function ownInto(ix: Index, value: AnyNode, key: string): void {
  if (value.type !== 'ObjectExpression') return;
  for (const p of value.properties) if (p.type === 'Property') ix.owners.set(p.value, key);
}

/** The property and variable names an expression mentions, and those of the local it names (its initializer and reassignments). */
function mentioned(e: AnyNode, fns: AnyNode[]): Set<string> {
  const out = new Set<string>();
  const collect = (n: AnyNode): void => {
    if (n.type === 'Identifier') out.add(n.name);
    forEachChild(n, collect);
  };
  collect(e);
  if (e.type === 'Identifier') {
    const fn = fns[fns.length - 1];
    const visit = (n: AnyNode): void => {
      if (n.type === 'VariableDeclarator' && n.id.type === 'Identifier' && n.id.name === e.name && n.init) collect(n.init);
      if (n.type === 'AssignmentExpression' && n.left.type === 'Identifier' && n.left.name === e.name) collect(n.right);
      forEachChild(n, visit);
    };
    if (fn) visit(fn);
  }
  return out;
}

/** Stands, in a write target's names, for a target the model cannot resolve (a call's result): any object. */
const ANY_TARGET = '\u0000any';

/** Does a write target (its names) reach an object named `name`? A target the model cannot resolve reaches any. */
const reaches = (t: ReadonlySet<string>, name: string): boolean => t.has(name) || t.has(ANY_TARGET);

/** The names a computed-key write's target mentions, or ANY_TARGET when the object is what a call returns that
 *  the model cannot follow (`this.getCurrentUser()[field] = v`); an element a collection method picks
 *  (`state.users.find(…)[field]`) keeps the collection's names. */
function targetNames(e: AnyNode, fns: AnyNode[]): Set<string> {
  let root = e;
  while (root.type === 'MemberExpression' || root.type === 'ChainExpression') root = root.type === 'ChainExpression' ? root.expression : root.object;
  const out = mentioned(e, fns);
  if (root.type === 'CallExpression') {
    const m = propName(root.callee);
    if (!(m && (ITERATORS.has(m) || m === 'at' || m === 'get'))) out.add(ANY_TARGET);
  }
  return out;
}

/** A local `const`/`let` of the innermost function (or the globals): its initializer. */
function localInit(ix: Index, name: string, fns: AnyNode[]): AnyNode | undefined {
  for (let i = fns.length - 1; i >= 0; i--) {
    let found: AnyNode | undefined;
    const visit = (n: AnyNode): void => {
      if (found) return;
      if (n !== fns[i] && isFn(n)) return;
      if (n.type === 'VariableDeclarator' && n.id.type === 'Identifier' && n.id.name === name && n.init) found = n.init;
      forEachChild(n, visit);
    };
    visit(fns[i]!);
    if (found) return found;
  }
  return ix.globals.get(name);
}

/** The parameter index of `name` in the innermost function that declares it, with that function. */
function paramOf(name: string, fns: AnyNode[]): { fn: AnyNode; index: number } | undefined {
  for (let i = fns.length - 1; i >= 0; i--) {
    const f = fns[i]!;
    if (f.type !== 'FunctionDeclaration' && f.type !== 'FunctionExpression' && f.type !== 'ArrowFunctionExpression') continue;
    const index = f.params.findIndex((p) => p.type === 'Identifier' && p.name === name);
    if (index >= 0) return { fn: f, index };
  }
  return undefined;
}

/** `this.key`, `persisted.key`, and filtered or sorted copies of them: the collection itself, read back. */
function selfRead(n: AnyNode, key: string): boolean {
  if (n.type === 'MemberExpression') return propName(n) === key;
  if (n.type === 'LogicalExpression') return selfRead(n.left, key) && selfRead(n.right, key);
  if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && ['filter', 'slice', 'sort', 'reverse'].includes(propName(n.callee) ?? '')) return selfRead(n.callee.object, key);
  return false;
}

/** The object a member chain starts from (`a` of `a.b[c].d`). */
function rootOf(n: AnyNode): AnyNode {
  let o = n;
  while (o.type === 'MemberExpression') o = o.object;
  return o;
}

/** `JSON.parse(JSON.stringify(x))` → x. */
function deepCopyOf(n: AnyNode): AnyNode | undefined {
  if (n.type !== 'CallExpression' || n.callee.type !== 'MemberExpression' || propName(n.callee) !== 'parse') return undefined;
  const inner = n.arguments[0];
  if (inner?.type !== 'CallExpression' || inner.callee.type !== 'MemberExpression' || propName(inner.callee) !== 'stringify') return undefined;
  const x = inner.arguments[0];
  return x && x.type !== 'SpreadElement' ? x : undefined;
}

class Model {
  constructor(private readonly ix: Index) {}

  /** The value expressions the app writes at `path` (undefined when one cannot be followed). `self`: reads of the same key. */
  private values(path: readonly string[]): Located[] | undefined {
    if (!path.length) return undefined;
    if (path.length === 1) {
      const key = path[0]!;
      return this.ix.writes.get(key)?.filter((w) => !this.isSelf(w.node, key));
    }
    const parent = path.slice(0, -1);
    const last = path[path.length - 1]!;
    if (last === '*') return this.elements(parent);
    // a field of the objects found at the parent path
    if (this.ix.assignedFields.has(last) || this.targets().some((t, i) => reaches(t, path[0]!) && this.mayWrite(this.ix.dynamicKeys[i], path))) return undefined;
    const objs = this.objects(parent);
    if (!objs) return undefined;
    const out: Located[] = [];
    for (const o of objs) {
      // null (no object yet) has no field: reading one throws, so it puts no value there
      if (o.node.type === 'Literal' && o.node.value === null) continue;
      if (o.node.type !== 'ObjectExpression') return undefined;
      if (o.node.properties.some((p) => p.type === 'SpreadElement')) return undefined;
      const prop = o.node.properties.find((p) => p.type === 'Property' && keyName(p.key, p.computed) === last);
      // an object without the field: the JSON has no such key (a reader's default applies)
      if (prop && prop.type === 'Property') out.push({ node: prop.value, fns: o.fns });
    }
    return out;
  }

  private isSelf(n: AnyNode, key: string): boolean {
    return selfRead(n, key);
  }

  /** The object expressions found at `path` (elements or values), resolving locals and constants. */
  private objects(path: readonly string[]): Located[] | undefined {
    const vals = this.values(path);
    if (!vals) return undefined;
    const out: Located[] = [];
    for (const v of vals) {
      const o = this.resolve(v, 0);
      if (!o) return undefined;
      out.push(o);
    }
    return out;
  }

  private resolve(v: Located, depth: number): Located | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const n = v.node;
    if (n.type === 'ObjectExpression' || n.type === 'ArrayExpression' || n.type === 'Literal' || n.type === 'TemplateLiteral') return v;
    if (n.type === 'Identifier') {
      const init = localInit(this.ix, n.name, v.fns);
      return init ? this.resolve({ node: init, fns: init === this.ix.globals.get(n.name) ? [] : v.fns }, depth + 1) : undefined;
    }
    const copy = deepCopyOf(n);
    if (copy) return this.resolve({ node: copy, fns: v.fns }, depth + 1);
    return v;
  }

  /** The array literals a written value can be (reads of the same key, and filtered or sorted copies of them, add none). */
  private arrays(v: Located, key: string, depth: number): Located[] | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const n = v.node;
    if (this.isSelf(n, key)) return [];
    if (n.type === 'LogicalExpression' || n.type === 'ConditionalExpression') {
      const parts = n.type === 'LogicalExpression' ? [n.left, n.right] : [n.consequent, n.alternate];
      const all = parts.map((p) => this.arrays({ node: p, fns: v.fns }, key, depth + 1));
      return all.some((x) => !x) ? undefined : all.flat() as Located[];
    }
    const r = this.resolve(v, depth + 1);
    if (!r) return undefined;
    if (r.node.type === 'ArrayExpression') return [r];
    return r.node !== n ? this.arrays(r, key, depth + 1) : undefined;
  }

  /** The element expressions of the arrays at `path`, and what is pushed onto arrays of its key. */
  private elements(path: readonly string[]): Located[] | undefined {
    const vals = this.values(path);
    if (!vals) return undefined;
    const key = path[path.length - 1]!;
    const out: Located[] = [];
    for (const v of vals) {
      const arrs = this.arrays(v, key, 0);
      if (!arrs) return undefined;
      for (const r of arrs) {
        if (r.node.type !== 'ArrayExpression') return undefined;
        for (const e of r.node.elements) {
          if (!e || e.type === 'SpreadElement') return undefined;
          out.push({ node: e, fns: r.fns });
        }
      }
    }
    for (const p of this.ix.pushes.get(key) ?? []) out.push(p);
    return out;
  }

  kind(path: readonly string[]): 'array' | 'object' | undefined {
    const vals = this.values(path);
    if (!vals?.length) return undefined;
    const key = path[path.length - 1]!;
    const kinds = new Set<Kind | undefined>(vals.map((v) => this.kindOf(v, key, 0)).filter((k) => k !== 'self'));
    if (kinds.size !== 1) return undefined;
    const k = [...kinds][0];
    return k === 'array' || k === 'object' ? k : undefined;
  }

  private kindOf(v: Located, key: string, depth: number): Kind | 'self' | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const n = v.node;
    if (this.isSelf(n, key)) return 'self';
    switch (n.type) {
      case 'ArrayExpression':
        return 'array';
      case 'ObjectExpression':
        return 'object';
      case 'Literal':
      case 'TemplateLiteral':
        return typeof (n.type === 'Literal' ? n.value : '') === 'string' ? 'string' : 'other';
      case 'LogicalExpression':
      case 'ConditionalExpression': {
        const parts = n.type === 'LogicalExpression' ? [n.left, n.right] : [n.consequent, n.alternate];
        const ks = new Set(parts.map((p) => this.kindOf({ node: p, fns: v.fns }, key, depth + 1)).filter((k) => k !== 'self'));
        return ks.size === 1 ? [...ks][0] : ks.size === 0 ? 'self' : undefined;
      }
      case 'CallExpression': {
        const copy = deepCopyOf(n);
        if (copy) return this.kindOf({ node: copy, fns: v.fns }, key, depth + 1);
        const m = propName(n.callee);
        if (m && ['filter', 'slice', 'sort', 'map', 'concat', 'reverse', 'flat', 'flatMap'].includes(m)) return 'array';
        return undefined;
      }
      case 'Identifier': {
        const r = this.resolve(v, depth + 1);
        return r && r.node !== n ? this.kindOf(r, key, depth + 1) : undefined;
      }
      default:
        return undefined;
    }
  }

  /**
   * Does the app store at `path` only numbers it never computes — literals, the parse of a typed text
   * (`parseFloat(input.value)`), copies of the same field? Read by key, over every write of the
   * field's name in the app (`key: v`, `x.key = v`); an update in place (`x.key += d`), a write
   * through a computed key into the state's root, or any other value (arithmetic, a call) makes the
   * answer false. A parse of text keeps the decimal the user typed: the double JSON carries is the one
   * a literal of the same digits gives.
   */
  verbatimNumbers(path: readonly string[]): boolean {
    const key = path[path.length - 1];
    if (key === undefined || key === '*' || this.ix.updatedFields.has(key)) return false;
    const parent = path.length >= 2 ? path[path.length - 2]! : '*';
    if (this.targets().some((t, i) => reaches(t, path[0]!) && this.mayWrite(this.ix.dynamicKeys[i], path, parent === '*'))) return false;
    if (parent === '*') {
      const writes = this.ix.writes.get(key);
      return !!writes?.length && writes.every((w) => this.verbatim(w, key, 0));
    }
    // a field of a named object (`letterSpacing.value`): the writes into objects of that key, and every
    // object written under it must be a literal (its field checked) or a copy of the same key
    const own = (this.ix.writes.get(key) ?? []).filter((w) => this.ix.owners.get(w.node) === parent);
    const holders = this.ix.writes.get(parent) ?? [];
    return holders.length > 0 && own.every((w) => this.verbatim(w, key, 0)) && holders.every((h) => this.holds(h, parent, key, 0));
  }

  /**
   * Can the write `obj[k] = v`, or a merge `Object.assign(obj, …sources)`, put a value at one of the
   * path's keys? A computed key can unless it is a literal, or a parameter every call of its function
   * fills with strings the app fixes, none of them on the path. A merge can unless every source is an
   * object whose keys are known (a literal, a local built from one with `x.key = v`, a parameter every
   * caller fills with such) and none of them is the path's field: a merge into an object the state holds
   * (`Object.assign(this.currentUser, { fullName })`) writes a field a reader of that object sees (the
   * path's other keys are checked at their own level, or read by name). `byName`: the reader takes every
   * write of the field's name in the app (`key: v`), so the named keys of a merge's sources are writes
   * it already holds; only their computed keys and open sources count.
   */
  /**
   * The names each computed-key write or merge target mentions (`dynamicTargets`), and for a target
   * that is a parameter (`patch(target, p) { Object.assign(target, p) }`) the names of what every call
   * passes for it (`patch(this.currentUser, …)`): an object the state holds, written through a helper.
   */
  private targets(): Array<Set<string>> {
    if (this.targetNames) return this.targetNames;
    this.targetNames = this.ix.dynamicTargets.map((t, i) => {
      const { node, fns } = this.ix.dynamicNodes[i]!;
      const base = node.type === 'MemberExpression' ? rootOf(node) : node;
      if (base.type !== 'Identifier' || localInit(this.ix, base.name, fns)) return t;
      const param = paramOf(base.name, fns);
      const name = param && this.nameOf(param.fn);
      if (!param || !name) return t;
      const out = new Set(t);
      for (const { arg, fns: f } of this.argumentsAt(name, param.index)) if (arg && arg.type !== 'SpreadElement') for (const x of mentioned(arg, f)) out.add(x);
      return out;
    });
    return this.targetNames;
  }

  private targetNames: Array<Set<string>> | undefined;

  private mayWrite(k: Located | { sources: Located[] } | undefined, path: readonly string[], byName = false): boolean {
    if (!k) return true;
    if ('sources' in k) {
      return k.sources.some((x) => {
        const keys = this.sourceKeys(x, 0);
        return !keys || (!byName && keys.names.includes(path[path.length - 1]!)) || keys.computed.some((c) => this.mayWrite(c, path));
      });
    }
    const n = k.node;
    if (n.type === 'Literal') return typeof n.value !== 'string' || path.includes(n.value);
    if (n.type !== 'Identifier') return true;
    const param = paramOf(n.name, k.fns);
    const name = param && this.nameOf(param.fn);
    if (!param || !name) return true;
    const args = this.argumentsAt(name, param.index);
    // every call passes a string whose values the app fixes (a literal, or a closed domain: the
    // `data-field` of the buttons a click handler's case serves), none of them on the path
    return args.length === 0 || args.some(({ arg, fns }) => {
      if (!arg || arg.type === 'SpreadElement') return true;
      const d = arg.type === 'Literal' ? (typeof arg.value === 'string' ? [arg.value] : undefined) : this.stringsOf({ node: arg, fns }, 1);
      return !d || d.some((x) => path.includes(x));
    });
  }

  /**
   * The top-level keys a merge source can carry: the names, and the computed keys (`{ [field]: value }`)
   * to be followed like `obj[k] = v`. Undefined (any key) for a spread, a call, anything not an object
   * literal, a local written with a computed key, or a parameter some caller fills with such.
   */
  private sourceKeys(v: Located, depth: number): { names: string[]; computed: Located[] } | undefined {
    if (depth > 3) return undefined;
    const n = v.node;
    if (n.type === 'ObjectExpression') {
      const out: { names: string[]; computed: Located[] } = { names: [], computed: [] };
      for (const p of n.properties) {
        if (p.type === 'SpreadElement') return undefined;
        const name = keyName(p.key, p.computed);
        if (name !== undefined) out.names.push(name);
        else if (p.computed) out.computed.push({ node: p.key, fns: v.fns });
        else return undefined;
      }
      return out;
    }
    if (n.type !== 'Identifier') return undefined;
    const init = localInit(this.ix, n.name, v.fns);
    if (init) {
      if (init.type !== 'ObjectExpression' || this.ix.dynamicTargets.some((t) => reaches(t, n.name))) return undefined;
      const base = this.sourceKeys({ node: init, fns: v.fns }, depth + 1);
      // `updates.name = …` into the local (by its name anywhere: more keys, never fewer)
      return base && { names: [...base.names, ...(this.ix.namedFields.get(n.name) ?? [])], computed: base.computed };
    }
    const param = paramOf(n.name, v.fns);
    const name = param && this.nameOf(param.fn);
    if (!param || !name) return undefined;
    const args = this.argumentsAt(name, param.index);
    if (!args.length) return undefined;
    const out: { names: string[]; computed: Located[] } = { names: [], computed: [] };
    for (const { arg, fns } of args) {
      const keys = arg && arg.type !== 'SpreadElement' ? this.sourceKeys({ node: arg, fns }, depth + 1) : undefined;
      if (!keys) return undefined;
      out.names.push(...keys.names);
      out.computed.push(...keys.computed);
    }
    return out;
  }

  /** The argument at `index` of every call of the function named `name`, with the scope it is written in
   *  (`arg` undefined: that call passes fewer arguments). */
  private argumentsAt(name: string, index: number): Array<{ arg: AnyNode | undefined; fns: Located['fns'] }> {
    const out: Array<{ arg: AnyNode | undefined; fns: Located['fns'] }> = [];
    for (const c of this.ix.calls) {
      const call = c.node;
      if (call.type !== 'CallExpression') continue;
      const callee = call.callee;
      if ((callee.type === 'Identifier' ? callee.name : propName(callee)) !== name) continue;
      out.push({ arg: call.arguments[index], fns: c.fns });
    }
    return out;
  }

  /**
   * Does the app store at `path` only dates — ISO date or timestamp literals (`'2026-03-08'`,
   * `'2026-03-08T10:00:00Z'`), `''`/null for none, `d.toISOString()` (or its date part), copies of the
   * same field, or the value of a date control (`<input type="date">`, a text box whose pattern is
   * `\d{4}-\d{2}-\d{2}`)? Read by key over every write of the field's name, parameters followed to
   * their callers. A date needle (`2026-03-08`, `2026-12`) then tests the date part of the value.
   */
  dates(path: readonly string[]): boolean {
    const key = path[path.length - 1];
    if (key === undefined || key === '*') return false;
    if (this.targets().some((t, i) => reaches(t, path[0]!) && this.mayWrite(this.ix.dynamicKeys[i], path, true))) return false;
    const writes = this.ix.writes.get(key);
    return !!writes?.length && writes.every((w) => this.dated(w, key, 0));
  }

  private dated(v: Located, key: string, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const n = v.node;
    const sub = (x: AnyNode, fns = v.fns) => this.dated({ node: x, fns }, key, depth + 1);
    switch (n.type) {
      case 'Literal':
        return n.value === null || n.value === '' || (typeof n.value === 'string' && ISO_DATE.test(n.value));
      case 'LogicalExpression':
        return sub(n.left) && sub(n.right);
      case 'ConditionalExpression':
        return sub(n.consequent) && sub(n.alternate);
      case 'ChainExpression':
        return sub(n.expression);
      case 'MemberExpression': {
        if (propName(n) === key) return true;
        // el.dataset.value of the element a click handler's case acts on; o.value of each option rendered
        const fromMarkup = this.datasetValues(n, v.fns);
        if (fromMarkup) return fromMarkup.every((x) => sub(x.node, x.fns));
        const fromElements = this.elementField(n, v.fns, depth);
        if (fromElements) return fromElements.every((x) => sub(x.node, x.fns));
        // d.toISOString().split('T')[0]: the date part
        const o = n.object;
        if (n.computed && n.property.type === 'Literal' && n.property.value === 0 && o.type === 'CallExpression' && o.callee.type === 'MemberExpression' && propName(o.callee) === 'split') return sub(o.callee.object);
        // el.value of a date control
        if (propName(n) !== 'value' || n.object.type !== 'Identifier' && n.object.type !== 'CallExpression' && n.object.type !== 'ChainExpression') return false;
        const el = n.object.type === 'Identifier' ? localInit(this.ix, n.object.name, v.fns) : n.object;
        const id = el ? elementId(el) : undefined;
        return id !== undefined && this.dateControl(id);
      }
      case 'Identifier': {
        if (n.name === 'undefined') return true;
        const init = localInit(this.ix, n.name, v.fns);
        if (init) return sub(init, init === this.ix.globals.get(n.name) ? [] : v.fns);
        const param = paramOf(n.name, v.fns);
        const name = param && this.nameOf(param.fn);
        if (!param || !name) return false;
        const args = this.argumentsAt(name, param.index);
        return args.length > 0 && args.every(({ arg, fns }) => !!arg && arg.type !== 'SpreadElement' && sub(arg, fns));
      }
      case 'CallExpression': {
        // d.toISOString(), d.toISOString().split('T')[0] is a member read; .slice(0, 10) / .substring(0, 10)
        const m = propName(n.callee);
        if (m === 'toISOString') return true;
        if ((m === 'slice' || m === 'substring') && n.callee.type === 'MemberExpression') return sub(n.callee.object);
        return false;
      }
      default:
        return false;
    }
  }

  /**
   * `el.dataset.value` read in the `case 'set-x':` of a switch on `el.dataset.action` (or a local
   * holding it): the values of `data-value` in every element the app renders with `data-action="set-x"`
   * (template markup). undefined when that is not the shape, or an element's value is not one
   * expression or literal.
   */
  private datasetValues(n: AnyNode, fns: AnyNode[]): Located[] | undefined {
    if (n.type !== 'MemberExpression' || n.object.type !== 'MemberExpression' || propName(n.object) !== 'dataset') return undefined;
    const k = propName(n);
    if (!k) return undefined;
    // the innermost `case '<action>':` holding the read, in a switch on a dataset field
    let found: { action: string; attr: string } | undefined;
    const visit = (x: AnyNode, fn: AnyNode): void => {
      if (x.type === 'SwitchStatement' && x.start <= n.start && n.end <= x.end) {
        const d = x.discriminant.type === 'Identifier' ? localInit(this.ix, x.discriminant.name, fns) : x.discriminant;
        const attr = d?.type === 'MemberExpression' && d.object.type === 'MemberExpression' && propName(d.object) === 'dataset' ? propName(d) : undefined;
        for (const c of x.cases) {
          if (c.start <= n.start && n.end <= c.end && c.test?.type === 'Literal' && typeof c.test.value === 'string') found = attr ? { action: c.test.value, attr } : undefined;
        }
      }
      if (x !== fn && isFn(x)) return;
      forEachChild(x, (c) => visit(c, fn));
    };
    for (let i = fns.length - 1; i >= 0 && !found; i--) visit(fns[i]!, fns[i]!);
    if (!found) return undefined;
    const kebab = (s: string) => `data-${s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    const actionAttr = `${kebab(found.attr)}="${found.action}"`;
    const valueAttr = new RegExp(`\\s${kebab(k)}="([^"]*)"`);
    const out: Located[] = [];
    for (const tl of this.ix.templates) {
      const node = tl.node;
      if (node.type !== 'TemplateLiteral' || !node.quasis.some((q) => (q.value.cooked ?? '').includes(actionAttr))) continue;
      // the markup with each expression as a placeholder; each tag that carries the action
      const text = node.quasis.map((q, i) => (q.value.cooked ?? '') + (i < node.expressions.length ? `${HOLE}${i}${HOLE}` : '')).join('');
      for (const tag of text.match(/<[^<>]*>/g) ?? []) {
        if (!tag.includes(actionAttr)) continue;
        const m = valueAttr.exec(tag);
        if (!m) return undefined;
        const ph = m[1]!.startsWith(HOLE) && m[1]!.endsWith(HOLE) ? /^\d+$/.exec(m[1]!.slice(1, -1)) : null;
        if (ph) out.push({ node: node.expressions[Number(ph[0])]!, fns: tl.fns });
        else if (m[1]!.includes(HOLE)) return undefined;
        else out.push({ node: { type: 'Literal', value: m[1]!, raw: JSON.stringify(m[1]!), start: node.start, end: node.end } as AnyNode, fns: tl.fns });
      }
    }
    return out.length ? out : undefined;
  }

  /**
   * `o.value` where `o` is the item a callback of `list.map(o => …)` (forEach, filter, find…) gets:
   * the `value` of every element of the list, when the list is a literal array or a local array
   * filled only by `push`, directly or as what the one function of the app it calls returns.
   */
  private elementField(n: AnyNode, fns: AnyNode[], depth: number): Located[] | undefined {
    if (n.type !== 'MemberExpression' || n.object.type !== 'Identifier') return undefined;
    const k = propName(n);
    const param = paramOf(n.object.name, fns);
    if (!k || !param || param.index !== 0) return undefined;
    const call = this.ix.calls.find((c) => c.node.type === 'CallExpression' && c.node.arguments[0] === param.fn);
    const callee = call?.node.type === 'CallExpression' ? call.node.callee : undefined;
    if (!call || callee?.type !== 'MemberExpression' || !ITERATORS.has(propName(callee) ?? '')) return undefined;
    const els = this.arrayElements({ node: callee.object, fns: call.fns }, depth + 1);
    if (!els) return undefined;
    const out: Located[] = [];
    for (const e of els) {
      if (e.node.type !== 'ObjectExpression' || e.node.properties.some((p) => p.type === 'SpreadElement')) return undefined;
      const p = e.node.properties.find((q) => q.type === 'Property' && keyName(q.key, q.computed) === k);
      if (!p || p.type !== 'Property') return undefined;
      out.push({ node: p.value, fns: e.fns });
    }
    return out;
  }

  /** The elements of an array: a literal, a local array (plus what is pushed into it), or what the called function returns. */
  private arrayElements(v: Located, depth: number): Located[] | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const n = v.node;
    if (n.type === 'ArrayExpression') return n.elements.every((e) => e && e.type !== 'SpreadElement') ? n.elements.map((e) => ({ node: e!, fns: v.fns })) : undefined;
    if (n.type === 'Identifier') {
      const fn = v.fns[v.fns.length - 1];
      const init = fn ? localInit(this.ix, n.name, [fn]) : undefined;
      if (!fn || !init) return undefined;
      const base = this.arrayElements({ node: init, fns: v.fns }, depth + 1);
      if (!base) return undefined;
      // pushes into the local; any other write into it (index, reassignment, splice) leaves it open
      let open = false;
      const pushed: Located[] = [];
      const visit = (x: AnyNode, inner: AnyNode[]): void => {
        if (open) return;
        const named = (e: AnyNode) => e.type === 'Identifier' && e.name === n.name;
        if (x.type === 'AssignmentExpression' && (named(x.left) || (x.left.type === 'MemberExpression' && named(x.left.object)))) open = true;
        if (x.type === 'CallExpression' && x.callee.type === 'MemberExpression' && named(x.callee.object)) {
          const m = propName(x.callee);
          if (m === 'push' || m === 'unshift') for (const a of x.arguments) { if (a.type === 'SpreadElement') open = true; else pushed.push({ node: a, fns: inner }); }
          else if (!['map', 'forEach', 'filter', 'find', 'some', 'every', 'join', 'slice', 'includes', 'indexOf'].includes(m ?? '')) open = true;
        }
        forEachChild(x, (c) => visit(c, isFn(x) ? [...inner, x] : inner));
      };
      // a global array can be pushed into anywhere in the app
      if (init === this.ix.globals.get(n.name) && localInit(this.ix, n.name, [fn]) === init) for (const p of this.ix.programs) visit(p, []);
      else visit(fn, v.fns.slice(0, -1));
      return open ? undefined : [...base, ...pushed];
    }
    if (n.type === 'CallExpression' && n.arguments.length === 0) {
      const sole = this.soleFunctionReturns(n.callee.type === 'Identifier' ? n.callee.name : propName(n.callee));
      if (!sole?.rets.length) return undefined;
      const parts = sole.rets.map((r) => this.arrayElements({ node: r, fns: [sole.fn] }, depth + 1));
      return parts.every((x) => x) ? parts.flat() as Located[] : undefined;
    }
    return undefined;
  }

  /** A control created with this id is a date picker or a text box whose pattern is an ISO date. */
  private dateControl(id: string): boolean {
    let found = false;
    for (const c of this.ix.calls) {
      const call = c.node;
      if (call.type !== 'CallExpression') continue;
      const first = call.arguments[0];
      if (first?.type !== 'Literal' || first.value !== id) continue;
      const name = call.callee.type === 'Identifier' ? call.callee.name : propName(call.callee);
      const fn = name ? this.ix.functions.get(name) : undefined;
      // a lookup of the element (`getElementById('x')`), not its creation
      if (!fn) continue;
      if (fn.length !== 1) return false;
      const text = this.textOf(fn[0]!);
      if (!/type=\\?["']date["']|pattern=\\?["']\\+d\{4\}-\\+d\{2\}-\\+d\{2\}/.test(text)) return false;
      found = true;
    }
    return found;
  }

  /** The string and template text inside a function. */
  private textOf(fn: AnyNode): string {
    const parts: string[] = [];
    const visit = (x: AnyNode): void => {
      if (x.type === 'Literal' && typeof x.value === 'string') parts.push(x.value);
      if (x.type === 'TemplateElement') parts.push(x.value.cooked ?? '');
      forEachChild(x, visit);
    };
    visit(fn);
    return parts.join('\u0000');
  }

  /** An object written under `parent`: a literal whose `key` is verbatim, a copy of another `parent`, or nothing. */
  private holds(v: Located, parent: string, key: string, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const n = v.node;
    const sub = (x: AnyNode, fns = v.fns) => this.holds({ node: x, fns }, parent, key, depth + 1);
    switch (n.type) {
      case 'Literal':
        return n.value === null;
      case 'ObjectExpression': {
        if (n.properties.some((p) => p.type === 'SpreadElement')) return false;
        const prop = n.properties.find((p) => p.type === 'Property' && keyName(p.key, p.computed) === key);
        return !prop || (prop.type === 'Property' && this.verbatim({ node: prop.value, fns: v.fns }, key, 0));
      }
      case 'LogicalExpression':
        return sub(n.left) && sub(n.right);
      case 'ConditionalExpression':
        return sub(n.consequent) && sub(n.alternate);
      case 'ChainExpression':
        return sub(n.expression);
      case 'MemberExpression': {
        // a copy of the same key, or of another key whose every object holds the field verbatim
        const q = propName(n);
        if (q === parent) return true;
        if (q === undefined) return false;
        // a merge or computed-key write into the object it is read from (names shared, `this` aside)
        const from = [...mentioned(n.object, v.fns)].filter((x) => x !== 'this');
        if (this.targets().some((t, i) => from.some((x) => reaches(t, x)) && this.mayWrite(this.ix.dynamicKeys[i], [q, key]))) return false;
        const others = this.ix.writes.get(q) ?? [];
        return others.length > 0 && others.every((o) => this.holds(o, q, key, depth + 1));
      }
      case 'Identifier': {
        const init = localInit(this.ix, n.name, v.fns);
        return !!init && sub(init, init === this.ix.globals.get(n.name) ? [] : v.fns);
      }
      case 'CallExpression': {
        const copy = deepCopyOf(n);
        return !!copy && sub(copy);
      }
      default:
        return false;
    }
  }

  private verbatim(v: Located, key: string, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const n = v.node;
    const sub = (x: AnyNode) => this.verbatim({ node: x, fns: v.fns }, key, depth + 1);
    switch (n.type) {
      case 'Literal':
        return !n.regex;
      case 'UnaryExpression':
        return (n.operator === '-' || n.operator === '+') && n.argument.type === 'Literal' && typeof n.argument.value === 'number';
      case 'LogicalExpression':
        return sub(n.left) && sub(n.right);
      case 'ConditionalExpression':
        return sub(n.consequent) && sub(n.alternate);
      case 'ChainExpression':
        return sub(n.expression);
      case 'MemberExpression':
        // a copy of the same field from another record
        return propName(n) === key;
      case 'Identifier': {
        if (n.name === 'undefined') return true;
        const init = localInit(this.ix, n.name, v.fns);
        return !!init && this.verbatim({ node: init, fns: init === this.ix.globals.get(n.name) ? [] : v.fns }, key, depth + 1);
      }
      case 'CallExpression': {
        const copy = deepCopyOf(n);
        if (copy) return sub(copy);
        const c = n.callee;
        const name = c.type === 'Identifier' ? c.name : c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'Number' ? propName(c) : undefined;
        return name === 'parseFloat' || name === 'parseInt' || name === 'Number';
      }
      default:
        return false;
    }
  }

  /** Paths whose domain is being computed (a path reached again through its own writes is open). */
  private readonly visiting = new Set<string>();

  strings(path: readonly string[]): string[] | undefined {
    const k = path.join('\u0000');
    if (this.visiting.has(k) || this.visiting.size > MAX_DEPTH * 2) return undefined;
    this.visiting.add(k);
    try {
      return this.stringsAt(path);
    } finally {
      this.visiting.delete(k);
    }
  }

  private stringsAt(path: readonly string[]): string[] | undefined {
    const vals = this.values(path);
    if (!vals?.length) return this.controlStrings(path) ?? this.keyStrings(path);
    let out: string[] = [];
    for (const v of vals) {
      const d = this.stringsOf(v, 0);
      if (!d) return this.keyStrings(path);
      out = [...new Set([...out, ...d])];
      if (out.length > MAX_DOMAIN) return undefined;
    }
    return out;
  }

  /**
   * A field the app edits only through a choice control: a control built with a literal list of options
   * (`dropdown('timezone', [{ value: 'America/New_York', … }, …], s.timezone)`) shows the field as its
   * selected value, so the setter it drives (often a path setter the model cannot follow,
   * `updateSetting('timezone', value)`) writes one of those options. Every other control that shows
   * the field must be a choice too (a text box bound to it opens the field), and every write of the
   * field's name the model sees must be a closed string (the seed). The domain: options, selected
   * literals and those writes.
   */
  private controlStrings(path: readonly string[]): string[] | undefined {
    const key = path[path.length - 1];
    const parent = path.length >= 2 ? path[path.length - 2]! : '*';
    if (key === undefined || key === '*') return undefined;
    // `s.timezone` under `const s = AppState.settings`: the object is read through a local
    const ofParent = (o: AnyNode, fns: AnyNode[]): boolean => {
      if (o.type === 'MemberExpression') return propName(o) === parent;
      const init = o.type === 'Identifier' ? localInit(this.ix, o.name, fns) : undefined;
      return init?.type === 'MemberExpression' && propName(init) === parent;
    };
    const showsField = (e: AnyNode, fns: AnyNode[]): boolean => {
      let hit = false;
      const visit = (x: AnyNode): void => {
        if (hit) return;
        if (x.type === 'MemberExpression' && propName(x) === key && (parent === '*' || ofParent(x.object, fns))) hit = true;
        forEachChild(x, visit);
      };
      visit(e);
      return hit;
    };
    let out: string[] = [];
    let choice = false;
    for (const c of this.ix.calls) {
      const call = c.node;
      if (call.type !== 'CallExpression') continue;
      const [first, ...rest] = call.arguments;
      if (first?.type !== 'Literal' || typeof first.value !== 'string') continue;
      const shown = rest.filter((a) => a.type !== 'ArrayExpression' && showsField(a, c.fns));
      if (!shown.length) continue;
      const opts = this.optionsOf(first.value);
      if (!opts) return undefined;
      choice = true;
      out = [...new Set([...out, ...opts])];
    }
    if (!choice) return undefined;
    const writes = (this.ix.writes.get(key) ?? []).filter((w) => parent === '*' || this.ix.owners.get(w.node) === parent);
    for (const w of writes) {
      const d = this.stringsOf(w, 0);
      if (!d) return undefined;
      out = [...new Set([...out, ...d])];
    }
    return out.length <= MAX_DOMAIN ? out : undefined;
  }

  private stringsOf(v: Located, depth: number): string[] | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const n = v.node;
    const join = (parts: Array<string[] | undefined>): string[] | undefined => (parts.some((p) => !p) ? undefined : [...new Set(parts.flat() as string[])]);
    switch (n.type) {
      case 'Literal':
        return typeof n.value === 'string' ? [n.value] : undefined;
      case 'TemplateLiteral':
        return n.expressions.length === 0 ? [n.quasis.map((q) => q.value.cooked ?? '').join('')] : undefined;
      case 'LogicalExpression':
        // `x || 'Zoom'`: x when truthy (a falsy x is '' or absent), else the fallback
        return n.operator === '&&' ? undefined : join([this.stringsOf({ node: n.left, fns: v.fns }, depth + 1), this.stringsOf({ node: n.right, fns: v.fns }, depth + 1)]);
      case 'ConditionalExpression':
        return join([this.stringsOf({ node: n.consequent, fns: v.fns }, depth + 1), this.stringsOf({ node: n.alternate, fns: v.fns }, depth + 1)]);
      case 'ChainExpression':
        return this.stringsOf({ node: n.expression, fns: v.fns }, depth + 1);
      case 'Identifier': {
        const init = localInit(this.ix, n.name, v.fns);
        if (init) return this.stringsOf({ node: init, fns: v.fns }, depth + 1);
        // a parameter: what every call of its function passes
        const param = paramOf(n.name, v.fns);
        const name = param && this.nameOf(param.fn);
        if (!param || !name) return undefined;
        const args = this.argumentsAt(name, param.index);
        if (!args.length || args.some(({ arg }) => !arg || arg.type === 'SpreadElement')) return undefined;
        return join(args.map(({ arg, fns }) => this.stringsOf({ node: arg!, fns }, depth + 1)));
      }
      case 'MemberExpression':
        return this.memberStrings(n, v.fns, depth);
      default:
        return undefined;
    }
  }

  /** `data.location` (a parameter's field, from its callers) or `el.dataset.value` / `el.value` (a form control's options). */
  private memberStrings(n: Extract<AnyNode, { type: 'MemberExpression' }>, fns: AnyNode[], depth: number): string[] | undefined {
    const field = propName(n);
    if (!field) return undefined;
    // el.dataset.value, el.value
    const control = field === 'value' ? (n.object.type === 'MemberExpression' && propName(n.object) === 'dataset' ? n.object.object : n.object) : undefined;
    if (control?.type === 'Identifier') {
      const init = localInit(this.ix, control.name, fns);
      const id = init ? elementId(init) : undefined;
      if (id !== undefined) return this.optionsOf(id);
    }
    // `el.dataset.field` in the `case 'x':` of a click handler: the `data-field` of every element rendered with that action
    const marked = this.datasetValues(n, fns);
    if (marked) return this.stringsOfAll(marked, depth);
    // `this.currentUser.fullName`, `AppState.modalData.field`: a field of an object the state holds under
    // a key (`this.currentUser = JSON.parse(JSON.stringify(CURRENT_USER))`): that field of every object
    // the app writes under that key's name (an unresolved write, a write of the field or a merge into
    // the object leaves it open)
    const o = n.object;
    if (o.type === 'MemberExpression' && !o.computed && (o.object.type === 'ThisExpression' || o.object.type === 'Identifier') && propName(o) !== 'dataset') {
      const prop = propName(o);
      return prop ? this.heldStrings([prop, field], depth) : undefined;
    }
    // `p.name` of a record found in a collection of the state (`const p = AppState.getPharmacy(id)`,
    // a method that returns `this.pharmacies.find(…)`): that field of the collection's elements
    if (n.object.type === 'Identifier') {
      const init = localInit(this.ix, n.object.name, fns);
      const coll = init ? this.foundIn(init, depth) : undefined;
      if (coll) return this.strings([coll, '*', field]);
    }
    if (n.object.type !== 'Identifier') return undefined;
    const param = paramOf(n.object.name, fns);
    if (!param) return undefined;
    const name = this.nameOf(param.fn);
    if (!name) return undefined;
    let out: string[] = [];
    let any = false;
    for (const c of this.ix.calls) {
      const call = c.node;
      if (call.type !== 'CallExpression') continue;
      const callee = call.callee;
      const calleeName = callee.type === 'Identifier' ? callee.name : propName(callee);
      if (calleeName !== name) continue;
      const arg = call.arguments[param.index];
      if (!arg || arg.type === 'SpreadElement') return undefined;
      const obj = this.resolve({ node: arg, fns: c.fns }, depth + 1);
      if (obj?.node.type !== 'ObjectExpression' || obj.node.properties.some((p) => p.type === 'SpreadElement')) return undefined;
      const prop = obj.node.properties.find((p) => p.type === 'Property' && keyName(p.key, p.computed) === field);
      any = true;
      if (!prop || prop.type !== 'Property') continue; // not passed: the callee's fallback applies
      const value = prop.shorthand && prop.value.type === 'Identifier' ? prop.value : prop.value;
      const d = this.stringsOf({ node: value, fns: obj.fns }, depth + 1);
      if (!d) return undefined;
      out = [...new Set([...out, ...d])];
    }
    return any ? out : undefined;
  }

  /** The strings at `path` from the objects written under its parent key only (no by-name fallback: an
   *  object the app takes whole from elsewhere, `this.agent = profile`, leaves the field open). */
  private heldStrings(path: readonly string[], depth: number): string[] | undefined {
    const k = path.join('\u0000');
    if (this.visiting.has(k) || depth > MAX_DEPTH) return undefined;
    this.visiting.add(k);
    try {
      const vals = this.values(path);
      return vals?.length ? this.stringsOfAll(vals, depth) : undefined;
    } finally {
      this.visiting.delete(k);
    }
  }

  private stringsOfAll(vs: readonly Located[], depth: number): string[] | undefined {
    let out: string[] = [];
    for (const x of vs) {
      const d = this.stringsOf(x, depth + 1);
      if (!d) return undefined;
      out = [...new Set([...out, ...d])];
    }
    return out.length <= MAX_DOMAIN ? out : undefined;
  }

  /** The state collection a record comes from: `this.k.find(…)` (or `|| null`), directly or as what every return of the called method gives. */
  private foundIn(e: AnyNode, depth: number): string | undefined {
    if (depth > MAX_DEPTH) return undefined;
    if (e.type === 'LogicalExpression' && e.right.type === 'Literal' && e.right.value === null) return this.foundIn(e.left, depth + 1);
    if (e.type === 'ChainExpression') return this.foundIn(e.expression, depth + 1);
    if (e.type !== 'CallExpression' || e.callee.type !== 'MemberExpression') return undefined;
    const m = propName(e.callee);
    if (m === 'find') {
      const o = e.callee.object;
      return o.type === 'MemberExpression' && o.object.type === 'ThisExpression' ? propName(o) : undefined;
    }
    const sole = this.soleFunctionReturns(m);
    if (!sole) return undefined;
    const { fn, rets } = sole;
    if (fn.type === 'ArrowFunctionExpression' && fn.expression) rets.push(fn.body);
    const colls = new Set(rets.map((r) => this.foundIn(r, depth + 1)));
    return colls.size === 1 && !colls.has(undefined) ? [...colls][0] : undefined;
  }

  /**
   * The strings written under a field's name anywhere in the app (`key: v`, `x.key = v`), when every
   * one is closed: a copy of the same field (`med.pharmacyName`) adds nothing, null is no string. Used
   * when the path itself cannot be followed; a computed-key write or a merge into the state's root
   * object that may write the name leaves it open.
   */
  private keyStrings(path: readonly string[]): string[] | undefined {
    const key = path[path.length - 1];
    if (key === undefined || key === '*') return undefined;
    if (this.targets().some((t, i) => reaches(t, path[0]!) && this.mayWrite(this.ix.dynamicKeys[i], path, true))) return undefined;
    const writes = this.ix.writes.get(key);
    if (!writes?.length) return undefined;
    let out: string[] = [];
    for (const w of writes) {
      const n = w.node;
      if ((n.type === 'Literal' && n.value === null) || (n.type === 'MemberExpression' && propName(n) === key)) continue;
      const r = n.type === 'LogicalExpression' && n.left.type === 'MemberExpression' && propName(n.left) === key ? n.right : n;
      if (r !== n && r.type === 'Literal' && r.value === null) continue;
      const d = this.stringsOf({ node: r, fns: w.fns }, 0);
      if (!d) return undefined;
      out = [...new Set([...out, ...d])];
      if (out.length > MAX_DOMAIN) return undefined;
    }
    return out.length ? out : undefined;
  }

  /**
   * The top-level keys of the state the app sends (`fetch(url, { body: JSON.stringify(state) })`, the
   * state an object literal, a local holding one, or what a method returns): undefined unless every
   * body sent is such a literal with no spread.
   */
  postedKeys(): Set<string> | undefined {
    if (!this.ix.posted.length) return undefined;
    const out = new Set<string>();
    for (const p of this.ix.posted) {
      const o = this.literalOf(p, 0);
      if (!o || o.type !== 'ObjectExpression' || o.properties.some((x) => x.type === 'SpreadElement')) return undefined;
      for (const x of o.properties) if (x.type === 'Property') { const k = keyName(x.key, x.computed); if (k === undefined) return undefined; out.add(k); }
    }
    return out;
  }

  private literalOf(v: Located, depth: number): AnyNode | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const n = v.node;
    if (n.type === 'ObjectExpression') return n;
    if (n.type === 'Identifier') {
      const init = localInit(this.ix, n.name, v.fns);
      return init ? this.literalOf({ node: init, fns: v.fns }, depth + 1) : undefined;
    }
    if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.arguments.length === 0) {
      const m = propName(n.callee);
      const sole = this.soleFunctionReturns(m);
      if (!sole) return undefined;
      const { fn, rets } = sole;
      return rets.length === 1 ? this.literalOf({ node: rets[0]!, fns: [fn] }, depth + 1) : undefined;
    }
    return undefined;
  }

  /** The one function of the app named `m` and what its `return` statements give (nested functions aside). */
  private soleFunctionReturns(m: string | undefined): { fn: AnyNode; rets: AnyNode[] } | undefined {
    const fns = m ? this.ix.functions.get(m) : undefined;
    if (fns?.length !== 1) return undefined;
    const fn = fns[0]!;
    const rets: AnyNode[] = [];
    const visit = (x: AnyNode): void => {
      if (x !== fn && isFn(x)) return;
      if (x.type === 'ReturnStatement' && x.argument) rets.push(x.argument);
      forEachChild(x, visit);
    };
    visit(fn);
    return { fn, rets };
  }

  /** The name a function is called by (a method key, or a declaration's name). */
  private nameOf(fn: AnyNode): string | undefined {
    for (const [name, list] of this.ix.functions) if (list.includes(fn)) return name;
    return undefined;
  }

  /** The values a control with this id can hold: calls that create it with a literal list of options. */
  private optionsOf(id: string): string[] | undefined {
    let out: string[] | undefined;
    for (const c of this.ix.calls) {
      const call = c.node;
      if (call.type !== 'CallExpression') continue;
      const [first, ...rest] = call.arguments;
      if (first?.type !== 'Literal' || first.value !== id) continue;
      const options = rest.find((a) => a.type === 'ArrayExpression');
      if (!options || options.type !== 'ArrayExpression') continue;
      const values = options.elements.map((e) => {
        if (e?.type !== 'ObjectExpression') return undefined;
        const p = e.properties.find((q) => q.type === 'Property' && keyName(q.key, q.computed) === 'value');
        return p?.type === 'Property' && p.value.type === 'Literal' && typeof p.value.value === 'string' ? p.value.value : undefined;
      });
      if (values.some((x) => x === undefined)) return undefined;
      // the control starts at its selected value: a literal, or one of the options
      const next = rest[rest.indexOf(options) + 1];
      const selected = next?.type === 'Literal' && typeof next.value === 'string' ? [next.value] : [];
      out = [...new Set([...(out ?? []), ...(values as string[]), ...selected])];
    }
    return out;
  }
}

/** `document.getElementById('x')` / `document.querySelector('#x')` (optionally chained): the id. */
function elementId(n: AnyNode): string | undefined {
  const call = n.type === 'ChainExpression' ? n.expression : n;
  if (call.type !== 'CallExpression') return undefined;
  const m = propName(call.callee);
  const a = call.arguments[0];
  if (a?.type !== 'Literal' || typeof a.value !== 'string') return undefined;
  if (m === 'getElementById') return a.value;
  if (m === 'querySelector' && /^#[\w-]+$/.test(a.value)) return a.value.slice(1);
  return undefined;
}

export interface AppState {
  kind(path: readonly string[]): 'array' | 'object' | undefined;
  verbatimNumbers(path: readonly string[]): boolean;
  dates(path: readonly string[]): boolean;
  postedKeys(): Set<string> | undefined;
  strings(path: readonly string[]): string[] | undefined;
}

/** The model of the state the given scripts build (scripts that do not parse are left out). */
function appStateOf(texts: readonly string[]): AppState {
  const programs: Program[] = [];
  for (const t of texts) {
    // nested deeper than any verifier is parsed (parseScript's bounds): acorn and the walks here recurse
    // per level, and near the end of the stack V8 can abort the process, which no catch contains
    if (jsNesting(t) > MAX_JS_NESTING) continue;
    let program: Program | undefined;
    try {
      program = parseAcorn(t, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true, allowHashBang: true });
    } catch {
      try {
        program = parseAcorn(t, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
      } catch {
        // a script that does not parse says nothing
      }
    }
    if (program && shallowEnough(program)) programs.push(program);
  }
  return new Model(buildIndex(programs));
}

/** A project file as the model needs it. */
interface ScriptFile {
  language: string;
  source: { text: string };
}

/** Models kept per file set (least recently used first out): a run visits the verifiers in path order,
 *  so each application's verifiers ask for its model one after another (webarena-infinity builds each of
 *  its 20 once). Every model kept holds its scripts' syntax trees (≈ 1.4 MB an application there, 27 MB
 *  for all 20), and a model dropped is built again from the same texts when asked again. */
const MAX_MODELS = 2;

const near = new WeakMap<ReadonlyMap<string, ScriptFile>, { scripts: Array<[string, ScriptFile]>; byDir: Map<string, AppState | null>; models: string[] }>();

/**
 * The state built by the application that ships with `file` (a verifier): the JavaScript files under
 * the nearest folder above it (up to `root`) that holds any, read once per folder and file set (the
 * `MAX_MODELS` most recently asked for are kept).
 */
export function appStateNear(files: ReadonlyMap<string, ScriptFile>, file: string, root: string): AppState | undefined {
  let memo = near.get(files);
  if (!memo) near.set(files, (memo = { scripts: [...files].filter(([p, f]) => f.language === 'javascript' && !/[\\/]node_modules[\\/]/.test(p)), byDir: new Map(), models: [] }));
  for (let dir = parentOf(file); dir.length >= root.length; dir = parentOf(dir)) {
    let model = memo.byDir.get(dir);
    if (model === undefined) {
      const mine = memo.scripts.filter(([p]) => p.startsWith(`${dir}/`) || p.startsWith(`${dir}\\`));
      model = mine.length ? appStateOf(mine.map(([, f]) => f.source.text)) : null;
      memo.byDir.set(dir, model);
      if (model) {
        memo.models.push(dir);
        if (memo.models.length > MAX_MODELS) memo.byDir.delete(memo.models.shift()!);
      }
    } else if (model && memo.models[memo.models.length - 1] !== dir) {
      memo.models.splice(memo.models.indexOf(dir), 1);
      memo.models.push(dir);
    }
    if (model) return model;
    if (dir === parentOf(dir)) break;
  }
  return undefined;
}

function parentOf(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i > 0 ? p.slice(0, i) : p;
}
