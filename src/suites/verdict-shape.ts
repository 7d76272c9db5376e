/**
 * Verdict shapes: what a verdict looks like, in Python and in JavaScript/TypeScript alike.
 *
 * A verdict is whatever a verdict function (src/suites/verdict.ts for Python, `jsVerdictFunctions`
 * below for JS/TS) hands the grader: a bool, a number (`0`/`1`, `0.0`/`1.0`), a pair whose first
 * item is one (`(False, msg)`, `[false, msg]`), or an object with a verdict key (`{"pass": False}`,
 * `{ success: false }`, `{ verdict: 'fail' }`). Both languages convert their syntax to one
 * `ConstValue` and ask the same questions of it (`verdictTruth`), so the two never drift apart.
 *
 * Keys are learned from the entrypoint's own returns: a verdict function that returns
 * `{ _success: state.clicked === true }` makes `_success` a verdict key for that project, so a
 * handler's `return { _success: false }` is recognised as a failing verdict.
 */
import type { AnyNode, Expression, Program } from 'acorn';
import type { FunctionInfo, PythonAnalysis } from '../lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../lang/python/tree.js';
import { eachOwnNode, isJsFunction, propName, type JsFunction } from '../lang/js/index.js';

/** A value as far as it is known without running the code. */
export type ConstValue =
  | { kind: 'bool'; value: boolean }
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'null' }
  | { kind: 'seq'; items: ConstValue[] }
  | { kind: 'object'; entries: Array<[string, ConstValue]> }
  /** Not constant, but a truth value: a comparison, a negation, `and`/`or`, `bool(...)`. */
  | { kind: 'boolish' }
  | { kind: 'other' };

/** Keys that hold the verdict of a result object when nothing else is known. */
const DEFAULT_KEYS = ['pass', 'passed', 'success', 'succeeded', 'ok', 'correct', 'score', 'reward', 'verdict', 'result'];
const PASS_WORDS = new Set(['pass', 'passed', 'success', 'succeeded', 'ok', 'correct']);
const FAIL_WORDS = new Set(['fail', 'failed', 'failure', 'incorrect', 'error']);

export interface VerdictShapes {
  /** Lower-cased keys of result objects that hold the verdict. */
  keys: ReadonlySet<string>;
}

export const DEFAULT_SHAPES: VerdictShapes = { keys: new Set(DEFAULT_KEYS) };

/** Learn verdict keys from the values verdict functions return: an object member whose value is a
 *  truth value (a comparison, a bool, a number) is a verdict key. The defaults always stay. */
export function learnShapes(returns: Iterable<ConstValue>): VerdictShapes {
  const keys = new Set(DEFAULT_KEYS);
  for (const r of returns) {
    if (r.kind !== 'object') continue;
    for (const [k, v] of r.entries) if (v.kind === 'bool' || v.kind === 'boolish') keys.add(k.toLowerCase());
  }
  return { keys };
}

/** The truth of a constant verdict (`false`, `0`, `(False, msg)`, `{pass: false}`), or undefined when
 *  the value is not a constant verdict of a known shape. */
export function verdictTruth(v: ConstValue, shapes: VerdictShapes = DEFAULT_SHAPES, inObject = false): boolean | undefined {
  switch (v.kind) {
    case 'bool':
      return v.value;
    case 'number':
      return v.value === 0 ? false : v.value === 1 ? true : undefined;
    case 'string': {
      if (!inObject) return undefined;
      const w = v.value.toLowerCase();
      return PASS_WORDS.has(w) ? true : FAIL_WORDS.has(w) ? false : undefined;
    }
    case 'seq': {
      const first = v.items[0];
      return v.items.length >= 1 && v.items.length <= 3 && first && (first.kind === 'bool' || first.kind === 'number') ? verdictTruth(first, shapes) : undefined;
    }
    case 'object':
      for (const [k, x] of v.entries) if (shapes.keys.has(k.toLowerCase())) return verdictTruth(x, shapes, true);
      return undefined;
    default:
      return undefined;
  }
}

// ------------------------------------------------------------------ Python

/** Python syntax → ConstValue. */
export function pyConst(a: PythonAnalysis, n: PyNode): ConstValue {
  const e = unparen(n);
  switch (e.type) {
    case 'true':
      return { kind: 'bool', value: true };
    case 'false':
      return { kind: 'bool', value: false };
    case 'none':
      return { kind: 'null' };
    case 'integer':
    case 'float': {
      const v = Number(a.src(e).replace(/_/g, ''));
      return Number.isFinite(v) ? { kind: 'number', value: v } : { kind: 'other' };
    }
    case 'string': {
      if (e.children.some((c) => c.type === 'interpolation')) return { kind: 'other' };
      return { kind: 'string', value: e.children.filter((c) => c.type === 'string_content').map((c) => c.text).join('') };
    }
    case 'tuple':
    case 'expression_list':
      return { kind: 'seq', items: named(e).map((x) => pyConst(a, x)) };
    case 'dictionary': {
      const entries: Array<[string, ConstValue]> = [];
      for (const p of named(e)) {
        const k = p.type === 'pair' ? field(p, 'key') : undefined;
        const v = p.type === 'pair' ? field(p, 'value') : undefined;
        const key = k ? pyConst(a, k) : undefined;
        if (key?.kind === 'string' && v) entries.push([key.value, pyConst(a, v)]);
      }
      return { kind: 'object', entries };
    }
    case 'comparison_operator':
    case 'not_operator':
    case 'boolean_operator':
      return { kind: 'boolish' };
    case 'call': {
      const f = field(e, 'function');
      return f?.type === 'identifier' && (f.text === 'bool' || f.text === 'all' || f.text === 'any' || f.text === 'isinstance') ? { kind: 'boolish' } : { kind: 'other' };
    }
    default:
      return { kind: 'other' };
  }
}

/** The values a Python function returns from its own body (nested functions excluded). */
export function pyReturnValues(a: PythonAnalysis, fn: FunctionInfo): ConstValue[] {
  const out: ConstValue[] = [];
  const body = field(fn.node, 'body');
  if (body)
    walk(body, (n) => {
      if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return false;
      if (n.type === 'return_statement') {
        const v = named(n)[0];
        if (v) out.push(pyConst(a, v));
        return false;
      }
      return undefined;
    });
  return out;
}

// ------------------------------------------------------------------ JavaScript / TypeScript

const JS_COMPARISONS = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=', 'in', 'instanceof']);

/** JavaScript (ESTree) syntax → ConstValue. */
export function jsConst(n: AnyNode | null | undefined): ConstValue {
  if (!n) return { kind: 'other' };
  switch (n.type) {
    case 'Literal':
      if (typeof n.value === 'boolean') return { kind: 'bool', value: n.value };
      if (typeof n.value === 'number') return { kind: 'number', value: n.value };
      if (typeof n.value === 'string') return { kind: 'string', value: n.value };
      if (n.value === null && !n.regex) return { kind: 'null' };
      return { kind: 'other' };
    case 'Identifier':
      return n.name === 'undefined' ? { kind: 'null' } : { kind: 'other' };
    case 'UnaryExpression':
      if (n.operator === '!') return { kind: 'boolish' };
      if (n.operator === '-' && n.argument.type === 'Literal' && typeof n.argument.value === 'number') return { kind: 'number', value: -n.argument.value };
      return { kind: 'other' };
    case 'TemplateLiteral':
      return n.expressions.length === 0 ? { kind: 'string', value: n.quasis.map((q) => q.value.cooked).join('') } : { kind: 'other' };
    case 'ArrayExpression':
      return { kind: 'seq', items: n.elements.map((x) => (x && x.type !== 'SpreadElement' ? jsConst(x) : { kind: 'other' })) };
    case 'ObjectExpression': {
      const entries: Array<[string, ConstValue]> = [];
      for (const p of n.properties) {
        if (p.type !== 'Property' || p.computed) continue;
        const k = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : undefined;
        if (k !== undefined) entries.push([k, jsConst(p.value)]);
      }
      return { kind: 'object', entries };
    }
    case 'BinaryExpression':
      return JS_COMPARISONS.has(n.operator) ? { kind: 'boolish' } : { kind: 'other' };
    case 'LogicalExpression':
      return { kind: 'boolish' };
    case 'AwaitExpression':
      return jsConst(n.argument);
    case 'ParenthesizedExpression':
      return jsConst(n.expression);
    default:
      return { kind: 'other' };
  }
}

/** Return expressions of a JS function's own body (an arrow's expression body counts). */
export function jsReturnExprs(f: JsFunction): Expression[] {
  if (f.body.type !== 'BlockStatement') return [f.body];
  const out: Expression[] = [];
  eachOwnNode(f.body, (n) => {
    if (n.type === 'ReturnStatement' && n.argument) out.push(n.argument);
  });
  return out;
}

/** Top-level functions of a module by name (declarations, `const f = () => …`, exported ones), and
 *  the default export's function under `default`. */
export function jsModuleFunctions(program: Program): Map<string, JsFunction | undefined> {
  // `undefined`: the name is exported, but not as a function of this module (`export default imported`)
  const out = new Map<string, JsFunction | undefined>();
  const decl = (d: AnyNode | null | undefined): void => {
    if (!d) return;
    if (d.type === 'FunctionDeclaration' && d.id) out.set(d.id.name, d);
    if (d.type === 'VariableDeclaration')
      for (const v of d.declarations) if (v.id.type === 'Identifier' && isJsFunction(v.init)) out.set(v.id.name, v.init);
  };
  for (const st of program.body) {
    decl(st);
    if (st.type === 'ExportNamedDeclaration') decl(st.declaration);
    if (st.type === 'ExportDefaultDeclaration') {
      const d = st.declaration;
      if (isJsFunction(d)) { out.set('default', d); if (d.id) out.set(d.id.name, d); }
      else if (d.type === 'Identifier') out.set('default', out.get(d.name));
    }
    // module.exports = fn / { a, b } ; exports.x = fn
    if (st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression') {
      const l = st.expression.left;
      const r = st.expression.right;
      const target = l.type === 'MemberExpression' && l.object.type === 'Identifier' ? l.object.name : undefined;
      const isModuleExports = target === 'module' && propName(l) === 'exports';
      if (isModuleExports && isJsFunction(r)) out.set('default', r);
      if (isModuleExports && r.type === 'Identifier' && out.has(r.name)) out.set('default', out.get(r.name));
      const exported = target === 'exports' ? propName(l) : undefined;
      if (exported !== undefined && isJsFunction(r)) out.set(exported, r);
    }
  }
  return out;
}

/** The functions of a JS/TS module on its verdict path: the entry function (`exportName`, default:
 *  the default export, else every exported function) and the same-file functions whose call result
 *  it returns (`return judge(state)`), transitively. */
export function jsVerdictFunctions(program: Program, exportName?: string): Set<JsFunction> {
  const fns = jsModuleFunctions(program);
  const start: JsFunction[] = [];
  const def = fns.get('default');
  if (exportName && fns.has(exportName)) { const f = fns.get(exportName); if (f) start.push(f); }
  else if (def) start.push(def);
  else for (const name of exportedNames(program)) { const f = fns.get(name); if (f) start.push(f); }
  // the public methods and getters of an exported class (`export class Scorer { score(r) {…} }`): the harness calls them
  if (!exportName && !def) for (const m of exportedClassMethods(program)) start.push(m);
  const out = new Set<JsFunction>();
  const queue = [...start];
  while (queue.length) {
    const f = queue.pop()!;
    if (out.has(f)) continue;
    out.add(f);
    for (const r of jsReturnExprs(f)) {
      let e = r;
      while (e.type === 'AwaitExpression') e = e.argument;
      if (e.type === 'CallExpression' && e.callee.type === 'Identifier') {
        const g = fns.get(e.callee.name);
        if (g) queue.push(g);
      }
    }
  }
  return out;
}

/** Methods and getters of `export class` declarations, other than the constructor, setters and `#private` members
 *  (TypeScript's `private` is blanked with the types before parsing, so such a method counts as public). */
function exportedClassMethods(program: Program): JsFunction[] {
  const out: JsFunction[] = [];
  for (const st of program.body) {
    const d = st.type === 'ExportNamedDeclaration' ? st.declaration : undefined;
    if (d?.type !== 'ClassDeclaration') continue;
    for (const m of d.body.body) {
      if (m.type !== 'MethodDefinition' || (m.kind !== 'method' && m.kind !== 'get') || m.key.type === 'PrivateIdentifier') continue;
      out.push(m.value);
    }
  }
  return out;
}

function exportedNames(program: Program): string[] {
  const out: string[] = [];
  for (const st of program.body) {
    if (st.type === 'ExportNamedDeclaration') {
      const d = st.declaration;
      if (d?.type === 'FunctionDeclaration' && d.id) out.push(d.id.name);
      if (d?.type === 'VariableDeclaration') for (const v of d.declarations) if (v.id.type === 'Identifier') out.push(v.id.name);
      for (const s of st.specifiers ?? []) if (s.local?.type === 'Identifier') out.push(s.local.name);
    }
    if (st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression') {
      const l = st.expression.left;
      const r = st.expression.right;
      if (l.type === 'MemberExpression' && l.object.type === 'Identifier' && l.object.name === 'module' && r.type === 'ObjectExpression')
        for (const p of r.properties) if (p.type === 'Property' && p.value.type === 'Identifier') out.push(p.value.name);
    }
  }
  return out;
}
