/**
 * Where Python harness code dispatches on a value a task record holds, to the code that grades it:
 *
 *   configs = json.load(f)
 *   for eval_type in configs["eval"]["eval_types"]:
 *       match eval_type:
 *           case "string_match": evaluators.append(StringEvaluator())
 *           case _: raise ValueError(eval_type)
 *
 * The record is a JSON document the function loads (`json.load`, `json.loads`) or a parameter; the
 * value is a member path of it (`configs["eval"]["eval_types"]`, `task.get("type")`), directly or one
 * item of it at a time (`for t in …`, `if "url_match" in …`). The dispatch is a `match` on string
 * cases, an `if`/`elif` chain of `== "…"` / `in ("…", …)` tests, independent `if "…" in <list>` tests,
 * or a module-level dict of string keys indexed by the value. Each case that builds a project class or
 * calls a project function routes to it; what another value meets (a `raise`, or nothing) is kept.
 */
import type { FunctionInfo, PythonAnalysis, PythonProject } from '../../lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../lang/python/tree.js';
import { pyStringLiteral } from './py-values.js';
import { classOfExpr, methodOf, ancestry, type ClassRef } from './py-classes.js';
import { verdictLike } from './registry.js';
import { moduleAssignmentsOf } from './py-data.js';

/** The code a case routes to: a function, or a class's grading method. */
export interface KindTarget {
  file: string;
  qualname: string;
  /** `StringEvaluator` for a class, the function's name otherwise. */
  shown: string;
  /** Parameters of the target the dispatch hands the task record, or a member of it, to:
   *  `check_url(task["eval"])` → `{ param: "spec", path: ["eval"] }`. */
  passes?: Array<{ param: string; path: string[] }>;
  /** JS/TS: the positional arguments the dispatch hands the record, or a member of it, to
   *  (`check(page, task.expected)` → `{ index: 1, path: ["expected"] }`). */
  args?: Array<{ index: number; path: string[] }>;
  /** JS/TS: where the target is defined — the module it is imported from (a relative specifier) and the
   *  name it is exported as, or the offset of a function written inline in the dispatch file. */
  module?: { from: string; imported: string };
  at?: number;
  /** JS/TS: a check written in the dispatch itself (a `case` body, an `if` branch): where it starts and where the record's
   *  root is declared (a parameter or a local), so the check reads that case's statements as the handler. */
  inline?: { at: number; root: number };
}

export interface KindRoute {
  /** The dispatch site (shown in findings and the summary). */
  file: string;
  line: number;
  /** Member names from the record to the value (`["eval", "eval_types"]`). */
  path: string[];
  /** The value is a list whose items are dispatched one by one. */
  each: boolean;
  /** Value → the code it routes to (undefined: handled, but by no project code vaudit can follow). */
  cases: Map<string, KindTarget | undefined>;
  /** What a value no case names meets: an exception, no check at all, or a fallback handler (`T[k] ?? T.generic`). */
  otherwise: 'raise' | 'ignore' | 'default';
  /** The function holding the dispatch (`evaluator_router`, `Harness.evaluate`). */
  fn: string;
}

/** Text every dispatch form needs (a string case, an equality or membership test with a string, a
 *  module-level dict with string keys): files without it are not parsed for dispatches. */
const SCREEN = /\bcase\s+[rRuU]?['"]|==\s*[rRuU]?['"]|['"]\s*==|\bin\s*[([{]\s*[rRuU]?['"]|['"]\s+in\s|^\s*\w+\s*(?::[^=\n]*)?=\s*\{\s*[rRuU]?['"]/m;

/** Routes one Python harness file takes. */
export function kindRoutes(python: PythonProject, file: string): KindRoute[] {
  const text = python.text(file);
  if (!text || !SCREEN.test(text)) return [];
  const a = python.analysis(file);
  if (!a) return [];
  const out: KindRoute[] = [];
  for (const fn of a.functions()) {
    try {
      out.push(...functionRoutes(python, a, fn));
    } catch {
      // a function vaudit cannot follow teaches nothing
    }
  }
  return out.filter((r) => r.cases.size >= 2 && [...r.cases.values()].some((t) => t));
}

/** The record roots of a function: names bound to a loaded JSON document, and its parameters. */
function recordRoot(a: PythonAnalysis, fn: FunctionInfo, id: PyNode, params = true): boolean {
  if (id.type !== 'identifier') return false;
  const defs = a.reachingDefs(id) ?? [];
  if (defs.length === 0) return false;
  return defs.every((d) => {
    if (d.kind === 'param') return params && (d.node ? a.functionAt(d.node) === fn || fn.params.includes(d.name) : false);
    if (d.kind === 'assign' && d.value) {
      const v = unparen(d.value);
      const c = v.type === 'call' ? a.call(v) : undefined;
      return !!c && /^json\.loads?$/.test(c.qualified ?? '') && (params || fromParameter(a, fn, v));
    }
    return false;
  });
}

/** Whether what a call reads comes from a parameter of the function (`json.load(open(config_file))`,
 *  through `with open(config_file) as f`): the task's document as the caller names it, not a fixed file. */
function fromParameter(a: PythonAnalysis, fn: FunctionInfo, call: PyNode): boolean {
  const params = new Set(fn.params.filter((p) => p !== 'self' && p !== 'cls'));
  const seen = new Set<PyNode>();
  const visit = (n: PyNode, depth: number): boolean => {
    if (seen.has(n) || depth > 3) return false;
    seen.add(n);
    if (n.type === 'identifier') {
      if (params.has(n.text) && (a.reachingDefs(n) ?? []).some((d) => d.kind === 'param')) return true;
      return (a.reachingDefs(n) ?? []).some((d) => d.kind !== 'param' && !!d.value && visit(d.value, depth + 1));
    }
    return n.namedChildren.some((c) => visit(c, depth));
  };
  return named(field(call, 'arguments')!).some((x) => visit(x, 0));
}

/** `root["a"]["b"]`, `root.get("a")`: the member path from a record root (a loaded JSON document; with `params`, a parameter too), or undefined. */
export function memberPath(a: PythonAnalysis, fn: FunctionInfo, e: PyNode, depth = 0, params = true, paramRoots?: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const u = unparen(e);
  if (depth > 6) return undefined;
  if (u.type === 'identifier') {
    // a parameter the caller hands the record, or a member of it (`paramRoots`: name → its member path)
    if (paramRoots?.size) {
      const ds = a.reachingDefs(u) ?? [];
      if (ds.length && ds.every((d) => d.kind === 'param' && d.name === ds[0]!.name && paramRoots.has(d.name))) return [...paramRoots.get(ds[0]!.name)!];
    }
    if (recordRoot(a, fn, u, params)) return [];
    // a local holding a member (`types = configs["eval"]["eval_types"]`)
    const defs = a.reachingDefs(u) ?? [];
    if (defs.length === 1 && defs[0]!.kind === 'assign' && defs[0]!.value && !defs[0]!.index?.length) return memberPath(a, fn, defs[0]!.value, depth + 1, params, paramRoots);
    return undefined;
  }
  if (u.type === 'subscript') {
    const key = field(u, 'subscript');
    const k = key ? pyStringLiteral(a, key) : undefined;
    const base = k !== undefined ? memberPath(a, fn, field(u, 'value')!, depth + 1, params, paramRoots) : undefined;
    return base && [...base, k!];
  }
  if (u.type === 'call') {
    const callee = unparen(field(u, 'function')!);
    const args = named(field(u, 'arguments')!);
    if (callee.type === 'attribute' && a.src(field(callee, 'attribute')!) === 'get' && args[0]) {
      const k = pyStringLiteral(a, args[0]);
      const base = k !== undefined ? memberPath(a, fn, field(callee, 'object')!, depth + 1, params, paramRoots) : undefined;
      return base && [...base, k!];
    }
  }
  return undefined;
}

/** The dispatched value: a member path, or an item of one (`for t in <path>`). */
function subjectOf(a: PythonAnalysis, fn: FunctionInfo, e: PyNode): { path: string[]; each: boolean } | undefined {
  const u = unparen(e);
  const direct = memberPath(a, fn, u);
  if (direct && direct.length) return { path: direct, each: false };
  if (u.type !== 'identifier') return undefined;
  const defs = a.reachingDefs(u) ?? [];
  if (defs.length !== 1 || defs[0]!.kind !== 'for' || !defs[0]!.value || defs[0]!.index?.length) return undefined;
  const p = memberPath(a, fn, defs[0]!.value);
  return p && p.length ? { path: p, each: true } : undefined;
}

/** The identifier a member path starts from (the record root the dispatch reads), through locals. */
function rootName(a: PythonAnalysis, fn: FunctionInfo, e: PyNode, depth = 0): string | undefined {
  const u = unparen(e);
  if (depth > 6) return undefined;
  if (u.type === 'identifier') {
    if (recordRoot(a, fn, u)) return a.src(u);
    const defs = a.reachingDefs(u) ?? [];
    const d = defs.length === 1 ? defs[0]! : undefined;
    return d && (d.kind === 'assign' || d.kind === 'for') && d.value && !d.index?.length ? rootName(a, fn, d.value, depth + 1) : undefined;
  }
  if (u.type === 'subscript') return rootName(a, fn, field(u, 'value')!, depth + 1);
  if (u.type === 'call') {
    const callee = unparen(field(u, 'function')!);
    return callee.type === 'attribute' && a.src(field(callee, 'attribute')!) === 'get' ? rootName(a, fn, field(callee, 'object')!, depth + 1) : undefined;
  }
  return undefined;
}

/** Positional parameter names of a function (a method's first left out). */
function positionalParams(fn: FunctionInfo): string[] {
  const ps = field(fn.node, 'parameters');
  const out: string[] = [];
  for (const p of ps ? named(ps) : []) {
    if (p.type === 'list_splat_pattern' || p.type === 'dictionary_splat_pattern' || p.type === 'keyword_separator' || p.type === 'positional_separator') break;
    const id = p.type === 'identifier' ? p : (field(p, 'name') ?? named(p)[0]);
    if (id?.type === 'identifier') out.push(id.text);
  }
  return fn.className ? out.slice(1) : out;
}

/** The record (or members of it) a call hands to the target's parameters: arguments that are a member
 *  path from the dispatch's own record root. */
function passesOf(python: PythonProject, a: PythonAnalysis, rec: Rec | undefined, call: PyNode, target: KindTarget | undefined): KindTarget['passes'] {
  if (!rec?.root || !target) return undefined;
  const tfn = python.analysis(target.file)?.functionByQualname(target.qualname);
  if (!tfn) return undefined;
  const params = positionalParams(tfn);
  const out: NonNullable<KindTarget['passes']> = [];
  let i = 0;
  for (const arg of named(field(call, 'arguments')!)) {
    if (arg.type === 'list_splat' || arg.type === 'dictionary_splat') return out.length ? out : undefined;
    const kw = arg.type === 'keyword_argument';
    const value = kw ? field(arg, 'value')! : arg;
    const param = kw ? a.src(field(arg, 'name')!) : params[i++];
    if (!param || !tfn.params.includes(param)) continue;
    const path = memberPath(a, rec.fn, value);
    if (path && rootName(a, rec.fn, value) === rec.root) out.push({ param, path });
  }
  return out.length ? out : undefined;
}

/** The dispatching function and the record root its dispatched value is read from. */
interface Rec {
  fn: FunctionInfo;
  root: string | undefined;
}

/** The project code a branch routes to: the first project class built or project function called in it. */
function targetIn(python: PythonProject, a: PythonAnalysis, body: PyNode, rec?: Rec): KindTarget | undefined {
  let found: KindTarget | undefined;
  walk(body, (n) => {
    if (found) return false;
    if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return false;
    // a class named without a call (a dict value `"x": XEvaluator`)
    if ((n.type === 'identifier' || n.type === 'attribute') && n.parent?.type !== 'call' && n.parent?.type !== 'attribute') {
      const cls = classOfExpr(python, a, n);
      if (cls) found = classTarget(python, cls);
      else {
        const r = python.resolveFunction(a.path, a.src(n));
        if (r) found = { file: r.file, qualname: r.fn.qualname, shown: r.fn.name };
      }
      return false;
    }
    if (n.type !== 'call') return undefined;
    const callee = field(n, 'function')!;
    const cls = classOfExpr(python, a, callee);
    if (cls) {
      found = classTarget(python, cls);
      // `X()(record)` / `X().grade(record)`: what the built object's grading method is handed
      const up = n.parent;
      const method = found?.qualname.split('.').pop();
      const outer = up?.type === 'call' && field(up, 'function') === n ? (method === '__call__' ? up : undefined)
        : up?.type === 'attribute' && a.src(field(up, 'attribute')!) === method && up.parent?.type === 'call' && field(up.parent, 'function') === up ? up.parent : undefined;
      const passes = outer ? passesOf(python, a, rec, outer, found) : undefined;
      if (found && passes) found = { ...found, passes };
      return false;
    }
    const r = callee.type === 'identifier' || callee.type === 'attribute' ? python.resolveFunction(a.path, a.src(callee)) : undefined;
    if (r) {
      found = { file: r.file, qualname: r.fn.qualname, shown: r.fn.name };
      const passes = passesOf(python, a, rec, n, found);
      if (passes) found.passes = passes;
    }
    return undefined;
  });
  return found;
}

/** A class's grading method: `__call__`, else its most verdict-like public method (own or inherited). */
function classTarget(python: PythonProject, cls: ClassRef): KindTarget | undefined {
  const call = methodOf(python, cls, '__call__');
  if (call) return { file: call.file, qualname: call.fn.qualname, shown: cls.qualname };
  let best: { file: string; fn: FunctionInfo; score: number } | undefined;
  for (const k of ancestry(python, cls)) {
    const ka = python.analysis(k.file);
    if (!ka) continue;
    for (const m of k.info.methods.values()) {
      if (m.name.startsWith('_')) continue;
      const score = verdictLike(ka, m);
      if (score > 0 && (!best || score > best.score)) best = { file: k.file, fn: m, score };
    }
  }
  return best ? { file: best.file, qualname: best.fn.qualname, shown: cls.qualname } : undefined;
}

const raises = (body: PyNode | null | undefined): boolean => !!body && named(body).some((s) => s.type === 'raise_statement');

/** The string cases of a match pattern (`"a"`, `"a" | "b"`), or undefined for another pattern; [] for `_`. */
function patternStrings(a: PythonAnalysis, pattern: PyNode): string[] | undefined {
  const t = a.src(pattern).trim();
  if (t === '_') return [];
  const parts = t.split('|').map((s) => s.trim());
  const out: string[] = [];
  for (const p of parts) {
    const m = /^(['"])([^'"\\]*)\1$/.exec(p);
    if (!m) return undefined;
    out.push(m[2]!);
  }
  return out;
}

function functionRoutes(python: PythonProject, a: PythonAnalysis, fn: FunctionInfo): KindRoute[] {
  const out: KindRoute[] = [];
  const body = field(fn.node, 'body');
  if (!body) return out;
  const seenIfs = new Set<PyNode>();
  const containment = new Map<string, KindRoute>();
  walk(body, (n) => {
    // every node of every function comes here: its type is read once
    const type = n.type;
    if (n !== body && (type === 'function_definition' || type === 'class_definition' || type === 'lambda')) return false;
    if (type === 'match_statement') {
      const subject = field(n, 'subject') ?? named(n)[0];
      const s = subject ? subjectOf(a, fn, subject) : undefined;
      if (!s) return undefined;
      const route: KindRoute = { file: a.path, line: a.line(n), ...s, cases: new Map(), otherwise: 'ignore', fn: fn.qualname };
      const block = named(n).find((c) => c.type === 'block') ?? n;
      for (const cc of named(block).filter((c) => c.type === 'case_clause')) {
        const pattern = named(cc).find((c) => c.type === 'case_pattern');
        const strings = pattern ? patternStrings(a, pattern) : undefined;
        const cbody = named(cc).find((c) => c.type === 'block');
        if (strings === undefined) return undefined; // a pattern vaudit does not read: no route
        if (strings.length === 0) route.otherwise = raises(cbody) ? 'raise' : 'ignore';
        const t = cbody ? targetIn(python, a, cbody, { fn, root: subject && rootName(a, fn, subject) }) : undefined;
        for (const v of strings) route.cases.set(v, t);
      }
      out.push(route);
      return undefined;
    }
    if (type === 'if_statement' && !seenIfs.has(n)) {
      seenIfs.add(n);
      const chain = ifChain(python, a, fn, n);
      if (chain?.kind === 'chain') out.push(chain.route);
      else if (chain?.kind === 'contains') {
        const k = chain.route.path.join('\0');
        const prev = containment.get(k);
        if (prev) for (const [v, t] of chain.route.cases) prev.cases.set(v, t);
        else containment.set(k, chain.route);
      }
      return undefined;
    }
    if (type === 'subscript' || type === 'call') {
      const r = dictRoute(python, a, fn, n);
      if (r) out.push(r);
    }
    return undefined;
  });
  return [...out, ...containment.values()];
}

/** `v == "x"`, `"x" == v`, `v in ("x", "y")`: the subject and the strings it is tested against. */
function equalityTest(a: PythonAnalysis, cond: PyNode): { subject: PyNode; values: string[] } | undefined {
  const c = unparen(cond);
  if (c.type !== 'comparison_operator') return undefined;
  const ops = c.children.filter((k) => !k.isNamed).map((k) => k.type);
  const [l, r] = named(c);
  if (!l || !r || ops.length !== 1) return undefined;
  if (ops[0] === '==') {
    const ls = pyStringLiteral(a, l);
    const rs = pyStringLiteral(a, r);
    if (rs !== undefined && ls === undefined) return { subject: l, values: [rs] };
    if (ls !== undefined && rs === undefined) return { subject: r, values: [ls] };
    return undefined;
  }
  if (ops[0] === 'in') {
    const coll = unparen(r);
    if (!['tuple', 'list', 'set'].includes(coll.type)) return undefined;
    const values = named(coll).map((x) => pyStringLiteral(a, x));
    return values.every((v) => v !== undefined) ? { subject: l, values: values as string[] } : undefined;
  }
  return undefined;
}

type Chain = { kind: 'chain' | 'contains'; route: KindRoute };

/** An `if`/`elif` chain over one subject, or an `if "x" in <list>:` test. */
function ifChain(python: PythonProject, a: PythonAnalysis, fn: FunctionInfo, n: PyNode): Chain | undefined {
  const cond = field(n, 'condition');
  if (!cond) return undefined;
  // `if "url_match" in configs["eval"]["eval_types"]:`
  const c = unparen(cond);
  if (c.type === 'comparison_operator' && c.children.some((k) => k.type === 'in') && !c.children.some((k) => k.type === 'not in')) {
    const [l, r] = named(c);
    const v = l ? pyStringLiteral(a, l) : undefined;
    const p = v !== undefined && r ? memberPath(a, fn, r) : undefined;
    if (v !== undefined && p && p.length && !field(n, 'alternative')) {
      const t = targetIn(python, a, field(n, 'consequence')!, { fn, root: rootName(a, fn, r!) });
      return { kind: 'contains', route: { file: a.path, line: a.line(n), path: p, each: true, cases: new Map([[v, t]]), otherwise: 'ignore', fn: fn.qualname } };
    }
  }
  const first = equalityTest(a, cond);
  if (!first) return undefined;
  const s = subjectOf(a, fn, first.subject);
  if (!s) return undefined;
  const subjectText = a.src(unparen(first.subject));
  const route: KindRoute = { file: a.path, line: a.line(n), ...s, cases: new Map(), otherwise: 'ignore', fn: fn.qualname };
  const rec = { fn, root: rootName(a, fn, first.subject) };
  const add = (values: string[], body: PyNode | null | undefined) => {
    const t = body ? targetIn(python, a, body, rec) : undefined;
    for (const v of values) if (!route.cases.has(v)) route.cases.set(v, t);
  };
  add(first.values, field(n, 'consequence'));
  for (const alt of n.childrenForFieldName('alternative')) {
    if (alt.type === 'elif_clause') {
      const t = equalityTest(a, field(alt, 'condition')!);
      if (!t || a.src(unparen(t.subject)) !== subjectText) return undefined;
      add(t.values, field(alt, 'consequence'));
    } else route.otherwise = raises(field(alt, 'body')) ? 'raise' : 'ignore';
  }
  return { kind: 'chain', route };
}

/** The value a name indexed in a function holds: its one definition's, else the module's one assignment of it. */
function dictValue(a: PythonAnalysis, name: PyNode): PyNode | undefined {
  const defs = a.reachingDefs(name) ?? [];
  const d = defs.length === 1 ? defs[0]! : undefined;
  if (d) return d.kind === 'assign' && d.value ? unparen(d.value) : undefined;
  const assigned = moduleAssignmentsOf(a, a.src(name));
  return assigned.length === 1 ? assigned[0]!.value : undefined;
}

/** `REGISTRY[v]` / `REGISTRY.get(v)` over a module-level dict of string keys. */
function dictRoute(python: PythonProject, a: PythonAnalysis, fn: FunctionInfo, n: PyNode): KindRoute | undefined {
  let dictExpr: PyNode | undefined;
  let key: PyNode | undefined;
  let otherwise: KindRoute['otherwise'] = 'raise';
  if (n.type === 'subscript') {
    dictExpr = field(n, 'value') ?? undefined;
    key = field(n, 'subscript') ?? undefined;
  } else {
    // every call of a function comes here: the callee is looked at before the arguments are listed
    const callee = unparen(field(n, 'function')!);
    if (callee.type !== 'attribute' || a.src(field(callee, 'attribute')!) !== 'get') return undefined;
    const args = named(field(n, 'arguments')!);
    if (args.length !== 1) return undefined;
    dictExpr = field(callee, 'object') ?? undefined;
    key = args[0];
    otherwise = 'ignore';
  }
  if (!dictExpr || !key || dictExpr.type !== 'identifier' || pyStringLiteral(a, key) !== undefined) return undefined;
  // the dict first: few subscripts index a dict display, and the subject is a walk through definitions
  const value = dictValue(a, dictExpr);
  if (value?.type !== 'dictionary') return undefined;
  const s = subjectOf(a, fn, key);
  if (!s) return undefined;
  const route: KindRoute = { file: a.path, line: a.line(n), ...s, cases: new Map(), otherwise, fn: fn.qualname };
  for (const pair of named(value).filter((p) => p.type === 'pair')) {
    const k = pyStringLiteral(a, field(pair, 'key')!);
    if (k === undefined) return undefined;
    route.cases.set(k, targetIn(python, a, field(pair, 'value')!, { fn, root: rootName(a, fn, key) }));
  }
  // `CHECKS[kind](record)`: what every function of the dict is handed
  const outer = n.parent?.type === 'call' && field(n.parent, 'function') === n ? n.parent : undefined;
  if (outer) {
    const rec = { fn, root: rootName(a, fn, key) };
    for (const [k, t] of route.cases) {
      const passes = t && !t.passes ? passesOf(python, a, rec, outer, t) : undefined;
      if (t && passes) route.cases.set(k, { ...t, passes });
    }
  }
  return route;
}
