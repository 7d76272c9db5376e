/**
 * The JS/TS form of kind-check.ts: the members of the task record that the function a JS/TS dispatch
 * routes a kind to reads on every run, when the dispatch hands it the record or a member of it
 * (`urlMatch(page, task.eval)` then `spec.url.replace(…)`, `({ expected }) => expected.value`).
 *
 * In JS a missing member reads as `undefined`: reading a member of it throws TypeError, and using it
 * compares the agent's result with `undefined`. A read counts when it runs on every path through the
 * function (not in a callback, a branch not every path takes, the right of `&&`/`||`/`??`, after an
 * early return that tests the record) and the function never tests it or a member it is read from:
 * optional chaining, `??`/`||` defaults, truthiness and `=== undefined` tests, a comparison with a
 * literal (`spec.mode === "strict"`, a `switch`), `typeof`, `"k" in x`, `hasOwnProperty`, defaults in
 * destructuring and writes all make the member optional. A read in a
 * `try` block does not count, nor a value handed to `console` only. A check written in a `case` body of the
 * dispatch (no handler called with the record) is read the same way: the case's statements, with the record's
 * root (the parameter or local the switch reads) as the record.
 */
import path from 'node:path';
import type { AnyNode, Identifier, ObjectPattern, Pattern, Program } from 'acorn';
import type { SourceFile } from '../core/source.js';
import { rel } from '../core/paths.js';
import { programOfFile as programOf } from '../lang/js/parse.js';
import { jsScopes, type JsBinding, type JsScopes } from '../lang/js/scope.js';
import { forEachChild, propName, unwrapExpr, type JsFunction } from '../lang/js/nodes.js';
import { isJsFunction } from '../lang/js/flow.js';
import { joinPointer, type JsonValueRef } from '../lang/json/parse.js';
import { kindTarget } from './harness/kind-adapter.js';
import type { KindTarget } from './harness/kind-sites.js';
import type { KindFieldProblem } from './kind-check.js';
import type { VerifierEntry } from './types.js';


const EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx'];

/** The project file a relative specifier names (`./checks`, `./checks.js` for `checks.ts`, `./checks/index`). */
function resolveModule(files: ReadonlyMap<string, SourceFile>, from: string, spec: string): SourceFile | undefined {
  const base = path.resolve(path.dirname(from), spec);
  const bare = base.replace(/\.[cm]?[jt]sx?$/, '');
  for (const c of [base, ...EXTS.map((e) => bare + e), ...EXTS.map((e) => path.join(base, `index${e}`))]) {
    const f = files.get(c);
    if (f) return f;
  }
  return undefined;
}

/** The function a module defines under a name (declaration, `const f = …`), or exports under one
 *  (`export { f as g }`, `export default`, `module.exports = { g }`, `exports.g = …`). */
function functionNamed(program: Program, name: string, exported: boolean, depth = 0): JsFunction | undefined {
  if (depth > 3) return undefined;
  const local = (n: string): JsFunction | undefined => functionNamed(program, n, false, depth + 1);
  const value = (e: AnyNode | null | undefined): JsFunction | undefined => {
    if (!e) return undefined;
    const x = unwrapExpr(e);
    if (isJsFunction(x)) return x;
    return x.type === 'Identifier' ? local(x.name) : undefined;
  };
  for (const st0 of program.body) {
    if (exported && st0.type === 'ExportDefaultDeclaration' && name === 'default') return value(st0.declaration as AnyNode);
    if (exported && st0.type === 'ExportNamedDeclaration' && !st0.source) {
      for (const sp of st0.specifiers) {
        const ex = sp.exported.type === 'Identifier' ? sp.exported.name : String(sp.exported.value);
        if (ex === name && sp.local.type === 'Identifier') return local(sp.local.name);
      }
    }
    const st = st0.type === 'ExportNamedDeclaration' && st0.declaration ? st0.declaration : st0;
    if (st.type === 'FunctionDeclaration' && st.id?.name === name) return st;
    if (st.type === 'VariableDeclaration') {
      for (const d of st.declarations) if (d.id.type === 'Identifier' && d.id.name === name && d.init) return value(d.init);
    }
    // CommonJS: `module.exports = { name }`, `module.exports.name = …`, `exports.name = …`, `module.exports = fn`
    if (exported && st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression' && st.expression.operator === '=') {
      const left = st.expression.left;
      const right = st.expression.right;
      const lt = left.type === 'MemberExpression' ? left : undefined;
      const isModuleExports = (m: AnyNode) => m.type === 'MemberExpression' && m.object.type === 'Identifier' && m.object.name === 'module' && propName(m) === 'exports';
      if (lt && isModuleExports(lt)) {
        if (name === 'default' && !(right.type === 'ObjectExpression')) return value(right);
        if (right.type === 'ObjectExpression') {
          for (const p of right.properties) {
            if (p.type === 'Property' && !p.computed && p.key.type === 'Identifier' && p.key.name === name) return value(p.value);
          }
        }
      } else if (lt && propName(lt) === name && ((lt.object.type === 'Identifier' && lt.object.name === 'exports') || isModuleExports(lt.object))) return value(right);
    }
  }
  return undefined;
}

/** The function a target names, in its dispatch file or the module it is imported from. */
function targetFunction(files: ReadonlyMap<string, SourceFile>, dispatch: string, t: KindTarget): { file: SourceFile; program: Program; fn: JsFunction } | undefined {
  const df = files.get(dispatch);
  if (!df) return undefined;
  if (t.module) {
    const mf = resolveModule(files, dispatch, t.module.from);
    const mp = mf && programOf(mf);
    const fn = mp && t.module.imported !== '*' ? functionNamed(mp, t.module.imported, true) : undefined;
    return mf && mp && fn ? { file: mf, program: mp, fn } : undefined;
  }
  const p = programOf(df);
  if (!p) return undefined;
  if (t.at !== undefined) {
    let found: JsFunction | undefined;
    const rec = (n: AnyNode) => {
      if (found || n.end <= t.at! || n.start > t.at!) return;
      if (isJsFunction(n) && n.start === t.at) found = n;
      else forEachChild(n, rec);
    };
    rec(p);
    return found ? { file: df, program: p, fn: found } : undefined;
  }
  const fn = functionNamed(p, t.qualname, false);
  return fn ? { file: df, program: p, fn } : undefined;
}

/** A check written in a `case` body (or an `if` branch) of the dispatch: its statements, the function holding the switch,
 *  and the identifier that declares the record's root (a parameter or a local). */
function inlineCase(files: ReadonlyMap<string, SourceFile>, dispatch: string, at: NonNullable<KindTarget['inline']>): { file: SourceFile; program: Program; fn: JsFunction; body: readonly AnyNode[]; root: Identifier | ObjectPattern; what: 'case' | 'if' } | undefined {
  const df = files.get(dispatch);
  const p = df && programOf(df);
  if (!df || !p) return undefined;
  let fn: JsFunction | undefined;
  let body: readonly AnyNode[] | undefined;
  let root: Identifier | ObjectPattern | undefined;
  let what: 'case' | 'if' = 'case';
  const rec = (n: AnyNode, inFn: JsFunction | undefined) => {
    if ((n.type === 'Identifier' || n.type === 'ObjectPattern') && n.start === at.root) root = n;
    if (n.type === 'SwitchCase' && n.start === at.at) [fn, body, what] = [inFn, n.consequent, 'case'];
    // a branch of an `if` chain on the kind
    if (n.type === 'IfStatement' && n.consequent.start === at.at) [fn, body, what] = [inFn, n.consequent.type === 'BlockStatement' ? n.consequent.body : [n.consequent], 'if'];
    const f = isJsFunction(n) ? n : inFn;
    forEachChild(n, (k) => rec(k, f));
  };
  rec(p, undefined);
  return fn && body && root ? { file: df, program: p, fn, body, root, what } : undefined;
}

/** Member paths of the record a `case` body reads on every run through it (as requiredJsReads does for a handler). */
function inlineReads(program: Program, fn: JsFunction, body: readonly AnyNode[], root: Identifier | ObjectPattern): Map<string, AnyNode> {
  const sc = jsScopes(program);
  // a destructured record (`function evaluate({ eval: spec }, page)`): each name it binds, at its member path
  const roots = new Map<Identifier, string[]>();
  if (root.type === 'ObjectPattern') bindPattern(root, [], roots, []);
  else roots.set(root, []);
  const paths = new PathOf(sc, roots, new Set(root.type === 'Identifier' ? [root] : []));
  const tested = testedPaths(fn, paths);
  const reads: Read[] = [];
  blockReads(body, paths, reads);
  const out = new Map<string, AnyNode>();
  for (const r of reads) {
    if (!r.path.length) continue;
    if ([...tested].some((t) => t.length <= r.path.length && t.every((k, i) => r.path[i] === k))) continue;
    const k = JSON.stringify(r.path);
    if (!out.has(k)) out.set(k, r.node);
  }
  return out;
}

interface Read {
  path: string[];
  node: AnyNode;
}

/** The names a parameter pattern binds, each at its member path of the record (`{ eval: { url } }` → url:
 *  eval.url); a nested pattern reads the member it destructures, which throws when that member is missing. */
function bindPattern(p: Pattern, base: string[], roots: Map<Identifier, string[]>, derefs: Read[]): void {
  if (p.type === 'Identifier') roots.set(p, base);
  else if (p.type === 'ObjectPattern') {
    if (base.length) derefs.push({ path: base, node: p });
    for (const prop of p.properties) {
      if (prop.type !== 'Property') continue;
      const k = !prop.computed && prop.key.type === 'Identifier' ? prop.key.name : prop.key.type === 'Literal' && typeof prop.key.value === 'string' ? prop.key.value : undefined;
      // a default makes the member optional
      if (k !== undefined && prop.value.type !== 'AssignmentPattern') bindPattern(prop.value, [...base, k], roots, derefs);
    }
  }
}

/** Member paths of the record the function reads on every run, with the first read of each. */
function requiredJsReads(program: Program, fn: JsFunction, args: NonNullable<KindTarget['args']>): Map<string, AnyNode> {
  const sc = jsScopes(program);
  // the parameters the record (or a member) is handed to: name → path; a destructured one, each name it binds
  const roots = new Map<Identifier, string[]>();
  const derefs: Read[] = [];
  const direct = new Set<Identifier>();
  for (const a of args) {
    const p = fn.params[a.index];
    if (p) bindPattern(p as Pattern, a.path, roots, derefs);
    if (p?.type === 'Identifier') direct.add(p);
  }
  const out = new Map<string, AnyNode>();
  if (!roots.size && !derefs.length) return out;
  const paths = new PathOf(sc, roots, direct);
  const tested = testedPaths(fn, paths);
  const reads: Read[] = [...derefs];
  if (fn.body.type === 'BlockStatement') blockReads(fn.body.body, paths, reads);
  else exprReads(fn.body, paths, reads, false);
  for (const r of reads) {
    if (!r.path.length) continue;
    if ([...tested].some((t) => t.length <= r.path.length && t.every((k, i) => r.path[i] === k))) continue;
    const k = JSON.stringify(r.path);
    if (!out.has(k)) out.set(k, r.node);
  }
  return out;
}

/** The record path an expression holds: a root parameter, a member of one, or a `const` holding one. */
class PathOf {
  constructor(readonly sc: JsScopes, readonly roots: ReadonlyMap<Identifier, string[]>, readonly direct: ReadonlySet<Identifier>) {}
  of(e: AnyNode, depth = 0): string[] | undefined {
    if (depth > 8) return undefined;
    const x = unwrapExpr(e);
    if (x.type === 'Identifier') {
      const b = this.sc.resolve(x);
      return b ? this.binding(b, depth) : undefined;
    }
    if (x.type === 'MemberExpression') {
      const k = !x.computed ? propName(x) : x.property.type === 'Literal' && typeof x.property.value === 'string' ? x.property.value : undefined;
      if (k === undefined) return undefined;
      const base = this.of(x.object, depth + 1);
      return base && [...base, k];
    }
    return undefined;
  }
  private binding(b: JsBinding, depth: number): string[] | undefined {
    const r = this.roots.get(b.id);
    if (r) return r;
    if (b.kind !== 'const') return undefined;
    if (b.init) return this.of(b.init, depth + 1);
    // `const { value } = spec`
    const d = b.decl;
    if (d.type !== 'VariableDeclarator' || !d.init || d.id.type !== 'ObjectPattern') return undefined;
    const base = this.of(d.init, depth + 1);
    const inner = base && patternPath(d.id, b.id);
    return inner && [...base!, ...inner];
  }
  /** Whether the expression is a parameter the record (or a member) is handed to as a whole: a use of it is not a member read. */
  isRoot(e: AnyNode): boolean {
    const x = unwrapExpr(e);
    const b = x.type === 'Identifier' ? this.sc.resolve(x) : undefined;
    return !!b && this.direct.has(b.id);
  }
}

/** The member path of `id` in a destructuring pattern; undefined through a default. */
function patternPath(p: Pattern, id: Identifier): string[] | undefined {
  if (p === id) return [];
  if (p.type !== 'ObjectPattern') return undefined;
  for (const prop of p.properties) {
    if (prop.type !== 'Property' || prop.value.type === 'AssignmentPattern') continue;
    const k = !prop.computed && prop.key.type === 'Identifier' ? prop.key.name : prop.key.type === 'Literal' && typeof prop.key.value === 'string' ? prop.key.value : undefined;
    const sub = k === undefined ? undefined : patternPath(prop.value, id);
    if (sub) return [k!, ...sub];
  }
  return undefined;
}

/** A literal a member is compared with (`spec.mode === "strict"`, `spec.exact === true`): a test of an option, not a use. */
const isLiteral = (e: AnyNode): boolean => {
  const x = unwrapExpr(e);
  return x.type === 'Literal' || (x.type === 'TemplateLiteral' && x.expressions.length === 0);
};

const isNullish = (e: AnyNode): boolean => {
  const x = unwrapExpr(e);
  return (x.type === 'Identifier' && x.name === 'undefined') || (x.type === 'Literal' && x.value === null) || (x.type === 'UnaryExpression' && x.operator === 'void');
};

/** Paths the function tests anywhere (nested functions included): reads of them, or of members under them, are optional. */
function testedPaths(fn: JsFunction, paths: PathOf): string[][] {
  const out: string[][] = [];
  const add = (e: AnyNode | null | undefined) => {
    if (!e) return;
    const x = unwrapExpr(e);
    if (x.type === 'UnaryExpression' && x.operator === '!') return add(x.argument);
    const p = paths.of(x);
    if (p) out.push(p);
  };
  const chainPaths = (n: AnyNode) => {
    const p = n.type === 'MemberExpression' || n.type === 'Identifier' ? paths.of(n) : undefined;
    if (p) out.push(p);
    forEachChild(n, chainPaths);
  };
  const rec = (n: AnyNode) => {
    switch (n.type) {
      case 'IfStatement':
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'ConditionalExpression':
        add(n.test);
        break;
      case 'ForStatement':
        add(n.test);
        break;
      case 'SwitchStatement':
        // `switch (spec.mode)`: a missing mode takes the default case
        add(n.discriminant);
        break;
      case 'LogicalExpression':
        add(n.left);
        break;
      case 'UnaryExpression':
        if (n.operator === '!' || n.operator === 'typeof' || n.operator === 'delete') add(n.argument);
        break;
      case 'BinaryExpression':
        if (/^[!=]==?$/.test(n.operator) && (isNullish(n.right) || isLiteral(n.right))) add(n.left);
        if (/^[!=]==?$/.test(n.operator) && (isNullish(n.left) || isLiteral(n.left))) add(n.right);
        if (n.operator === 'in') {
          const base = paths.of(n.right);
          const k = unwrapExpr(n.left);
          if (base && k.type === 'Literal' && typeof k.value === 'string') out.push([...base, k.value]);
        }
        break;
      case 'ChainExpression':
        chainPaths(n.expression);
        break;
      case 'AssignmentExpression':
        add(n.left);
        break;
      case 'CallExpression': {
        // `Boolean(x)`, `x.hasOwnProperty("k")`, `Object.hasOwn(x, "k")`
        const c = n.callee;
        if (c.type === 'Identifier' && c.name === 'Boolean') add(n.arguments[0]);
        const lit = (a: AnyNode | undefined) => (a && a.type === 'Literal' && typeof a.value === 'string' ? a.value : undefined);
        if (c.type === 'MemberExpression' && propName(c) === 'hasOwnProperty') {
          const base = paths.of(c.object);
          const k = lit(n.arguments[0]);
          if (base && k !== undefined) out.push([...base, k]);
        }
        if (c.type === 'MemberExpression' && propName(c) === 'hasOwn' && n.arguments[0]) {
          const base = paths.of(n.arguments[0]);
          const k = lit(n.arguments[1]);
          if (base && k !== undefined) out.push([...base, k]);
        }
        break;
      }
      default:
        break;
    }
    forEachChild(n, rec);
  };
  rec(fn.body);
  return out;
}

/** Does a statement leave the function on some path (a return or throw outside nested functions)? */
function exits(n: AnyNode): boolean {
  if (n.type === 'ReturnStatement' || n.type === 'ThrowStatement') return true;
  if (isJsFunction(n) || n.type === 'ClassDeclaration' || n.type === 'ClassExpression') return false;
  let hit = false;
  forEachChild(n, (c) => {
    if (!hit && exits(c)) hit = true;
  });
  return hit;
}

/** Does an expression mention a record path? */
function mentions(n: AnyNode, paths: PathOf): boolean {
  if ((n.type === 'Identifier' || n.type === 'MemberExpression') && paths.of(n)) return true;
  let hit = false;
  forEachChild(n, (c) => {
    if (!hit && mentions(c, paths)) hit = true;
  });
  return hit;
}

/** Reads on every path through a list of statements; whether some path leaves in it. */
function blockReads(stmts: readonly AnyNode[], paths: PathOf, out: Read[]): boolean {
  for (const st of stmts) {
    const left = statementReads(st, paths, out);
    // an early return on a test of something else (`if (!page) return 0`): the runs that go on read the rest
    if (left && st.type === 'IfStatement' && !st.alternate && !mentions(st.test, paths)) continue;
    if (left) return true;
  }
  return false;
}

function statementReads(st: AnyNode, paths: PathOf, out: Read[]): boolean {
  switch (st.type) {
    case 'ExpressionStatement':
      exprReads(st.expression, paths, out, false);
      return false;
    case 'VariableDeclaration':
      for (const d of st.declarations) {
        if (!d.init) continue;
        exprReads(d.init, paths, out, false);
        // `const { value } = spec` reads a member of spec: it throws when spec is missing
        const p = d.id.type === 'ObjectPattern' ? paths.of(d.init) : undefined;
        if (p && p.length) out.push({ path: p, node: d.init });
      }
      return false;
    case 'ReturnStatement':
    case 'ThrowStatement':
      if (st.argument) exprReads(st.argument, paths, out, false);
      return true;
    case 'BlockStatement':
      return blockReads(st.body, paths, out);
    case 'IfStatement': {
      exprReads(st.test, paths, out, true);
      const a: Read[] = [];
      const ea = statementReads(st.consequent, paths, a);
      if (st.alternate) {
        const b: Read[] = [];
        const eb = statementReads(st.alternate, paths, b);
        const inB = new Set(b.map((r) => JSON.stringify(r.path)));
        for (const r of a) if (inB.has(JSON.stringify(r.path))) out.push(r);
        return ea || eb;
      }
      return ea;
    }
    case 'ForOfStatement':
    case 'ForInStatement':
      exprReads(st.right, paths, out, false);
      return exits(st.body);
    case 'ForStatement':
      if (st.init) exprReads(st.init, paths, out, false);
      return exits(st.body);
    case 'WhileStatement':
      exprReads(st.test, paths, out, true);
      return exits(st.body);
    case 'SwitchStatement':
      exprReads(st.discriminant, paths, out, true);
      return exits(st);
    default:
      // try blocks (a catch decides), labelled statements, declarations: no reads counted
      return exits(st);
  }
}

/** Reads that run whenever the expression runs. `tested`: the value itself is only tested (its members are read). */
function exprReads(e: AnyNode, paths: PathOf, out: Read[], tested: boolean): void {
  const x = e;
  if (isJsFunction(x) || x.type === 'ClassExpression' || x.type === 'ChainExpression') return;
  switch (x.type) {
    case 'ParenthesizedExpression':
    case 'AwaitExpression':
      return exprReads(x.type === 'AwaitExpression' ? x.argument : x.expression, paths, out, tested);
    case 'Identifier': {
      const p = tested || paths.isRoot(x) ? undefined : paths.of(x);
      if (p && p.length) out.push({ path: p, node: x });
      return;
    }
    case 'MemberExpression': {
      const p = paths.of(x);
      if (p && !tested) out.push({ path: p, node: x });
      // the object is read a member of: it must be there
      exprReads(x.object, paths, out, false);
      if (x.computed) exprReads(x.property, paths, out, false);
      return;
    }
    case 'LogicalExpression':
      return exprReads(x.left, paths, out, true);
    case 'ConditionalExpression':
      return exprReads(x.test, paths, out, true);
    case 'UnaryExpression':
      if (x.operator === 'typeof' || x.operator === 'delete' || x.operator === 'void') return;
      return exprReads(x.argument, paths, out, x.operator === '!' || tested);
    case 'BinaryExpression':
      if (/^[!=]==?$/.test(x.operator) && (isNullish(x.left) || isNullish(x.right) || isLiteral(x.left) || isLiteral(x.right))) {
        exprReads(x.left, paths, out, true);
        exprReads(x.right, paths, out, true);
        return;
      }
      exprReads(x.left, paths, out, false);
      exprReads(x.right, paths, out, false);
      return;
    case 'AssignmentExpression':
      if (x.operator !== '=') return;
      if (x.left.type === 'MemberExpression') exprReads(x.left.object, paths, out, false);
      exprReads(x.right, paths, out, false);
      return;
    case 'CallExpression': {
      const c = x.callee;
      // a value only logged does not decide anything
      if (c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'console') return;
      if (c.type === 'Identifier' && c.name === 'Boolean') return;
      // `spec.text.trim()`: a method of the member, not a member of the task
      if (c.type === 'MemberExpression') {
        exprReads(c.object, paths, out, false);
        if (c.computed) exprReads(c.property, paths, out, false);
      } else if (c.type !== 'Super') exprReads(c, paths, out, false);
      for (const a of x.arguments) exprReads(a.type === 'SpreadElement' ? a.argument : a, paths, out, false);
      return;
    }
    case 'Property':
      if (x.computed) exprReads(x.key, paths, out, false);
      return exprReads(x.value, paths, out, false);
    default:
      forEachChild(x, (c) => exprReads(c, paths, out, tested && x.type === 'SequenceExpression'));
  }
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

const memo = new WeakMap<JsFunction, Map<string, Map<string, AnyNode>>>();

/** Members the function a JS/TS dispatch routes the entry to reads of the task, that the task lacks. */
export function jsKindFieldProblems(entry: VerifierEntry, files: ReadonlyMap<string, SourceFile>): Array<KindFieldProblem & { related: { file: SourceFile; start: number; end: number } }> {
  const t = kindTarget(entry);
  const via = entry.routes?.[0]?.via;
  const task = entry.task;
  if (!t || !via || via.file.endsWith('.py') || !task.json || typeof task.json !== 'object') return [];
  const followed = t.args ? targetFunction(files, via.file, t) : undefined;
  const inline = !followed && t.inline ? inlineCase(files, via.file, t.inline) : undefined;
  const found = followed ?? inline;
  if (!found) return [];
  let byArgs = memo.get(found.fn);
  if (!byArgs) memo.set(found.fn, (byArgs = new Map()));
  const ak = inline ? `case@${t.inline!.at}` : JSON.stringify(t.args);
  let required = byArgs.get(ak);
  if (!required) {
    try {
      required = inline ? inlineReads(inline.program, inline.fn, inline.body, inline.root) : requiredJsReads(found.program, found.fn, t.args!);
    } catch {
      // an evaluator vaudit cannot follow is taken to require nothing
      required = new Map();
    }
    byArgs.set(ak, required);
  }
  const out: Array<KindFieldProblem & { related: { file: SourceFile; start: number; end: number } }> = [];
  const seen = new Set<string>();
  const text = found.file.source.text;
  const name = inline ? (inline.what === 'case' ? `case ${JSON.stringify(entry.kind)}` : `the branch for ${JSON.stringify(entry.kind)}`) : t.module?.imported && t.module.imported !== 'default' ? t.module.imported : t.shown;
  for (const [k, node] of required) {
    const p = JSON.parse(k) as string[];
    const read = text.slice(node.start, node.end).replace(/\s+/g, ' ');
    const where = `${rel(task.suite.root, found.file.path)}:${found.file.source.positionAt(node.start).line}`;
    let v: unknown = task.json;
    let pointer = task.pointer ?? '';
    let ref: JsonValueRef | undefined = task.values.get(pointer);
    for (let i = 0; i < p.length; i++) {
      const here = p.slice(0, i + 1).join('.');
      let state: string | undefined;
      let key = '';
      // a member a JS/TS task record computes (not a literal): not known
      if (v === undefined) break;
      // a member of a string, number or list is `undefined` unless the type has it (`text.length`)
      if (v !== null && (typeof v !== 'object' || Array.isArray(v)) && p[i]! in Object(v)) break;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        key = p.slice(0, i).join('.');
        state = `\`${key}\` is ${kindOf(v)} in this task`;
      } else if (!Object.hasOwn(v, p[i]!)) {
        key = here;
        state = `this task has no \`${here}\``;
      }
      if (state !== undefined) {
        if (ref && !seen.has(key)) out.push({ kind: 'missingTaskField', at: ref, pointer: ref.pointer, data: { fn: name, read, where, state, effect: JS_EFFECT }, related: { file: found.file, start: node.start, end: node.end } });
        seen.add(key);
        break;
      }
      v = (v as Record<string, unknown>)[p[i]!];
      pointer = joinPointer(pointer, p[i]!);
      ref = task.values.get(pointer) ?? ref;
    }
  }
  return out;
}

/** What a missing member does to a JS evaluator (the message's `effect`). */
const JS_EFFECT = 'reads `undefined` there (a TypeError on the first member or method it takes of it, else a comparison of the agent\'s result with `undefined`), so the task is never graded as written: it crashes, or every agent gets the same verdict';
