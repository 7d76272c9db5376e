/**
 * Tasks written as JS/TS data: a module exporting an array of object literals that the harness
 * iterates as tasks —
 *
 *   export const tasks: Task[] = [{ id: "cart", check: { kind: "url", url: "/cart" } }, …];
 *   export default [ … ];            module.exports = [ … ];            exports.TASKS = [ … ];
 *   (a CommonJS `module.exports = [ … ]` is its default: `const tasks = require("./tasks")`)
 *
 * recognised by how the harness uses it, not by the file's name: the array is iterated (`for … of`,
 * `.forEach`/`.map`/`.filter`/`.find`/… on the array or on the name another module imports it as),
 * and its records are dispatched on a member (the kind-dispatch adapter binds them as it binds JSON
 * records: at least half their values are cases of a learned dispatch). Each array becomes a document
 * whose values point into the module's text, so findings land on the record in the `.ts`/`.js` file.
 * Records holding a spread (`{ ...base, kind: "x" }`) are left out (their members are not all written
 * there); a member whose value is not a literal is present with an unknown value.
 */
import path from 'node:path';
import type { AnyNode, ArrayExpression, Program } from 'acorn';
import type { SourceFile } from '../../core/source.js';
import { joinPointer, type JsonDocument, type JsonValueRef } from '../../lang/json/parse.js';
import { jsScopes } from '../../lang/js/scope.js';
import { forEachChild, propName, unwrapExpr } from '../../lang/js/nodes.js';
import type { HarnessCode } from './learn.js';

/** Text a module exporting an array of records needs. */
const SCREEN_EXPORT = /\bexport\b|\bmodule\.exports\b|\bexports\.\w/;
const SCREEN_RECORDS = /\[\s*\{/;
const ITERATE = /^(forEach|map|flatMap|filter|find|findIndex|some|every|reduce|entries|values)$/;

interface Exported {
  /** The name the array is exported as ('default' for a default export). */
  name: string;
  /** The module-level name holding it, if any. */
  local?: string;
  array: ArrayExpression;
}

/** Arrays of object literals a module exports. */
function exportedArrays(program: Program): Exported[] {
  const consts = new Map<string, ArrayExpression>();
  for (const st0 of program.body) {
    const st = st0.type === 'ExportNamedDeclaration' && st0.declaration ? st0.declaration : st0;
    if (st.type !== 'VariableDeclaration') continue;
    for (const d of st.declarations) {
      const init = d.init ? unwrapExpr(d.init) : undefined;
      if (d.id.type === 'Identifier' && init?.type === 'ArrayExpression') consts.set(d.id.name, init);
    }
  }
  const out: Exported[] = [];
  const add = (name: string, e: AnyNode | null | undefined) => {
    if (!e) return;
    const x = unwrapExpr(e);
    if (x.type === 'ArrayExpression') out.push({ name, array: x });
    else if (x.type === 'Identifier' && consts.has(x.name)) out.push({ name, local: x.name, array: consts.get(x.name)! });
  };
  const isModuleExports = (m: AnyNode) => m.type === 'MemberExpression' && m.object.type === 'Identifier' && m.object.name === 'module' && propName(m) === 'exports';
  for (const st of program.body) {
    if (st.type === 'ExportNamedDeclaration') {
      if (st.declaration?.type === 'VariableDeclaration') {
        for (const d of st.declaration.declarations) if (d.id.type === 'Identifier' && consts.has(d.id.name)) out.push({ name: d.id.name, local: d.id.name, array: consts.get(d.id.name)! });
      } else if (!st.source) {
        for (const sp of st.specifiers) if (sp.local.type === 'Identifier') add(sp.exported.type === 'Identifier' ? sp.exported.name : String(sp.exported.value), sp.local);
      }
    } else if (st.type === 'ExportDefaultDeclaration') add('default', st.declaration as AnyNode);
    else if (st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression' && st.expression.operator === '=' && st.expression.left.type === 'MemberExpression') {
      const l = st.expression.left;
      const r = st.expression.right;
      if (isModuleExports(l)) {
        if (unwrapExpr(r).type === 'ObjectExpression') {
          for (const p of (unwrapExpr(r) as { properties: AnyNode[] }).properties) {
            if (p.type === 'Property' && !p.computed && p.key.type === 'Identifier') add(p.key.name, p.value);
          }
        } else add('default', r);
      } else if (propName(l) && ((l.object.type === 'Identifier' && l.object.name === 'exports') || isModuleExports(l.object))) add(propName(l)!, r);
    }
  }
  // object-literal records, most of them
  return out.filter((x) => {
    const objs = x.array.elements.filter((e) => e?.type === 'ObjectExpression').length;
    return objs > 0 && objs * 2 >= x.array.elements.length;
  });
}

const UNKNOWN = undefined;

/** The value of a literal expression (unknown for anything computed), recording each node's ref. */
function valueOf(e: AnyNode, pointer: string, values: Map<string, JsonValueRef>, key?: { start: number; end: number }): unknown {
  const x = unwrapExpr(e);
  let v: unknown = UNKNOWN;
  if (x.type === 'Literal' && (typeof x.value === 'string' || typeof x.value === 'number' || typeof x.value === 'boolean' || x.value === null)) v = x.value;
  else if (x.type === 'TemplateLiteral' && x.expressions.length === 0) v = x.quasis[0]?.value.cooked ?? UNKNOWN;
  else if (x.type === 'UnaryExpression' && x.operator === '-' && x.argument.type === 'Literal' && typeof x.argument.value === 'number') v = -x.argument.value;
  else if (x.type === 'ArrayExpression') {
    const arr: unknown[] = [];
    x.elements.forEach((el, i) => arr.push(el && el.type !== 'SpreadElement' ? valueOf(el, joinPointer(pointer, i), values) : UNKNOWN));
    v = arr;
  } else if (x.type === 'ObjectExpression' && x.properties.every((p) => p.type === 'Property')) {
    // (an object holding a spread is unknown: its members are not all written here)
    const obj: Record<string, unknown> = {};
    for (const p of x.properties) {
      if (p.type !== 'Property') continue;
      const k = !p.computed && p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : undefined;
      if (k === undefined) continue;
      obj[k] = valueOf(p.value, joinPointer(pointer, k), values, { start: p.key.start, end: p.key.end });
    }
    v = obj;
  }
  values.set(pointer, { pointer, value: v, start: x.start, end: x.end, ...(key ? { keyStart: key.start, keyEnd: key.end } : {}) });
  return v;
}

/** The document of one exported array: its object records without spreads, pointers by their index in the array. */
function documentOf(file: SourceFile, array: ArrayExpression): JsonDocument {
  const values = new Map<string, JsonValueRef>();
  const arr: unknown[] = [];
  array.elements.forEach((el, i) => {
    const rec = el ? unwrapExpr(el) : undefined;
    if (rec?.type === 'ObjectExpression' && rec.properties.every((p) => p.type === 'Property')) arr.push(valueOf(rec, joinPointer('', i), values));
    else arr.push(UNKNOWN);
  });
  const root: JsonValueRef = { pointer: '', value: arr, start: array.start, end: array.end };
  values.set('', root);
  return { text: file.source.text, value: arr, root, values, duplicates: [] };
}

const EXTS = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx'];

/** Is the name iterated in this program: `for (… of x)`, `x.forEach(…)`, `x.map(…)`, … (or `ns.name` of a namespace)? */
function iterates(program: Program, isArray: (n: AnyNode) => boolean): boolean {
  let hit = false;
  const rec = (n: AnyNode) => {
    if (hit) return;
    if (n.type === 'ForOfStatement' && isArray(unwrapExpr(n.right))) hit = true;
    else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && ITERATE.test(propName(n.callee) ?? '') && isArray(unwrapExpr(n.callee.object))) hit = true;
    else forEachChild(n, rec);
  };
  rec(program);
  return hit;
}

/** Whether an exported array is iterated: in its own module, or by a module that imports it. */
function iterated(file: SourceFile, program: Program, x: Exported, importers: ReadonlyMap<string, Array<{ program: Program; from: string }>>): boolean {
  const sc = jsScopes(program);
  if (x.local && iterates(program, (n) => n.type === 'Identifier' && n.name === x.local && sc.resolve(n)?.kind === 'const')) return true;
  for (const imp of importers.get(file.path) ?? []) {
    const isc = jsScopes(imp.program);
    const ok = (n: AnyNode): boolean => {
      if (n.type === 'Identifier') {
        const m = isc.resolve(n)?.module;
        return !!m && m.from === imp.from && (m.imported === x.name || (x.name === 'default' && m.imported === '*'));
      }
      // `ns.tasks` of `import * as ns` / `const ns = require(…)`
      if (n.type === 'MemberExpression' && propName(n) === x.name && n.object.type === 'Identifier') {
        const m = isc.resolve(n.object)?.module;
        return !!m && m.from === imp.from && (m.imported === '*' || m.imported === 'default');
      }
      return false;
    };
    if (iterates(imp.program, ok)) return true;
  }
  return false;
}

const memo = new WeakMap<readonly SourceFile[], Array<{ file: SourceFile; doc: JsonDocument }>>();

/** The documents of the JS/TS task arrays of a project: arrays of object records a module exports and the harness iterates. */
export function jsTaskDocuments(code: HarnessCode): Array<{ file: SourceFile; doc: JsonDocument }> {
  const hit = memo.get(code.files);
  if (hit) return hit;
  const js = code.files.filter((f) => f.language === 'javascript' || f.language === 'typescript');
  const byPath = new Map(js.map((f) => [f.path, f]));
  const candidates: Array<{ file: SourceFile; program: Program; arrays: Exported[] }> = [];
  for (const f of js) {
    if (!SCREEN_EXPORT.test(f.source.text) || !SCREEN_RECORDS.test(f.source.text) || f.path.includes(`${path.sep}node_modules${path.sep}`)) continue;
    const program = code.programOf(f);
    const arrays = program ? exportedArrays(program) : [];
    if (program && arrays.length) candidates.push({ file: f, program, arrays });
  }
  const out: Array<{ file: SourceFile; doc: JsonDocument }> = [];
  if (candidates.length) {
    const wanted = new Set(candidates.map((c) => c.file.path));
    // the modules that import each candidate (relative specifiers only)
    const importers = new Map<string, Array<{ program: Program; from: string }>>();
    for (const f of js) {
      if (!/\bfrom\s+['"]\.|\brequire\s*\(\s*['"]\.|\bimport\s*\(\s*['"]\./.test(f.source.text)) continue;
      const program = code.programOf(f);
      if (!program) continue;
      const specs = new Set<string>();
      for (const b of jsScopes(program).references) if (b.binding?.module?.from.startsWith('.')) specs.add(b.binding.module.from);
      for (const s of specs) {
        const base = path.resolve(path.dirname(f.path), s);
        const bare = base.replace(/\.[cm]?[jt]sx?$/, '');
        const target = [...EXTS.map((e) => base + e), ...EXTS.slice(1).map((e) => bare + e), ...EXTS.slice(1).map((e) => path.join(base, `index${e}`))].find((c) => wanted.has(c) && byPath.has(c));
        if (!target) continue;
        let list = importers.get(target);
        if (!list) importers.set(target, (list = []));
        list.push({ program, from: s });
      }
    }
    for (const c of candidates) {
      for (const x of c.arrays) if (iterated(c.file, c.program, x, importers)) out.push({ file: c.file, doc: documentOf(c.file, x.array) });
    }
  }
  memo.set(code.files, out);
  return out;
}
