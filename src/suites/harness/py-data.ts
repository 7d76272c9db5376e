/**
 * Python literal data as a JSON document with positions: a module-level collection of task records
 * (`TASKS = [{"id": "a", …}, Task(id="b", actions=[Action(name="x", kwargs={…})]), …]`) read the way
 * the JSON containers are (records.ts), so a finding points at the value's text in the `.py` file.
 *
 * Converted: dict displays (string keys), lists, tuples, strings, numbers, booleans, None; a call is a
 * record of its keyword arguments (a project class's positional arguments take its field names:
 * dataclass/pydantic annotations in order, else `__init__` parameters); `A + B` of lists and a name of
 * another module-level collection of the same module are spliced in. Anything else (a computed value)
 * is null: present, but not a value vaudit knows.
 */
import type { JsonDocument, JsonValueRef } from '../../lang/json/parse.js';
import { joinPointer } from '../../lang/json/parse.js';
import type { PythonAnalysis, PythonProject, PyNode } from '../../lang/python/types.js';
import { field, named, unparen } from '../../lang/python/tree.js';
import { ancestry, classOfExpr } from './py-classes.js';
import { pyStringLiteral } from './py-values.js';

type ModuleAssignment = { name: string; value: PyNode; node: PyNode };

/** Every module-level `NAME = <expr>` of each analysis, in source order (a name assigned twice appears
 *  twice), listed once: the suite indexes ask at every name they follow (a dict dispatch at each
 *  subscript of a module name, a collection at each look-up), and each listing read every statement of
 *  the module again. */
const assignmentsMemo = new WeakMap<PythonAnalysis, { list: readonly ModuleAssignment[]; last?: ReadonlyMap<string, { value: PyNode; node: PyNode }>; byName?: ReadonlyMap<string, readonly ModuleAssignment[]> }>();
function assignmentsOf(a: PythonAnalysis) {
  let m = assignmentsMemo.get(a);
  if (!m) assignmentsMemo.set(a, (m = { list: named(a.ast).flatMap((st) => assignmentOf(st) ?? []) }));
  return m;
}

/** Module-level assignments `NAME = value` / `NAME: T = value` (the last one of a name wins). */
export function moduleAssignments(a: PythonAnalysis): ReadonlyMap<string, { value: PyNode; node: PyNode }> {
  const m = assignmentsOf(a);
  return (m.last ??= new Map(m.list.map(({ name, value, node }) => [name, { value, node }])));
}

/** The module-level assignments of one name, in source order. */
export function moduleAssignmentsOf(a: PythonAnalysis, name: string): readonly ModuleAssignment[] {
  const m = assignmentsOf(a);
  if (!m.byName) {
    const byName = new Map<string, ModuleAssignment[]>();
    for (const x of m.list) {
      const l = byName.get(x.name);
      if (l) l.push(x);
      else byName.set(x.name, [x]);
    }
    m.byName = byName;
  }
  return m.byName.get(name) ?? [];
}

/** `X = <expr>` as a statement of a block: the name, the value (unparenthesised) and the assignment. */
export function assignmentOf(st: PyNode): { name: string; value: PyNode; node: PyNode } | undefined {
  if (st.type !== 'expression_statement') return undefined;
  const asg = named(st)[0];
  if (asg?.type !== 'assignment') return undefined;
  const l = field(asg, 'left');
  const r = field(asg, 'right');
  return l?.type === 'identifier' && r ? { name: l.text, value: unparen(r), node: asg } : undefined;
}

const COLLECTION = new Set(['list', 'tuple', 'dictionary', 'binary_operator']);

/** Is the module-level value a collection literal (or a concatenation of them)? */
export function isCollectionValue(v: PyNode): boolean {
  if (!COLLECTION.has(v.type)) return false;
  if (v.type !== 'binary_operator' && named(v).filter((x) => x.type !== 'comment').length === 0) return false;
  if (v.type === 'binary_operator') return named(v).some((x) => x.type === 'list' || x.type === 'identifier' || x.type === 'binary_operator' || x.type === 'tuple');
  return true;
}

/** The field names a project class takes positionally (dataclass/pydantic annotations, else `__init__`). */
function positionalFields(python: PythonProject, a: PythonAnalysis, callee: PyNode): string[] {
  const cls = classOfExpr(python, a, callee);
  if (!cls) return [];
  const chain = ancestry(python, cls).reverse();
  const annotated: string[] = [];
  for (const k of chain) {
    const body = field(k.info.node, 'body');
    for (const st of body ? named(body) : []) {
      const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
      if (asg?.type !== 'assignment' || !field(asg, 'type')) continue;
      const l = field(asg, 'left');
      if (l?.type === 'identifier' && !annotated.includes(l.text)) annotated.push(l.text);
    }
  }
  if (annotated.length) return annotated;
  const init = [...chain].reverse().map((k) => k.info.methods.get('__init__')).find((f) => f);
  return init ? init.params.filter((p, i) => !(i === 0 && p === 'self')) : [];
}

interface Build {
  python: PythonProject;
  a: PythonAnalysis;
  top: ReadonlyMap<string, { value: PyNode; node: PyNode }>;
  values: Map<string, JsonValueRef>;
  depth: number;
  inlining: Set<string>;
}

function convert(b: Build, n: PyNode, pointer: string, key?: PyNode): unknown {
  const u = unparen(n);
  const rec = (value: unknown) => {
    b.values.set(pointer, { pointer, value, start: u.start, end: u.end, ...(key ? { keyStart: key.start, keyEnd: key.end } : {}) });
    return value;
  };
  if (b.depth > 40) return rec(null);
  b.depth++;
  try {
    switch (u.type) {
      case 'string':
      case 'concatenated_string': {
        const s = pyStringLiteral(b.a, u);
        return rec(s === undefined ? null : s);
      }
      case 'integer':
      case 'float': {
        const v = Number(u.text.replace(/_/g, ''));
        return rec(Number.isFinite(v) ? v : null);
      }
      case 'unary_operator': {
        const arg = field(u, 'argument');
        return rec(arg && (arg.type === 'integer' || arg.type === 'float') && u.text.trim().startsWith('-') ? -Number(arg.text.replace(/_/g, '')) : null);
      }
      case 'true': return rec(true);
      case 'false': return rec(false);
      case 'none': return rec(null);
      case 'list':
      case 'tuple':
      case 'binary_operator':
      case 'identifier': {
        const items = spliced(b, u);
        if (!items) return rec(null);
        const arr: unknown[] = [];
        const ref: JsonValueRef = { pointer, value: arr, start: u.start, end: u.end, ...(key ? { keyStart: key.start, keyEnd: key.end } : {}) };
        b.values.set(pointer, ref);
        items.forEach((x, i) => arr.push(convert(b, x, joinPointer(pointer, i))));
        return arr;
      }
      case 'dictionary': {
        const obj: Record<string, unknown> = {};
        b.values.set(pointer, { pointer, value: obj, start: u.start, end: u.end, ...(key ? { keyStart: key.start, keyEnd: key.end } : {}) });
        for (const p of named(u)) {
          if (p.type !== 'pair') continue;
          const k = field(p, 'key');
          const v = field(p, 'value');
          const name = k ? pyStringLiteral(b.a, k) : undefined;
          if (name === undefined || !v) continue;
          obj[name] = convert(b, v, joinPointer(pointer, name), k);
        }
        return obj;
      }
      case 'call': {
        const c = b.a.call(u);
        if (!c) return rec(null);
        const obj: Record<string, unknown> = {};
        b.values.set(pointer, { pointer, value: obj, start: u.start, end: u.end, ...(key ? { keyStart: key.start, keyEnd: key.end } : {}) });
        const names = c.args.length ? positionalFields(b.python, b.a, c.fn) : [];
        c.args.forEach((x, i) => {
          const name = names[i];
          if (name) obj[name] = convert(b, x, joinPointer(pointer, name));
        });
        const argList = field(u, 'arguments');
        for (const kw of argList ? named(argList) : []) {
          if (kw.type !== 'keyword_argument') continue;
          const k = field(kw, 'name');
          const v = field(kw, 'value');
          if (k && v) obj[k.text] = convert(b, v, joinPointer(pointer, k.text), k);
        }
        return obj;
      }
      default:
        return rec(null);
    }
  } finally {
    b.depth--;
  }
}

/** The items of a list/tuple, of `A + B`, or of a module-level collection named; undefined: not a sequence vaudit knows. */
function spliced(b: Build, n: PyNode, depth = 0): PyNode[] | undefined {
  const u = unparen(n);
  // `A + B + …` nests to the left: a chain vaudit will not follow that deep is not data it knows
  if (depth > 200) return undefined;
  if (u.type === 'list' || u.type === 'tuple') {
    const items = named(u).filter((x) => x.type !== 'comment');
    return items.some((x) => x.type === 'list_splat') ? undefined : items;
  }
  if (u.type === 'binary_operator') {
    if (field(u, 'operator')?.text !== '+') return undefined;
    const l = field(u, 'left');
    const r = field(u, 'right');
    const ls = l ? spliced(b, l, depth + 1) : undefined;
    const rs = r ? spliced(b, r, depth + 1) : undefined;
    return ls && rs ? [...ls, ...rs] : undefined;
  }
  if (u.type === 'identifier') {
    const t = b.top.get(u.text);
    if (!t || b.inlining.has(u.text) || !isCollectionValue(t.value) || t.value.type === 'dictionary') return undefined;
    b.inlining.add(u.text);
    try {
      return spliced(b, t.value, depth + 1);
    } finally {
      b.inlining.delete(u.text);
    }
  }
  return undefined;
}

/** The module-level collection `name` of a module as a JSON document (root: its value), with positions. */
export function pyDataDocument(python: PythonProject, a: PythonAnalysis, name: string): JsonDocument | undefined {
  const top = moduleAssignments(a);
  const t = top.get(name);
  if (!t || !isCollectionValue(t.value)) return undefined;
  const b: Build = { python, a, top, values: new Map(), depth: 0, inlining: new Set([name]) };
  const value = t.value.type === 'dictionary' ? convert(b, t.value, '') : (() => {
    const items = spliced(b, t.value);
    if (!items) return undefined;
    const arr: unknown[] = [];
    b.values.set('', { pointer: '', value: arr, start: t.value.start, end: t.value.end });
    items.forEach((x, i) => arr.push(convert(b, x, joinPointer('', i))));
    return arr;
  })();
  if (value === undefined) return undefined;
  const root = b.values.get('')!;
  return { text: a.text, value, root, values: b.values, duplicates: [] };
}
