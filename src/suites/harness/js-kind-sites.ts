/**
 * Where JS/TS harness code dispatches on a value a task record holds, to the code that grades it
 * (the JS/TS forms of kind-sites.ts):
 *
 *   switch (task.eval.type) { case "url_match": return urlMatch(task); … default: throw new Error(…) }
 *   if (spec.type === "exact") … else if (spec.type === "regex" || spec.type === "glob") … else …
 *   const CHECKS = { exact: exactMatch, fuzzy: fuzzyMatch };  CHECKS[task.check](task, page)
 *   const CHECKS = new Map([["exact", exactMatch], …]);       CHECKS.get(task.check)(task, page)
 *   class Checker { exact(spec) {…} fuzzy(spec) {…} run(task) { return this[task.check](task.spec); } }
 *   if (["a", "b"].includes(t.type)) …                          for (const t of task.evals) if (t === "a") …
 *   if (task.evals.includes("url_match")) …                     (independent membership tests)
 *
 * The record is a parameter of the function (`task`, a destructured `{ eval: { type } }`) or a JSON
 * document it parses (`JSON.parse(readFileSync(p))`, `require(p)` of a computed path); the value is a
 * member path of it, directly, through locals and destructuring, or one item of it at a time
 * (`for (const t of task.evals)`). What a value no case names meets is kept: an exception (a `default`
 * or `else` that throws, a lookup called without a test, a missing handler that throws) or nothing.
 * A dispatch counts when its cases hand the task to code (a call or `new` in most case bodies, or
 * functions as the map's values). Files that touch the DOM (`document.`, `window.`) and load no Node
 * module, and classic scripts (no import, export or require), are the app's browser code, not a harness.
 */
import type { AnyNode, Identifier, IfStatement, Pattern, Program, SwitchStatement } from 'acorn';
import { jsScopes, type JsBinding, type JsScopes } from '../../lang/js/scope.js';
import { forEachChild, propName, unwrapExpr, type JsFunction } from '../../lang/js/nodes.js';
import { isJsFunction } from '../../lang/js/flow.js';
import type { KindRoute, KindTarget } from './kind-sites.js';

/** Text every JS dispatch form needs: a string case, an equality with a string, `.includes(`, a Map, a computed lookup. */
export const JS_KIND_SCREEN = /\bcase\s+['"`]|[!=]==?\s*['"`]|['"`]\s*[!=]==?|\.includes\(|\bnew\s+Map\b|[\w)]\s*\[\s*[\w$]+(?:\??\.[\w$]+)+\s*\]|\bthis\s*\[\s*[\w$]+\s*\]|[\w)]\s*\[\s*(?:['"][\w$-]*['"]\s*\+|`[\w$-]*\$\{|[\w$.]+\s*\+\s*(?:['"]|[\w$]))|\bconst\s+[\w$]+\s*=\s*(?:`[\w$-]*\$\{|['"][\w$-]*['"]\s*\+)|[\w$]\s*\[\s*[\w$]+\s*\]\s*\(/;
/** Browser code of the app (not a harness): it touches the DOM and loads no Node or Playwright module
 *  (a harness may touch `window` inside a `page.evaluate` callback). */
const BROWSER = /\b(?:document|window)\s*\.\s*\w/;
const NODE = /\brequire\s*\(|\bfrom\s+['"](?:node:|fs|path|child_process|playwright|@playwright\/)|\bprocess\.(?:argv|env|exit)\b/;

const strip = unwrapExpr;

const strOf = (e: AnyNode | null | undefined): string | undefined => {
  if (!e) return undefined;
  const x = strip(e);
  if (x.type === 'Literal' && typeof x.value === 'string') return x.value;
  if (x.type === 'TemplateLiteral' && x.expressions.length === 0) return x.quasis[0]?.value.cooked ?? undefined;
  return undefined;
};

interface Ctx {
  file: string;
  text: string;
  sc: JsScopes;
  parents: Map<AnyNode, AnyNode>;
  line: (offset: number) => number;
}

/** Routes one JS/TS harness file takes. */
export function jsKindRoutes(file: string, program: Program, text: string): KindRoute[] {
  if (!JS_KIND_SCREEN.test(text) || (BROWSER.test(text) && !NODE.test(text))) return [];
  // a classic script (no import, export or require) shares a page's globals: it cannot load task files
  if (!program.body.some((st) => st.type === 'ImportDeclaration' || st.type.startsWith('Export')) && !/\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w/.test(text)) return [];
  const parents = new Map<AnyNode, AnyNode>();
  const fns: JsFunction[] = [];
  const rec = (n: AnyNode) => {
    if (isJsFunction(n)) fns.push(n);
    forEachChild(n, (c) => {
      parents.set(c, n);
      rec(c);
    });
  };
  rec(program);
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const line = (off: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const cx: Ctx = { file, text, sc: jsScopes(program), parents, line };
  const out: KindRoute[] = [];
  for (const fn of fns) {
    try {
      out.push(...functionRoutes(cx, fn));
    } catch {
      // a function vaudit cannot follow teaches nothing
    }
  }
  return out.filter((r) => r.cases.size >= 2);
}

/** The name a function is known by: its declaration, the variable, property or export holding it. */
function fnName(cx: Ctx, fn: JsFunction): string {
  if ((fn.type === 'FunctionDeclaration' || fn.type === 'FunctionExpression') && fn.id) return fn.id.name;
  const p = cx.parents.get(fn);
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name;
  if ((p?.type === 'Property' || p?.type === 'MethodDefinition') && !p.computed && p.key.type === 'Identifier') return p.key.name;
  return 'default';
}

/** The function a node is in. */
function enclosingFn(cx: Ctx, n: AnyNode): JsFunction | undefined {
  for (let p = cx.parents.get(n); p; p = cx.parents.get(p)) if (isJsFunction(p)) return p;
  return undefined;
}

/** The member path of `id` inside a destructuring pattern (`{ eval: { type } }` → ["eval", "type"]). */
function patternPath(p: Pattern | null | undefined, id: Identifier): string[] | undefined {
  if (!p) return undefined;
  if (p === id) return [];
  if (p.type === 'AssignmentPattern') return patternPath(p.left, id);
  if (p.type !== 'ObjectPattern') return undefined;
  for (const prop of p.properties) {
    if (prop.type !== 'Property') continue;
    const k = !prop.computed && prop.key.type === 'Identifier' ? prop.key.name : strOf(prop.key);
    if (k === undefined) continue;
    const sub = patternPath(prop.value, id);
    if (sub) return [k, ...sub];
  }
  return undefined;
}

/** A record root: a parameter, or a JSON document parsed or required from a computed path. */
function isRootInit(init: AnyNode): boolean {
  const x = strip(init);
  if (x.type !== 'CallExpression') return false;
  if (x.callee.type === 'MemberExpression' && x.callee.object.type === 'Identifier' && x.callee.object.name === 'JSON' && propName(x.callee) === 'parse') return true;
  return x.callee.type === 'Identifier' && x.callee.name === 'require' && !!x.arguments[0] && strOf(x.arguments[0]) === undefined;
}

/** The member path of an expression from a record root (`task.eval.type` → ["eval", "type"]). */
function memberPath(cx: Ctx, e: AnyNode, depth = 0): string[] | undefined {
  if (depth > 8) return undefined;
  const x = strip(e);
  if (x.type === 'Identifier') {
    const b = cx.sc.resolve(x);
    return b ? bindingPath(cx, b, depth) : undefined;
  }
  if (x.type === 'MemberExpression') {
    const k = x.computed ? strOf(x.property) : propName(x);
    if (k === undefined) return undefined;
    const base = memberPath(cx, x.object, depth + 1);
    return base && [...base, k];
  }
  return undefined;
}

function bindingPath(cx: Ctx, b: JsBinding, depth: number): string[] | undefined {
  if (b.kind === 'param') {
    const fn = isJsFunction(b.decl) ? b.decl : undefined;
    if (!fn) return undefined;
    for (const p of fn.params) {
      const path = patternPath(p as Pattern, b.id);
      if (path) return path;
    }
    return undefined;
  }
  if (b.kind !== 'const' && b.kind !== 'let' && b.kind !== 'var') return undefined;
  if (b.init) return isRootInit(b.init) ? [] : memberPath(cx, b.init, depth + 1);
  const d = b.decl;
  if (d.type === 'VariableDeclarator' && d.init && d.id.type === 'ObjectPattern') {
    const inner = patternPath(d.id, b.id);
    const base = isRootInit(d.init) ? [] : memberPath(cx, d.init, depth + 1);
    return inner && base && [...base, ...inner];
  }
  // `for (const task of tasks)`: each item of a list of records is a record (an item of a record's own
  // member list, `for (const t of task.evals)`, stays an item: see subjectOf)
  const loop = forOfOver(cx, d);
  if (loop && d.type === 'VariableDeclarator' && d.id === b.id && !memberPath(cx, loop.right, depth + 1)?.length) return [];
  return undefined;
}

/** The `for … of` whose declared variable this declarator is. */
function forOfOver(cx: Ctx, d: AnyNode) {
  const decl = d.type === 'VariableDeclarator' ? cx.parents.get(d) : undefined;
  const loop = decl ? cx.parents.get(decl) : undefined;
  return loop?.type === 'ForOfStatement' && loop.left === decl ? loop : undefined;
}

/** The dispatched value: a member path, or an item of one (`for (const t of task.evals)`). */
function subjectOf(cx: Ctx, e: AnyNode): { path: string[]; each: boolean } | undefined {
  const x = strip(e);
  const direct = memberPath(cx, x);
  if (direct && direct.length) return { path: direct, each: false };
  if (x.type !== 'Identifier') return undefined;
  const b = cx.sc.resolve(x);
  const d = b?.decl;
  const decl = d?.type === 'VariableDeclarator' ? cx.parents.get(d) : undefined;
  const loop = decl ? cx.parents.get(decl) : undefined;
  if (b && d?.type === 'VariableDeclarator' && d.id === b.id && loop?.type === 'ForOfStatement' && loop.left === decl) {
    const p = memberPath(cx, loop.right);
    return p && p.length ? { path: p, each: true } : undefined;
  }
  // `task.evals.forEach((t) => …)`, `.map(...)`
  if (b?.kind === 'param' && isJsFunction(b.decl) && b.decl.params[0] === b.id) {
    const call = cx.parents.get(b.decl);
    if (call?.type === 'CallExpression' && call.arguments[0] === b.decl && call.callee.type === 'MemberExpression' && /^(forEach|map|flatMap|filter|every|some)$/.test(propName(call.callee) ?? '')) {
      const p = memberPath(cx, call.callee.object);
      return p && p.length ? { path: p, each: true } : undefined;
    }
  }
  return undefined;
}

/** The node a record path starts from (the parameter, or the declarator of a parsed document), through
 *  locals, destructuring and the item of a member list: two paths from the same root are one record's. */
function rootOf(cx: Ctx, e: AnyNode, depth = 0): AnyNode | undefined {
  if (depth > 8) return undefined;
  const x = strip(e);
  if (x.type === 'MemberExpression') return rootOf(cx, x.object, depth + 1);
  if (x.type !== 'Identifier') return undefined;
  const b = cx.sc.resolve(x);
  if (!b) return undefined;
  if (b.kind === 'param') {
    if (!isJsFunction(b.decl)) return undefined;
    const p = b.decl.params.find((q) => patternPath(q as Pattern, b.id));
    if (p && p === b.id) {
      // `task.evals.forEach((t) => …)`: the item's root is the list's
      const call = cx.parents.get(b.decl);
      if (b.decl.params[0] === b.id && call?.type === 'CallExpression' && call.arguments[0] === b.decl && call.callee.type === 'MemberExpression' && /^(forEach|map|flatMap|filter|every|some)$/.test(propName(call.callee) ?? '')) return rootOf(cx, call.callee.object, depth + 1) ?? p;
    }
    return p;
  }
  if (b.kind !== 'const' && b.kind !== 'let' && b.kind !== 'var') return undefined;
  const d = b.decl;
  if (d.type !== 'VariableDeclarator') return undefined;
  const loop = forOfOver(cx, d);
  // the item of a list of records is its own root (no record path leads to the list)
  if (loop) return rootOf(cx, loop.right, depth + 1) ?? (memberPath(cx, loop.right)?.length ? undefined : d);
  if (!d.init) return undefined;
  return isRootInit(d.init) ? d : rootOf(cx, d.init, depth + 1);
}

/** The positional arguments of a call that are the record, or a member of it, from the dispatch's root. */
function argsOf(cx: Ctx, call: AnyNode, root: AnyNode | undefined): KindTarget['args'] {
  if (!root || (call.type !== 'CallExpression' && call.type !== 'NewExpression')) return undefined;
  const out: NonNullable<KindTarget['args']> = [];
  for (let i = 0; i < call.arguments.length; i++) {
    const a = call.arguments[i]!;
    if (a.type === 'SpreadElement') break;
    const p = memberPath(cx, a);
    if (p && rootOf(cx, a) === root) out.push({ index: i, path: p });
  }
  return out.length ? out : undefined;
}

/** Where a named target is defined: the module it is imported from, else this file. */
function moduleOf(cx: Ctx, id: Identifier): Pick<KindTarget, 'module'> {
  const m = cx.sc.resolve(id)?.module;
  return m && m.from.startsWith('.') ? { module: { from: m.from, imported: m.imported } } : {};
}

/** The code a branch hands the task to: the first call or `new` in it (its callee's name), or a function named as a value. */
function targetIn(cx: Ctx, body: AnyNode | readonly AnyNode[], root?: AnyNode): KindTarget | undefined {
  let found: KindTarget | undefined;
  const rec = (n: AnyNode) => {
    if (found) return;
    if (isJsFunction(n)) {
      found = { file: cx.file, qualname: fnName(cx, n), shown: fnName(cx, n), at: n.start };
      return;
    }
    if ((n.type === 'CallExpression' || n.type === 'NewExpression') && n.callee.type !== 'Super') {
      const c = strip(n.callee);
      const shown = c.type === 'Identifier' ? c.name : propName(c);
      if (shown && !/^(log|warn|error|info|debug|push|set|get|Error|TypeError|RangeError)$/.test(shown)) {
        found = { file: cx.file, qualname: shown, shown };
        // a function called by name: what it is handed of the record, and where it is defined
        if (n.type === 'CallExpression' && c.type === 'Identifier') {
          const args = argsOf(cx, n, root);
          found = { ...found, ...moduleOf(cx, c), ...(args ? { args } : {}) };
        }
        return;
      }
    }
    if (n.type === 'Identifier' && Array.isArray(body) === false && n === body) {
      const b = cx.sc.resolve(n);
      if (b && (b.kind === 'function' || b.kind === 'import' || (b.init && isJsFunction(b.init)))) found = { file: cx.file, qualname: n.name, shown: n.name, ...moduleOf(cx, n) };
      return;
    }
    forEachChild(n, rec);
  };
  for (const b of Array.isArray(body) ? body : [body as AnyNode]) rec(b);
  return found;
}

const throws = (body: readonly AnyNode[]): boolean => {
  let hit = false;
  const rec = (n: AnyNode) => {
    if (hit || isJsFunction(n)) return;
    if (n.type === 'ThrowStatement') hit = true;
    else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && /^(exit|fail)$/.test(propName(n.callee) ?? '')) hit = true;
    else forEachChild(n, rec);
  };
  body.forEach(rec);
  return hit;
};

/** Enough cases hand the task to code: a dispatch, not a label table. */
const dispatching = (targets: Array<KindTarget | undefined>) => targets.length >= 2 && targets.filter(Boolean).length * 2 >= targets.length;

function functionRoutes(cx: Ctx, fn: JsFunction): KindRoute[] {
  const out: KindRoute[] = [];
  const seenIfs = new Set<AnyNode>();
  const containment = new Map<string, { route: KindRoute; targets: Array<KindTarget | undefined> }>();
  const name = fnName(cx, fn);
  const rec = (n: AnyNode) => {
    if (n !== fn && isJsFunction(n)) return;
    if (n.type === 'SwitchStatement') {
      const r = switchRoute(cx, n, name);
      if (r) out.push(r);
    } else if (n.type === 'IfStatement' && !seenIfs.has(n)) {
      const r = ifChain(cx, n, name, seenIfs);
      if (r?.kind === 'chain') out.push(r.route);
      else if (r?.kind === 'contains') {
        const k = r.route.path.join('\0');
        const prev = containment.get(k);
        if (prev) {
          for (const [v, t] of r.route.cases) prev.route.cases.set(v, t);
          prev.targets.push(...r.route.cases.values());
        } else containment.set(k, { route: r.route, targets: [...r.route.cases.values()] });
      }
    } else if (n.type === 'MemberExpression' || n.type === 'CallExpression') {
      const r = lookupRoute(cx, n, fn, name);
      if (r) out.push(r);
    }
    forEachChild(n, rec);
  };
  rec(fn.body);
  for (const { route, targets } of containment.values()) if (dispatching(targets)) out.push(route);
  return out;
}

function switchRoute(cx: Ctx, n: SwitchStatement, fn: string): KindRoute | undefined {
  const s = subjectOf(cx, n.discriminant);
  if (!s) return undefined;
  const route: KindRoute = { file: cx.file, line: cx.line(n.start), ...s, cases: new Map(), otherwise: 'ignore', fn };
  const targets: Array<KindTarget | undefined> = [];
  const root = rootOf(cx, n.discriminant);
  const rootAt = rootOffset(root);
  let pending: string[] = [];
  for (const c of n.cases) {
    if (c.test) {
      const v = strOf(c.test);
      if (v === undefined) return undefined;
      pending.push(v);
    } else route.otherwise = throws(c.consequent) ? 'raise' : 'ignore';
    if (c.consequent.length === 0) continue; // falls through to the next case's body
    const t = targetIn(cx, c.consequent, root);
    if (pending.length) targets.push(t);
    // a check written in the case body: its statements are the handler (kept beside the target, which names
    // the first call, so that what the dispatch detection and the routes show stays the same)
    const inline = rootAt !== undefined && !t?.args && !t?.at && !t?.module ? { at: c.start, root: rootAt } : undefined;
    for (const v of pending) if (!route.cases.has(v)) route.cases.set(v, inline ? { ...(t ?? { file: cx.file, qualname: v, shown: v }), inline } : t);
    pending = [];
  }
  for (const v of pending) if (!route.cases.has(v)) route.cases.set(v, undefined);
  return dispatching(targets) ? route : undefined;
}

/** `S === "a"`, `"a" == S`, `S === "a" || S === "b"`, `["a", "b"].includes(S)`: the subject and its strings. */
function equalityTest(cx: Ctx, test: AnyNode): { subject: AnyNode; text: string; values: string[] } | undefined {
  const t = strip(test);
  if (t.type === 'BinaryExpression' && (t.operator === '===' || t.operator === '==')) {
    const l = strOf(t.left);
    const r = strOf(t.right);
    if (r !== undefined && l === undefined) return { subject: t.left, text: cx.text.slice(t.left.start, t.left.end), values: [r] };
    if (l !== undefined && r === undefined) return { subject: t.right, text: cx.text.slice(t.right.start, t.right.end), values: [l] };
    return undefined;
  }
  if (t.type === 'LogicalExpression' && t.operator === '||') {
    const a = equalityTest(cx, t.left);
    const b = equalityTest(cx, t.right);
    return a && b && a.text === b.text ? { ...a, values: [...a.values, ...b.values] } : undefined;
  }
  if (t.type === 'CallExpression' && t.callee.type === 'MemberExpression' && propName(t.callee) === 'includes' && t.arguments.length === 1) {
    const coll = strip(t.callee.object);
    const arr = coll.type === 'Identifier' ? constArray(cx, coll) : coll.type === 'ArrayExpression' ? coll : undefined;
    if (!arr) return undefined;
    const values = arr.elements.map((x) => strOf(x));
    const arg = t.arguments[0]!;
    return values.every((v) => v !== undefined) && values.length ? { subject: arg, text: cx.text.slice(arg.start, arg.end), values: values as string[] } : undefined;
  }
  return undefined;
}

/** A `const NAMES = ["a", "b"]` array of strings. */
function constArray(cx: Ctx, id: Identifier) {
  const b = cx.sc.resolve(id);
  const init = b?.kind === 'const' && b.init ? strip(b.init) : undefined;
  return init?.type === 'ArrayExpression' ? init : undefined;
}

type Chain = { kind: 'chain' | 'contains'; route: KindRoute };

/** Where an inline case's record starts: the parameter or declared name, or a destructuring pattern of one
 *  (`function evaluate({ eval: spec }, page)`, `const { eval: spec } = JSON.parse(…)`): js-kind-check binds
 *  each name the pattern declares to its member path. */
function rootOffset(root: AnyNode | undefined): number | undefined {
  if (root?.type === 'Identifier' || root?.type === 'ObjectPattern') return root.start;
  if (root?.type === 'VariableDeclarator' && (root.id.type === 'Identifier' || root.id.type === 'ObjectPattern')) return root.id.start;
  return undefined;
}

function ifChain(cx: Ctx, n: IfStatement, fn: string, seen: Set<AnyNode>): Chain | undefined {
  seen.add(n);
  // `if (task.evals.includes("url_match"))` with no `else`
  const t = strip(n.test);
  if (t.type === 'CallExpression' && t.callee.type === 'MemberExpression' && propName(t.callee) === 'includes' && t.arguments.length === 1 && !n.alternate) {
    const v = strOf(t.arguments[0]);
    const p = v !== undefined ? memberPath(cx, t.callee.object) : undefined;
    if (v !== undefined && p && p.length) return { kind: 'contains', route: { file: cx.file, line: cx.line(n.start), path: p, each: true, cases: new Map([[v, targetIn(cx, n.consequent, rootOf(cx, t.callee.object))]]), otherwise: 'ignore', fn } };
  }
  const first = equalityTest(cx, n.test);
  if (!first) return undefined;
  const s = subjectOf(cx, first.subject);
  if (!s) return undefined;
  const route: KindRoute = { file: cx.file, line: cx.line(n.start), ...s, cases: new Map(), otherwise: 'ignore', fn };
  const targets: Array<KindTarget | undefined> = [];
  const root = rootOf(cx, first.subject);
  const rootAt = rootOffset(root);
  const add = (values: string[], body: AnyNode) => {
    const tg = targetIn(cx, body, root);
    targets.push(tg);
    // a check written in the branch itself (as for a `case` body)
    const inline = rootAt !== undefined && !tg?.args && !tg?.at && !tg?.module ? { at: body.start, root: rootAt } : undefined;
    for (const v of values) if (!route.cases.has(v)) route.cases.set(v, inline ? { ...(tg ?? { file: cx.file, qualname: v, shown: v }), inline } : tg);
  };
  add(first.values, n.consequent);
  let alt = n.alternate;
  while (alt) {
    if (alt.type === 'IfStatement') {
      seen.add(alt);
      const e = equalityTest(cx, alt.test);
      if (!e || e.text !== first.text) return undefined;
      add(e.values, alt.consequent);
      alt = alt.alternate;
    } else {
      route.otherwise = throws([alt]) ? 'raise' : 'ignore';
      alt = null;
    }
  }
  // a chain of `if (x === "a") return …; if (x === "b") return …; throw …` (early returns, no `else`)
  if (!n.alternate) {
    const parent = cx.parents.get(n);
    const list = parent?.type === 'BlockStatement' || parent?.type === 'Program' ? (parent.body as AnyNode[]) : undefined;
    if (list && returnsOrThrows(n.consequent)) {
      for (let i = list.indexOf(n) + 1; i < list.length; i++) {
        const st = list[i]!;
        if (st.type === 'IfStatement' && !st.alternate && returnsOrThrows(st.consequent)) {
          const e = equalityTest(cx, st.test);
          if (!e || e.text !== first.text) break;
          seen.add(st);
          add(e.values, st.consequent);
          continue;
        }
        if (st.type === 'ThrowStatement') route.otherwise = 'raise';
        break;
      }
    }
  }
  return dispatching(targets) ? { kind: 'chain', route } : undefined;
}

const returnsOrThrows = (body: AnyNode): boolean => {
  const last = body.type === 'BlockStatement' ? body.body[body.body.length - 1] : body;
  return !!last && (last.type === 'ReturnStatement' || last.type === 'ThrowStatement');
};

/** A constant string: a literal, or a `const` bound to one. */
function constStr(cx: Ctx, e: AnyNode): string | undefined {
  const direct = strOf(e);
  if (direct !== undefined) return direct;
  const x = strip(e);
  if (x.type !== 'Identifier') return undefined;
  const b = cx.sc.resolve(x);
  return b?.kind === 'const' && b.init ? strOf(b.init) : undefined;
}

/** A computed key built from the dispatched value and constant text, which the handler names carry:
 *  `'check_' + kind`, `` `eval_${task.type}` ``, `PREFIX + name` (a `const` string), `kind + 'Check'`. */
interface Affix {
  subject: AnyNode;
  prefix: string;
  suffix: string;
}
function affixedKey(cx: Ctx, key: AnyNode): Affix | undefined {
  const k = strip(key);
  if (k.type === 'TemplateLiteral' && k.expressions.length === 1) {
    const prefix = k.quasis[0]?.value.cooked ?? '';
    const suffix = k.quasis[1]?.value.cooked ?? '';
    return prefix || suffix ? { subject: k.expressions[0]!, prefix, suffix } : undefined;
  }
  if (k.type !== 'BinaryExpression' || k.operator !== '+') return undefined;
  const parts: AnyNode[] = [];
  const flat = (e: AnyNode): void => {
    const x = strip(e);
    if (x.type === 'BinaryExpression' && x.operator === '+') {
      flat(x.left);
      flat(x.right);
    } else parts.push(x);
  };
  flat(k);
  const strs = parts.map((p) => constStr(cx, p));
  const holes = strs.flatMap((v, i) => (v === undefined ? [i] : []));
  if (holes.length !== 1) return undefined;
  const at = holes[0]!;
  const prefix = strs.slice(0, at).join('');
  const suffix = strs.slice(at + 1).join('');
  return prefix || suffix ? { subject: parts[at]!, prefix, suffix } : undefined;
}

/** The kind a handler named `name` takes under an affix (`check_exact` → `exact`); undefined when the name
 *  does not carry it (a helper of the table or class that is no handler). */
function affixed(name: string, affix: Affix | undefined): string | undefined {
  if (!affix) return name;
  const { prefix, suffix } = affix;
  if (name.length <= prefix.length + suffix.length || !name.startsWith(prefix) || !name.endsWith(suffix)) return undefined;
  return name.slice(prefix.length, name.length - suffix.length);
}

/** `CHECKS[S]` over a `const` object literal of string keys, `CHECKS.get(S)` over a `new Map([["a", f], …])`;
 *  S may carry constant text the keys carry too (`CHECKS['check_' + S]`, see affixedKey). */
function lookupRoute(cx: Ctx, n: AnyNode, fn: JsFunction, fnShown: string): KindRoute | undefined {
  let table: AnyNode | undefined;
  let key: AnyNode | undefined;
  let map = false;
  if (n.type === 'MemberExpression' && n.computed && strOf(n.property) === undefined) {
    table = n.object;
    key = n.property;
  } else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && propName(n.callee) === 'get' && n.arguments.length === 1) {
    table = n.callee.object;
    key = n.arguments[0];
    map = true;
  }
  if (!table || !key) return undefined;
  const tb = strip(table);
  key = heldKey(cx, key, fn);
  const affix = affixedKey(cx, key);
  if (affix) key = affix.subject;
  // `this[task.kind](task, page)` in a method: the class's other methods are the handlers, by name
  if (!map && tb.type === 'ThisExpression') return classRoute(cx, n, key, fn, fnShown, affix);
  if (tb.type !== 'Identifier') return undefined;
  const b = cx.sc.resolve(tb);
  // `Checks['check_' + kind](…)` over a class's static methods (or static arrow fields)
  if (!map && b?.kind === 'class' && b.decl.type === 'ClassDeclaration') {
    const pairs = staticHandlers(b.decl);
    if (!pairs) return undefined;
    if (affix) return affixedPairs(cx, n, fn, fnShown, tb.name, key, pairs, affix);
    return tableRoute(cx, n, fn, fnShown, tb.name, key, pairs);
  }
  const init = b?.kind === 'const' && b.init ? strip(b.init) : undefined;
  if (!init) return undefined;
  const pairs: Array<[string, AnyNode]> = [];
  if (map && init.type === 'NewExpression' && init.callee.type === 'Identifier' && init.callee.name === 'Map' && init.arguments.length === 0) {
    // `const CHECKS = new Map(); CHECKS.set('a', fa); …`: the entries the file registers, when the map is used for nothing else
    const filled = registeredEntries(cx, n, b!);
    if (!filled) return undefined;
    pairs.push(...filled);
    if (affix) return affixedPairs(cx, n, fn, fnShown, tb.name, key, pairs, affix);
    return tableRoute(cx, n, fn, fnShown, tb.name, key, pairs);
  }
  if (!map && init.type === 'ObjectExpression') {
    for (const p of init.properties) {
      if (p.type !== 'Property' || p.computed) return undefined;
      const k = p.key.type === 'Identifier' ? p.key.name : strOf(p.key);
      if (k === undefined) return undefined;
      pairs.push([k, p.value]);
    }
    if (affix) return affixedPairs(cx, n, fn, fnShown, tb.name, key, pairs, affix);
  } else if (map && init.type === 'NewExpression' && init.callee.type === 'Identifier' && init.callee.name === 'Map' && init.arguments[0]?.type === 'ArrayExpression') {
    for (const el of init.arguments[0].elements) {
      if (el?.type !== 'ArrayExpression' || el.elements.length !== 2) return undefined;
      const k = strOf(el.elements[0]);
      if (k === undefined || !el.elements[1] || el.elements[1].type === 'SpreadElement') return undefined;
      pairs.push([k, el.elements[1]]);
    }
    if (affix) return affixedPairs(cx, n, fn, fnShown, tb.name, key, pairs, affix);
  } else return undefined;
  return tableRoute(cx, n, fn, fnShown, tb.name, key, pairs);
}

/** A key held in a `const` of the same function (`const key = `eval_${task.eval.type}`; handlers[key](…)`):
 *  the expression it holds, when that is a member path, a template or a concatenation. */
function heldKey(cx: Ctx, key: AnyNode, fn: JsFunction): AnyNode {
  const k = strip(key);
  if (k.type !== 'Identifier') return key;
  const b = cx.sc.resolve(k);
  const init = b?.kind === 'const' && b.init ? strip(b.init) : undefined;
  if (!init || enclosingFn(cx, init) !== fn) return key;
  return init.type === 'MemberExpression' || init.type === 'TemplateLiteral' || (init.type === 'BinaryExpression' && init.operator === '+') ? init : key;
}

/** The static methods and static function-valued fields of a class, by name; undefined when the class
 *  extends another (its inherited statics are not known here) or a static member's name is computed. */
function staticHandlers(cls: AnyNode): Array<[string, AnyNode]> | undefined {
  if (cls.type !== 'ClassDeclaration' || cls.superClass) return undefined;
  const pairs: Array<[string, AnyNode]> = [];
  for (const m of cls.body.body) {
    if ((m.type !== 'MethodDefinition' && m.type !== 'PropertyDefinition') || !m.static) continue;
    if (m.type === 'MethodDefinition' && m.kind !== 'method') continue;
    const k = !m.computed && m.key.type === 'Identifier' ? m.key.name : strOf(m.key);
    if (k === undefined) return undefined;
    if (m.value && isJsFunction(strip(m.value))) pairs.push([k, m.value]);
  }
  return pairs;
}

/** The entries `M.set('key', handler)` calls register in a `new Map()` held in `b`; undefined when the map is
 *  used any other way than `.set` with a constant key, `.get` or `.has` (passed on, spread, filled in a loop). */
function registeredEntries(cx: Ctx, n: AnyNode, b: JsBinding): Array<[string, AnyNode]> | undefined {
  let root: AnyNode = n;
  for (let p = cx.parents.get(root); p; p = cx.parents.get(root)) root = p;
  const pairs: Array<[string, AnyNode]> = [];
  let other = false;
  const rec = (x: AnyNode) => {
    if (other) return;
    if (x.type === 'Identifier' && x.name === b.name && x !== b.id && cx.sc.resolve(x) === b) {
      const m = cx.parents.get(x);
      const call = m?.type === 'MemberExpression' && m.object === x ? cx.parents.get(m) : undefined;
      const verb = m?.type === 'MemberExpression' ? propName(m) : undefined;
      if (!call || call.type !== 'CallExpression' || call.callee !== m || (verb !== 'set' && verb !== 'get' && verb !== 'has')) other = true;
      else if (verb === 'set') {
        const k = call.arguments.length === 2 ? strOf(call.arguments[0]) : undefined;
        const v = call.arguments[1];
        // a registration inside a function may never run: only top-level `set` calls count
        if (k === undefined || !v || v.type === 'SpreadElement' || enclosingFn(cx, call)) other = true;
        else pairs.push([k, v]);
      }
    }
    forEachChild(x, rec);
  };
  rec(root);
  return other || pairs.length < 2 ? undefined : pairs;
}

/** The pairs whose keys carry the affix, keyed by the kind each takes (`check_exact` → `exact`). */
function affixedPairs(cx: Ctx, n: AnyNode, fn: JsFunction, fnShown: string, table: string, key: AnyNode, pairs: Array<[string, AnyNode]>, affix: Affix): KindRoute | undefined {
  const kept: Array<[string, AnyNode, string]> = [];
  for (const [k, v] of pairs) {
    const kind = affixed(k, affix);
    if (kind !== undefined) kept.push([kind, v, k]);
  }
  return tableRoute(cx, n, fn, fnShown, table, key, kept.map(([kind, v]) => [kind, v]), new Map(kept.map(([kind, , k]) => [kind, k])));
}

function tableRoute(cx: Ctx, n: AnyNode, fn: JsFunction, fnShown: string, table: string, key: AnyNode, pairs: Array<[string, AnyNode]>, names?: Map<string, string>): KindRoute | undefined {
  const s = subjectOf(cx, key);
  if (!s) return undefined;
  const targets = pairs.map(([, v]) => valueTarget(cx, v));
  if (!dispatching(targets)) return undefined;
  const route: KindRoute = { file: cx.file, line: cx.line(n.start), ...s, cases: new Map(), otherwise: lookupOtherwise(cx, n, fn, table), fn: fnShown };
  // `CHECKS[kind](task, page)`, `const check = CHECKS.get(kind); check(task.expected)`: what every handler is handed
  const call = lookupCall(cx, n, fn);
  const args = call ? argsOf(cx, call, rootOf(cx, key)) : undefined;
  pairs.forEach(([k], i) => {
    let t = targets[i];
    // a handler written inline in the table is known by its key there (`GRADERS.exit`)
    const name = names?.get(k) ?? k;
    if (t && t.at !== undefined && isJsFunction(strip(pairs[i]![1]))) t = { ...t, shown: /^[A-Za-z_$][\w$]*$/.test(name) ? `${table}.${name}` : `${table}[${JSON.stringify(name)}]` };
    route.cases.set(k, args && t ? { ...t, args } : t);
  });
  return route;
}

/** `this[S](…)` in a method of a class: a handler per kind, the class's methods named by the kinds (the
 *  constructor, static methods and the dispatching method itself aside). */
function classRoute(cx: Ctx, n: AnyNode, key: AnyNode, fn: JsFunction, fnShown: string, affix?: Affix): KindRoute | undefined {
  const method = cx.parents.get(fn);
  const body = method?.type === 'MethodDefinition' || method?.type === 'PropertyDefinition' ? cx.parents.get(method) : undefined;
  const cls = body?.type === 'ClassBody' ? cx.parents.get(body) : undefined;
  if (body?.type !== 'ClassBody' || !cls || (cls.type !== 'ClassDeclaration' && cls.type !== 'ClassExpression')) return undefined;
  const pairs: Array<[string, JsFunction]> = [];
  for (const m of body.body) {
    // methods, and fields holding an arrow or function (`check_text = async (e) => …`)
    const value = m.type === 'MethodDefinition' && m.kind === 'method' ? m.value : m.type === 'PropertyDefinition' && m.value && isJsFunction(strip(m.value)) ? (strip(m.value) as JsFunction) : undefined;
    if (!value || m.type === 'StaticBlock' || m.static || value === fn) continue;
    const k = !m.computed && m.key.type === 'Identifier' ? m.key.name : strOf(m.key);
    if (k !== undefined && affixed(k, affix) !== undefined) pairs.push([k, value]);
  }
  const s = subjectOf(cx, key);
  if (!s || pairs.length < 2) return undefined;
  const className = cls.id?.name ?? 'class';
  const route: KindRoute = { file: cx.file, line: cx.line(n.start), ...s, cases: new Map(), otherwise: lookupOtherwise(cx, n, fn, 'this'), fn: `${className}.${fnShown}` };
  const call = lookupCall(cx, n, fn);
  const args = call ? argsOf(cx, call, rootOf(cx, key)) : undefined;
  for (const [k, f] of pairs) route.cases.set(affixed(k, affix)!, { file: cx.file, qualname: `${className}.${k}`, shown: `${className}.${k}`, at: f.start, ...(args ? { args } : {}) });
  return route;
}

/** The call of a looked-up handler: the lookup called at once, or the one call of the const holding it. */
function lookupCall(cx: Ctx, n: AnyNode, fn: JsFunction): AnyNode | undefined {
  const p = cx.parents.get(n);
  if (p?.type === 'CallExpression' && p.callee === n) return p;
  const held = p?.type === 'VariableDeclarator' && p.init === n && p.id.type === 'Identifier' ? p.id : undefined;
  if (!held) return undefined;
  const b = cx.sc.resolve(held);
  const calls: AnyNode[] = [];
  const rec = (x: AnyNode) => {
    if (x !== fn && isJsFunction(x)) return;
    if (x.type === 'CallExpression' && x.callee.type === 'Identifier' && x.callee.name === held.name && cx.sc.resolve(x.callee) === b) calls.push(x);
    forEachChild(x, rec);
  };
  rec(fn.body);
  return calls.length === 1 ? calls[0] : undefined;
}

/** A map value that is code: a function, a class, or a name bound to one. */
function valueTarget(cx: Ctx, v: AnyNode): KindTarget | undefined {
  const x = strip(v);
  if (isJsFunction(x)) return targetIn(cx, x);
  if (x.type === 'ClassExpression') return { file: cx.file, qualname: x.id?.name ?? 'class', shown: x.id?.name ?? 'class' };
  if (x.type === 'Identifier') {
    const b = cx.sc.resolve(x);
    if (b && (b.kind === 'function' || b.kind === 'class' || b.kind === 'import' || !!b.module || (b.init && isJsFunction(strip(b.init))))) return { file: cx.file, qualname: x.name, shown: x.name, ...moduleOf(cx, x) };
    return undefined;
  }
  if (x.type === 'MemberExpression' && propName(x)) return { file: cx.file, qualname: propName(x)!, shown: cx.text.slice(x.start, x.end) };
  return undefined;
}

/** A handler a lookup falls back to: a function, another entry of the table (`T.generic`, `this.generic`),
 *  or a name bound to a function. */
function fallbackHandler(cx: Ctx, x0: AnyNode, table: string): boolean {
  const x = strip(x0);
  if (isJsFunction(x)) return true;
  if (x.type === 'MemberExpression') {
    const o = strip(x.object);
    return o.type === 'ThisExpression' || (o.type === 'Identifier' && o.name === table);
  }
  if (x.type !== 'Identifier') return false;
  const b = cx.sc.resolve(x);
  return !!b && (b.kind === 'function' || b.kind === 'import' || (!!b.init && isJsFunction(strip(b.init))));
}

/** What a key the table lacks meets: called at once (`T[k](…)`, a TypeError), a test of the lookup or table that throws, or nothing. */
function lookupOtherwise(cx: Ctx, n: AnyNode, fn: JsFunction, table: string): KindRoute['otherwise'] {
  const p = cx.parents.get(n);
  // `T[k] ?? T.generic`, `T[k] || defaultCheck`: a key the table lacks runs the fallback handler
  if (p?.type === 'LogicalExpression' && (p.operator === '??' || p.operator === '||') && p.left === n && fallbackHandler(cx, p.right, table)) return 'default';
  if (p?.type === 'CallExpression' && p.callee === n && !p.optional) return 'raise';
  if (p?.type === 'NewExpression' && p.callee === n) return 'raise';
  // `const check = CHECKS[k]; if (!check) throw …` / `if (!(k in CHECKS)) throw …` / `if (!CHECKS.has(k)) throw …`
  const held = p?.type === 'VariableDeclarator' && p.init === n && p.id.type === 'Identifier' ? p.id.name : undefined;
  let hit = 'ignore' as KindRoute['otherwise'];
  const rec = (x: AnyNode) => {
    if (hit === 'raise' || (x !== fn && isJsFunction(x))) return;
    if (x.type === 'IfStatement' && throws([x.consequent])) {
      const t = cx.text.slice(x.test.start, x.test.end);
      if (new RegExp(`\\b${table}\\b`).test(t) || (held && new RegExp(`\\b${held}\\b`).test(t))) hit = 'raise';
    }
    // `check(task)` right after holding it, with no test: a TypeError on a missing key
    if (held && x.type === 'CallExpression' && x.callee.type === 'Identifier' && x.callee.name === held && !x.optional && enclosingFn(cx, x) === fn) hit = hit === 'ignore' ? 'raise' : hit;
    forEachChild(x, rec);
  };
  rec(fn.body);
  if (held && hit === 'raise') {
    // a truthiness test of the held handler that does not throw guards the call: nothing runs for that key
    let guarded = false;
    const g = (x: AnyNode) => {
      if (guarded || (x !== fn && isJsFunction(x))) return;
      if ((x.type === 'IfStatement' || x.type === 'ConditionalExpression' || x.type === 'LogicalExpression') && new RegExp(`\\b${held}\\b`).test(cx.text.slice((x.type === 'LogicalExpression' ? x.left : x.test).start, (x.type === 'LogicalExpression' ? x.left : x.test).end)) && !(x.type === 'IfStatement' && throws([x.consequent]))) guarded = true;
      forEachChild(x, g);
    };
    g(fn.body);
    if (guarded) return 'ignore';
  }
  return hit;
}

