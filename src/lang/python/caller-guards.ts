/**
 * Names bound under a membership test, read under another, and the callers that decide both (interprocedural).
 *
 * ```python
 * def check(result, **kwargs):
 *     check_type = kwargs['check_type']
 *     if 'table' in check_type:
 *         tables = read_tables(result)
 *     if 'table-schema' in check_type:
 *         for t in tables: …              # unbound when 'table-schema' is asked without 'table'
 * ```
 *
 * Per function the read is possibly unbound. It is not when every value a caller passes for `check_type`
 * that holds `'table-schema'` also holds `'table'`: a literal list that does, or the return value of a
 * function that adds `'table'` whenever `'table-schema'` is in the set it returns
 * (`if 'table-schema' in types: types.add('table')`, nothing removed or added after). Callers are followed
 * through dispatch tables (`FUNCS = {'duckdb': check}`, `FUNCS[kind](…)`) and through wrappers that pass
 * their own `**kwargs` on. Anything else — a reference the search cannot classify, a task binding the
 * function directly (the harness then passes the task's own arguments), a decorator, a value of unknown
 * provenance — keeps the read possibly unbound.
 */
import { type PyNode, field, named, unparen, walk } from './tree.js';
import type { FunctionInfo, PythonAnalysis, PythonProject, UnboundRead } from './types.js';

export interface CallerContext {
  project: PythonProject;
  /** A task entry routes to this function: a harness calls it with arguments the code does not show. */
  boundByTask(file: string, qualname: string): boolean;
}

/** How a function receives the value tested: a parameter, or a key of its `**kwargs`. */
interface ArgKey {
  keyword: string;
  /** Index among positional parameters (a named parameter only). */
  position?: number;
  /** Value when no caller passes it (`def f(x=[…])`, `kwargs.get('x', […])`); none: the call fails first. */
  fallback?: PyNode;
}

const MAX_DEPTH = 4;
const CONVERSIONS = new Set(['sorted', 'list', 'set', 'tuple', 'frozenset']);

/** `'<lit>' in <name>` → the literal and the name (a plain string literal, no interpolation or escape). */
function membership(n0: PyNode | undefined, a: PythonAnalysis): { lit: string; x: string } | undefined {
  if (!n0) return undefined;
  const n = unparen(n0);
  if (n.type !== 'comparison_operator') return undefined;
  const ops = n.children.filter((c) => !c.named).map((c) => c.type);
  const [l, r] = named(n).map(unparen);
  if (ops.length !== 1 || ops[0] !== 'in' || !l || !r || r.type !== 'identifier') return undefined;
  const lit = stringLiteral(l, a);
  return lit === undefined ? undefined : { lit, x: a.src(r) };
}

function stringLiteral(n: PyNode, a: PythonAnalysis): string | undefined {
  if (n.type !== 'string') return undefined;
  const m = /^(['"])([^'"\\]*)\1$/.exec(a.src(n));
  return m?.[2];
}

const andLeaves = (c: PyNode): PyNode[] => {
  const e = unparen(c);
  return e.type === 'boolean_operator' && e.children.some((k) => k.type === 'and') ? [field(e, 'left'), field(e, 'right')].flatMap((k) => (k ? andLeaves(k) : [])) : [e];
};

/** The block statement of `block` that contains `n`. */
function statementIn(block: PyNode, n: PyNode): PyNode | undefined {
  let c: PyNode | null = n;
  while (c && c.parent !== block) c = c.parent;
  return c ?? undefined;
}

/**
 * A `maybe` read of a local that every caller binds: a binding of the name sits directly in `if '<a>' in X:`,
 * a later statement of the same block tests `'<b>' in X` where the read runs, X is bound once and only
 * tested, and every value callers pass for X that holds `<b>` holds `<a>`.
 */
export function boundForEveryCaller(a: PythonAnalysis, read: UnboundRead, cx: CallerContext): boolean {
  if (read.kind !== 'maybe') return false;
  const fn = a.functionAt(read.node);
  if (!fn) return false;
  const defs = (a.reachingDefs(read.node) ?? []).filter((d) => d.kind !== 'unbound' && d.node);
  if (readsOf(fn, read.name, a).some((n) => n.parent?.type === 'delete_statement')) return false;
  for (const d of defs) {
    // the binding: a statement directly in the consequence of `if '<a>' in X:`
    const stmt = enclosingStatement(d.node!);
    const block = stmt?.parent;
    const s1 = block?.parent;
    if (!stmt || block?.type !== 'block' || s1?.type !== 'if_statement' || field(s1, 'consequence') !== block) continue;
    const bound = membership(field(s1, 'condition'), a);
    if (!bound) continue;
    // the read: in a later statement T of the block that holds S1, under `'<b>' in X`
    const outer = s1.parent;
    const t = outer && statementIn(outer, read.node);
    if (!outer || !t || t.start < s1.end) continue;
    const tested = testsHolding(read.node, t, a).filter((m) => m.x === bound.x).map((m) => m.lit);
    if (!tested.length) continue;
    const arg = onlyTested(fn, bound.x, a);
    if (!arg) continue;
    if (tested.includes(bound.lit)) return true;
    if (tested.some((b) => everyCallerImplies(a, fn, arg, b, bound.lit, cx, 0, new Set()))) return true;
  }
  return false;
}

/** The statement (a child of a block or module) that holds a node. */
function enclosingStatement(n: PyNode): PyNode | undefined {
  let c: PyNode | null = n;
  while (c && c.parent && c.parent.type !== 'block' && c.parent.type !== 'module') c = c.parent;
  return c ?? undefined;
}

/** Membership tests that hold where `n` runs, from `n` up to the statement `top`: the `if`/`elif` branches it is in. */
function testsHolding(n: PyNode, top: PyNode, a: PythonAnalysis): Array<{ lit: string; x: string }> {
  const out: Array<{ lit: string; x: string }> = [];
  for (let c: PyNode = n, p = c.parent; p && c !== top; c = p, p = p.parent) {
    if ((p.type === 'if_statement' || p.type === 'elif_clause') && field(p, 'consequence') === c) {
      for (const leaf of andLeaves(field(p, 'condition')!)) {
        const m = membership(leaf, a);
        if (m) out.push(m);
      }
    }
  }
  return out;
}

/** Identifiers named `name` in a function's own scope (not in nested functions or lambdas). */
function readsOf(fn: FunctionInfo, name: string, a: PythonAnalysis): PyNode[] {
  const out: PyNode[] = [];
  const body = field(fn.node, 'body');
  if (!body) return out;
  walk(body, (n) => {
    if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
    if (n.type === 'identifier' && a.src(n) === name) out.push(n);
    return true;
  });
  return out;
}

/**
 * How `fn` receives X, when X is bound once and only tested (`'<lit>' in X`, nothing else reads it): a
 * parameter never rebound, or `X = kwargs['key']` / `kwargs.get('key'[, default])` of its `**kwargs`.
 */
function onlyTested(fn: FunctionInfo, x: string, a: PythonAnalysis): ArgKey | undefined {
  const uses = readsOf(fn, x, a);
  const bindings = uses.filter((n) => n.parent?.type === 'assignment' && field(n.parent, 'left') === n);
  const tests = uses.filter((n) => n.parent?.type === 'comparison_operator' && membership(n.parent, a)?.x === x);
  if (bindings.length + tests.length !== uses.length) return undefined;
  const params = named(field(fn.node, 'parameters')!);
  if (bindings.length === 0) {
    const i = params.findIndex((p) => paramName(p, a) === x);
    const p = params[i];
    if (!p || (p.type !== 'identifier' && p.type !== 'default_parameter' && p.type !== 'typed_parameter' && p.type !== 'typed_default_parameter')) return undefined;
    return { keyword: x, position: i, fallback: field(p, 'value') };
  }
  if (bindings.length !== 1) return undefined;
  const v = unparen(field(bindings[0]!.parent!, 'right')!);
  const splat = params.find((p) => p.type === 'dictionary_splat_pattern');
  const kw = splat && named(splat)[0] ? a.src(named(splat)[0]!) : undefined;
  if (!kw || writesTo(fn, kw, a)) return undefined;
  if (v.type === 'subscript' && a.src(field(v, 'value')!) === kw) {
    const key = stringLiteral(unparen(field(v, 'subscript')!), a);
    return key === undefined ? undefined : { keyword: key };
  }
  const call = a.call(v);
  if (call && call.receiver && a.src(call.receiver) === kw && call.method === 'get' && call.args.length >= 1 && call.args.length <= 2 && call.kwargs.size === 0) {
    const key = stringLiteral(unparen(call.args[0]!), a);
    return key === undefined ? undefined : { keyword: key, fallback: call.args[1] };
  }
  return undefined;
}

function paramName(p: PyNode, a: PythonAnalysis): string | undefined {
  if (p.type === 'identifier') return a.src(p);
  const n = field(p, 'name') ?? named(p).find((k) => k.type === 'identifier');
  return n ? a.src(n) : undefined;
}

/** Something in `fn` may change the dict `d` (anything but a read `d[k]`, `d.get(…)`, or `**d` in a call). */
function writesTo(fn: FunctionInfo, d: string, a: PythonAnalysis): boolean {
  return readsOf(fn, d, a).some((n) => !dictRead(n, a));
}

function dictRead(n: PyNode, a: PythonAnalysis): boolean {
  const p = n.parent!;
  if (p.type === 'dictionary_splat') return true;
  if (p.type === 'subscript' && field(p, 'value') === n) return !(p.parent?.type === 'assignment' && field(p.parent, 'left') === p) && p.parent?.type !== 'delete_statement' && p.parent?.type !== 'augmented_assignment';
  if (p.type === 'attribute' && field(p, 'object') === n) return a.src(field(p, 'attribute')!) === 'get' && p.parent?.type === 'call';
  return p.type === 'parameters' || (p.type === 'dictionary_splat_pattern');
}

/**
 * Every value callers of `fn` pass for `arg` that holds `b` holds `a`: each reference to `fn` in the project
 * is a call (directly or through a dispatch table) whose value for `arg` implies it, and no task routes to it.
 */
function everyCallerImplies(an: PythonAnalysis, fn: FunctionInfo, arg: ArgKey, b: string, lit: string, cx: CallerContext, depth: number, seen: Set<string>): boolean {
  const id = `${an.path}\0${fn.qualname}\0${arg.keyword}`;
  if (depth > MAX_DEPTH || seen.has(id)) return false;
  seen = new Set([...seen, id]);
  if (fn.qualname !== fn.name || fn.decorators.length || cx.boundByTask(an.path, fn.qualname)) return false;
  const calls = callSites(an, fn, cx.project);
  if (!calls) return false;
  return calls.every((call) => {
    const value = argumentOf(an, call, arg, b, lit, cx, depth, seen);
    return value === true || (value !== false && valueImplies(value.a, value.expr, b, lit));
  });
}

/** Calls of a module-level function: by name in its own module, or through a module-level dispatch table
 *  (`T = {'k': fn}` read only as `T[k](…)` or `f = T[k]; f(…)`). Undefined when a reference is anything else,
 *  or when the name appears in another file or in a string. */
function callSites(a: PythonAnalysis, fn: FunctionInfo, project: PythonProject): PyNode[] | undefined {
  const name = fn.name;
  if (mentionedElsewhere(a, name, project)) return undefined;
  const refs = identifiers(a.ast, name, a).filter((n) => n !== field(fn.node, 'name'));
  // every mention in its own file is an identifier (none in a string or comment: a lookup by name)
  if ((a.text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0) !== refs.length + 1) return undefined;
  const out: PyNode[] = [];
  for (const r of refs) {
    const p = r.parent!;
    if (p.type === 'call' && field(p, 'function') === r) { out.push(p); continue; }
    const viaTable = p.type === 'pair' && field(p, 'value') === r ? tableCalls(a, p.parent!, project) : undefined;
    if (!viaTable) return undefined;
    out.push(...viaTable);
  }
  return out;
}

/** Another file of the project mentions the name (an import, a call, a lookup by name). */
function mentionedElsewhere(a: PythonAnalysis, name: string, project: PythonProject): boolean {
  const word = new RegExp(`\\b${name}\\b`);
  return project.files().some((f) => f !== a.path && word.test(project.text(f) ?? ''));
}

function identifiers(root: PyNode, name: string, a: PythonAnalysis): PyNode[] {
  const out: PyNode[] = [];
  walk(root, (n) => { if (n.type === 'identifier' && a.src(n) === name) out.push(n); });
  return out;
}

/** The calls through a module-level dict literal `T = {…}` bound once: every use is `T[k](…)` or `f = T[k]` with `f` only called. */
function tableCalls(a: PythonAnalysis, dict: PyNode, project: PythonProject): PyNode[] | undefined {
  const asg = dict.parent;
  if (dict.type !== 'dictionary' || asg?.type !== 'assignment' || field(asg, 'right') !== dict || asg.parent?.parent?.type !== 'module') return undefined;
  const target = field(asg, 'left');
  if (target?.type !== 'identifier') return undefined;
  const t = a.src(target);
  if (mentionedElsewhere(a, t, project)) return undefined;
  const out: PyNode[] = [];
  for (const r of identifiers(a.ast, t, a)) {
    if (r === target) continue;
    const sub = r.parent!;
    if (sub.type !== 'subscript' || field(sub, 'value') !== r) return undefined;
    const use = sub.parent!;
    if (use.type === 'call' && field(use, 'function') === sub) { out.push(use); continue; }
    if (use.type !== 'assignment' || field(use, 'right') !== sub || field(use, 'left')?.type !== 'identifier') return undefined;
    const f = a.src(field(use, 'left')!);
    const owner = a.functionAt(use);
    if (!owner) return undefined;
    for (const u of readsOf(owner, f, a)) {
      if (u === field(use, 'left')) continue;
      if (u.parent?.type !== 'call' || field(u.parent, 'function') !== u) return undefined;
      out.push(u.parent);
    }
  }
  return out;
}

/**
 * The value a call passes for `arg`: an expression (in `a`), true when the call cannot reach the test with
 * it (the argument is required and missing) or when it passes its own caller's value on and all those
 * callers imply the test, false when unknown.
 */
function argumentOf(a: PythonAnalysis, call: PyNode, arg: ArgKey, b: string, lit: string, cx: CallerContext, depth: number, seen: Set<string>): { a: PythonAnalysis; expr: PyNode } | boolean {
  const info = a.call(call);
  if (!info) return false;
  const kw = info.kwargs.get(arg.keyword);
  if (kw) return { a, expr: kw };
  if (arg.position !== undefined && !info.hasStarArgs && info.args.length > arg.position) return { a, expr: info.args[arg.position]! };
  if (info.hasStarArgs) return false;
  if (info.hasStarKwargs) {
    const splat = named(field(call, 'arguments')!).filter((k) => k.type === 'dictionary_splat');
    const d = splat.length === 1 ? unparen(named(splat[0]!)[0]!) : undefined;
    const owner = d?.type === 'identifier' ? a.functionAt(call) : undefined;
    if (!d || !owner) return false;
    return splatValue(a, owner, a.src(d), call, arg, b, lit, cx, depth, seen);
  }
  return arg.fallback ? { a, expr: arg.fallback } : true;
}

/** The value of `d['<key>']` where `f(…, **d)` runs in `owner`: its one write `d['<key>'] = v` earlier in the
 *  same block, or, when `d` is `owner`'s own `**kwargs` and never written there, what `owner`'s callers pass. */
function splatValue(a: PythonAnalysis, owner: FunctionInfo, d: string, call: PyNode, arg: ArgKey, b: string, lit: string, cx: CallerContext, depth: number, seen: Set<string>): { a: PythonAnalysis; expr: PyNode } | boolean {
  const writes: PyNode[] = [];
  for (const u of readsOf(owner, d, a)) {
    if (dictRead(u, a)) continue;
    const sub = u.parent!;
    const asg = sub.parent;
    const key = sub.type === 'subscript' && field(sub, 'value') === u ? stringLiteral(unparen(field(sub, 'subscript')!), a) : undefined;
    if (key === undefined || asg?.type !== 'assignment' || field(asg, 'left') !== sub) return false;
    if (key === arg.keyword) writes.push(asg);
  }
  if (writes.length > 1) return false;
  if (writes.length === 1) {
    const asg = writes[0]!;
    const stmt = enclosingStatement(asg);
    const at = stmt?.parent && statementIn(stmt.parent, call);
    if (!stmt || !at || at.start < stmt.end) return false;
    return { a, expr: field(asg, 'right')! };
  }
  const params = named(field(owner.node, 'parameters')!);
  const own = params.find((p) => p.type === 'dictionary_splat_pattern' && named(p)[0] && a.src(named(p)[0]!) === d);
  if (!own) return false;
  return everyCallerImplies(a, owner, { keyword: arg.keyword }, b, lit, cx, depth + 1, seen);
}

/** A value that holds `b` holds `lit`: a literal list/tuple/set of strings, a local copied from one, or the
 *  return value of a function whose returned set gains `lit` whenever it holds `b`. */
function valueImplies(a: PythonAnalysis, e0: PyNode, b: string, lit: string): boolean {
  const e = unparen(e0);
  if (e.type === 'list' || e.type === 'tuple' || e.type === 'set') {
    const items = named(e).map((k) => stringLiteral(unparen(k), a));
    if (items.some((i) => i === undefined)) return false;
    return !items.includes(b) || items.includes(lit);
  }
  if (e.type === 'identifier') {
    const src = a.valueSources(e);
    return src.length > 0 && src.every((s) => s !== e && valueImplies(a, s, b, lit));
  }
  if (e.type !== 'call') return false;
  const callee = field(e, 'function');
  if (callee?.type !== 'identifier') return false;
  const name = a.src(callee);
  const owner = a.functionAt(e);
  const fn = (owner && a.functionByQualname(`${owner.qualname}.<locals>.${name}`)) ?? a.functionByQualname(name);
  return !!fn && returnImplies(a, fn, b, lit);
}

/**
 * What `fn` returns (`return v`, `return sorted(v)`, or a name bound once to one of them, as its last statement
 * and only return) holds `lit` whenever it holds `b`: statements `if '<p>' in v: … v.add('<q>')` at the top
 * of its body establish p ⇒ q, and no later statement adds p or does anything to v but test it or add to it.
 */
function returnImplies(a: PythonAnalysis, fn: FunctionInfo, b: string, lit: string): boolean {
  const body = field(fn.node, 'body');
  const stmts = body ? named(body) : [];
  const last = stmts[stmts.length - 1];
  if (last?.type !== 'return_statement') return false;
  let returns = 0;
  walk(body!, (n) => {
    if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
    if (n.type === 'return_statement') returns++;
    return true;
  });
  if (returns !== 1) return false;
  let v = returnedName(a, named(last)[0]);
  // `w = sorted(v); return w`
  const copy = stmts[stmts.length - 2];
  if (v && copy && isAssignTo(copy, v, a) && stmts.filter((s) => isAssignTo(s, v!, a)).length === 1) v = returnedName(a, field(named(copy)[0]!, 'right'));
  if (!v) return false;
  const edges: Array<[string, string]> = [];
  stmts.forEach((s, i) => {
    if (s.type !== 'if_statement') return;
    const m = membership(field(s, 'condition'), a);
    if (!m || m.x !== v) return;
    // a block of additions only (`v.add('<q>')`…), and no later statement adds p or takes from v
    const adds = named(field(s, 'consequence') ?? s).map((k) => added(k, v!, a));
    if (adds.some((q) => q === undefined) || !stmts.slice(i + 1).every((t) => onlyGrowsWithout(t, v!, m.lit, a))) return;
    for (const q of adds) edges.push([m.lit, q!]);
  });
  // p ⇒ q ⇒ r: what `b` leads to
  const reach = new Set([b]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, q] of edges) if (reach.has(p) && !reach.has(q)) { reach.add(q); grew = true; }
  }
  return reach.has(lit);
}

function returnedName(a: PythonAnalysis, e0: PyNode | undefined): string | undefined {
  if (!e0) return undefined;
  const e = unparen(e0);
  if (e.type === 'identifier') return a.src(e);
  const c = e.type === 'call' ? a.call(e) : undefined;
  if (!c || !CONVERSIONS.has(c.calleeText) || c.args.length !== 1 || c.kwargs.size) return undefined;
  const arg = unparen(c.args[0]!);
  return arg.type === 'identifier' ? a.src(arg) : undefined;
}

function isAssignTo(s: PyNode, name: string, a: PythonAnalysis): boolean {
  const asg = s.type === 'expression_statement' ? named(s)[0] : undefined;
  return asg?.type === 'assignment' && field(asg, 'left')?.type === 'identifier' && a.src(field(asg, 'left')!) === name;
}

/** `v.add('<q>')` as a statement: q. */
function added(s: PyNode, v: string, a: PythonAnalysis): string | undefined {
  const e = s.type === 'expression_statement' ? named(s)[0] : undefined;
  const c = e?.type === 'call' ? a.call(e) : undefined;
  if (!c || c.method !== 'add' || !c.receiver || a.src(c.receiver) !== v || c.args.length !== 1) return undefined;
  return stringLiteral(unparen(c.args[0]!), a);
}

/** In `s`, `v` is only tested (`'<x>' in v`), added to with another literal than `p` (`v.add('<q>')`),
 *  converted into what is returned (`w = sorted(v)`) or returned. */
function onlyGrowsWithout(s: PyNode, v: string, p: string, a: PythonAnalysis): boolean {
  let ok = true;
  walk(s, (n) => {
    if (!ok || n.type !== 'identifier' || a.src(n) !== v) return ok;
    const par = n.parent!;
    if (par.type === 'comparison_operator' && membership(par, a)?.x === v) return true;
    const call = par.type === 'attribute' && par.parent?.type === 'call' ? par.parent : undefined;
    if (call && call.parent?.type === 'expression_statement') {
      const q = added(call.parent, v, a);
      if (q !== undefined && q !== p) return true;
    }
    const conv = par.type === 'argument_list' ? par.parent : undefined;
    if (conv && (returnedName(a, conv) === v) && (conv.parent?.type === 'return_statement' || conv.parent?.type === 'assignment')) return true;
    if (par.type === 'return_statement') return true;
    ok = false;
    return false;
  });
  return ok;
}
