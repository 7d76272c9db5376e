/**
 * Where a string value comes from, for rules that must tell free text from a structured value.
 *
 * - `closedStrings`: the value is one of a few literals known from the code: a literal, a choice
 *   between literals, a project function that returns only literals, or the output of a program the
 *   code hands to a call (a shell script) that prints nothing but literal `echo`s. On such a closed
 *   domain a containment test is exact when the needle is in at most one of the values.
 * - `argumentsFor`: the arguments every call of a function in the project passes for one of its
 *   parameters (same module, and modules whose text names the function), so that what a parameter
 *   holds is read from its callers instead of from its annotation.
 */
import { field, named, unparen, walk, type PyNode } from './tree.js';
import type { FunctionInfo, PythonAnalysis, PythonProject } from './types.js';
import { INTERPOLATION, shellLiteralOutputs } from '../shell-output.js';
import { moduleValues } from './literal-values.js';

const MAX_DOMAIN = 16;

/** String methods that map each value of a closed domain to one value. */
const MAPPERS: Record<string, (s: string) => string> = {
  decode: (s) => s,
  encode: (s) => s,
  lower: (s) => s.toLowerCase(),
  casefold: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  strip: (s) => s.trim(),
  rstrip: (s) => s.trimEnd(),
  lstrip: (s) => s.trimStart(),
};

/** The text of a plain string literal (no interpolation), else undefined. */
function literalText(e: PyNode): string | undefined {
  if (e.type !== 'string' || e.children.some((k) => k.type === 'interpolation')) return undefined;
  return e.children.filter((k) => k.type === 'string_content').map((k) => k.text.replace(/\\n/g, '\n').replace(/\\t/g, '\t')).join('');
}

/** A string literal, f-string included: its text with each interpolation as `\uE000`. */
function templateText(e: PyNode): string | undefined {
  if (e.type === 'concatenated_string') {
    const parts = named(e).map(templateText);
    return parts.some((p) => p === undefined) ? undefined : parts.join('');
  }
  if (e.type !== 'string') return undefined;
  return e.children.map((k) => (k.type === 'string_content' ? k.text : k.type === 'interpolation' ? INTERPOLATION : '')).join('');
}

/** A value read from JSON the verifier fetched over HTTP: its path (`*`: any element) and the defaults a reader supplies when a key is missing. */
export interface StatePath {
  path: string[];
  defaults: PyNode[];
}

const HTTP_VERBS = new Set(['get', 'post', 'put', 'patch', 'request', 'delete']);

/**
 * The path of a value in JSON fetched over HTTP (`requests.get(url).json()`, `json.loads(resp.text)`),
 * read through `.get("k", default)`, `["k"]`, `[i]`, `x or default`, `str(x)`, loop variables and locals.
 */
export function jsonStatePath(a: PythonAnalysis, e0: PyNode, depth = 0): StatePath | undefined {
  if (depth > 10) return undefined;
  const e = unparen(e0);
  const key = (k: PyNode | undefined): string | undefined => (k ? literalText(unparen(k)) : undefined);
  switch (e.type) {
    case 'call': {
      const f = field(e, 'function');
      const args = named(field(e, 'arguments') ?? e);
      if (f?.type === 'attribute') {
        const m = a.src(field(f, 'attribute') ?? f);
        const recv = field(f, 'object');
        if (!recv) return undefined;
        if (m === 'get' && args.length >= 1 && args.length <= 2) {
          const k = key(args[0]);
          const inner = k !== undefined ? jsonStatePath(a, recv, depth + 1) : undefined;
          return inner && { path: [...inner.path, k!], defaults: args[1] ? [args[1]] : [] };
        }
        if (m === 'json' && args.length === 0) return fromHttp(a, recv) ? { path: [], defaults: [] } : undefined;
        return undefined;
      }
      if (f && a.qualifiedName(f) === 'json.loads' && args[0]?.type === 'attribute' && a.src(field(args[0], 'attribute') ?? args[0]) === 'text') return fromHttp(a, field(args[0], 'object')!) ? { path: [], defaults: [] } : undefined;
      if (f?.type === 'identifier' && a.src(f) === 'str' && args.length === 1) return jsonStatePath(a, args[0]!, depth + 1);
      // next((x for x in items if …), default): an element of items, or the default
      if (f?.type === 'identifier' && a.src(f) === 'next' && args.length >= 1 && args.length <= 2 && unparen(args[0]!).type === 'generator_expression') {
        const gen = unparen(args[0]!);
        const body = field(gen, 'body');
        const clauses = named(gen).filter((k) => k.type === 'for_in_clause');
        const left = clauses.length === 1 ? field(clauses[0]!, 'left') : undefined;
        const right = clauses.length === 1 ? field(clauses[0]!, 'right') : undefined;
        if (!body || !left || !right || left.type !== 'identifier' || unparen(body).type !== 'identifier' || a.src(unparen(body)) !== a.src(left)) return undefined;
        const inner = jsonStatePath(a, right, depth + 1);
        return inner && { path: [...inner.path, '*'], defaults: args[1] ? [args[1]] : [] };
      }
      return undefined;
    }
    case 'list_comprehension': {
      // [x for x in items if …]: some of the elements of items, as they are
      const body = field(e, 'body');
      const clauses = named(e).filter((k) => k.type === 'for_in_clause');
      const left = clauses.length === 1 ? field(clauses[0]!, 'left') : undefined;
      const right = clauses.length === 1 ? field(clauses[0]!, 'right') : undefined;
      if (!body || !left || !right || left.type !== 'identifier' || unparen(body).type !== 'identifier' || a.src(unparen(body)) !== a.src(left)) return undefined;
      return jsonStatePath(a, right, depth + 1);
    }
    case 'subscript': {
      const inner = jsonStatePath(a, field(e, 'value') ?? e, depth + 1);
      const idx = field(e, 'subscript');
      if (!inner || !idx) return undefined;
      const k = key(idx);
      return { path: [...inner.path, k ?? '*'], defaults: [] };
    }
    case 'boolean_operator': {
      const left = field(e, 'left');
      if (!left || !a.src(e).slice(left.end - e.start).trimStart().startsWith('or')) return undefined;
      const inner = jsonStatePath(a, left, depth + 1);
      return inner && { path: inner.path, defaults: [...inner.defaults, field(e, 'right')!].filter(Boolean) };
    }
    case 'identifier': {
      const defs = a.reachingDefs(e);
      if (!defs?.length) return undefined;
      const flat = defs.flatMap((d) => (d.kind === 'narrow' ? (d.base ?? []) : [d]));
      let out: StatePath | undefined;
      for (const d of flat) {
        if (d.kind === 'unbound' || !d.value) return undefined;
        if ((d.kind === 'assign' || d.kind === 'annassign') && unparen(d.value).type === 'none') continue;
        const each = d.kind === 'for' || d.kind === 'comprehension';
        // `for k, v in x.items()` / `for v in x.values()`: v is a value of the object x (the path's `*`)
        const values = each ? dictValues(a, d.value, d.index) : undefined;
        if (d.index?.length && !values) return undefined;
        const p = values ? jsonStatePath(a, values, depth + 1) : each || d.kind === 'assign' || d.kind === 'annassign' ? jsonStatePath(a, d.value, depth + 1) : undefined;
        if (!p) return undefined;
        const path = each ? [...p.path, '*'] : p.path;
        if (out && out.path.join('\0') !== path.join('\0')) return undefined;
        out = { path, defaults: [...(out?.defaults ?? []), ...(each ? [] : p.defaults)] };
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** The object whose values a loop target takes: `x` of `for v in x.values()` or of `for k, v in x.items()` (target index [1]). */
function dictValues(a: PythonAnalysis, iter: PyNode, index: number[] | undefined): PyNode | undefined {
  const u = unparen(iter);
  const f = u.type === 'call' ? field(u, 'function') : undefined;
  if (f?.type !== 'attribute' || named(field(u, 'arguments') ?? u).length) return undefined;
  const m = a.src(field(f, 'attribute') ?? f);
  const ok = (m === 'values' && !index?.length) || (m === 'items' && index?.length === 1 && index[0] === 1);
  return ok ? field(f, 'object') : undefined;
}

/** An HTTP response object: a call of an HTTP verb (`requests.get(…)`, `session.post(…)`), directly or through a local. */
function fromHttp(a: PythonAnalysis, recv: PyNode): boolean {
  const srcs = unparen(recv).type === 'identifier' ? a.valueSources(recv) : [recv];
  return srcs.length > 0 && srcs.every((s) => {
    const c = unparen(s).type === 'call' ? a.call(unparen(s)) : undefined;
    return !!c && HTTP_VERBS.has(c.method) && (!!c.receiver || !!c.qualified);
  });
}

/** The strings an application writes at a JSON path (see `lang/js/app-state.ts`), when it fixes them. */
export type StateStrings = (path: readonly string[]) => string[] | undefined;

/** The value of a string-valued expression as every literal it can be, within `MAX_DOMAIN`; undefined when any value is open. */
export function closedStrings(a: PythonAnalysis, project: PythonProject | undefined, e0: PyNode, depth = 0, state?: StateStrings): string[] | undefined {
  if (depth > 6) return undefined;
  const e = unparen(e0);
  const lit = literalText(e);
  if (lit !== undefined) return [lit];
  if (state && (e.type === 'call' || e.type === 'subscript' || e.type === 'boolean_operator')) {
    const sp = jsonStatePath(a, e);
    if (sp) {
      // a missing key gives the reader's default: a string literal joins the domain, None cannot be searched
      const defaults = sp.defaults.filter((d) => unparen(d).type !== 'none').map((d) => closedStrings(a, project, d, depth + 1));
      return defaults.reduce((acc, d) => union(acc, d), state(sp.path));
    }
  }
  switch (e.type) {
    case 'conditional_expression': {
      const [yes, , no] = named(e);
      return union(yes && closedStrings(a, project, yes, depth + 1, state), no && closedStrings(a, project, no, depth + 1, state));
    }
    case 'identifier': {
      const src = a.valueSources(e).filter((x) => x !== e);
      if (!src.length || src.length !== a.valueSources(e).length) return undefined;
      return src.reduce<string[] | undefined>((acc, s, i) => (i === 0 ? closedStrings(a, project, s, depth + 1, state) : union(acc, closedStrings(a, project, s, depth + 1, state))), undefined);
    }
    case 'call': {
      const f = field(e, 'function');
      if (f?.type === 'attribute') {
        const m = a.src(field(f, 'attribute') ?? f);
        const recv = field(f, 'object');
        const map = MAPPERS[m];
        if (map && recv && named(field(e, 'arguments') ?? e).length <= 1) {
          const inner = closedStrings(a, project, recv, depth + 1, state) ?? programOutput(a, recv);
          return inner?.map(map);
        }
        // s.replace(" ", "_"): each value mapped to one value
        const args = named(field(e, 'arguments') ?? e);
        const from = m === 'replace' && args.length === 2 ? literalText(unparen(args[0]!)) : undefined;
        const to = from ? literalText(unparen(args[1]!)) : undefined;
        if (recv && from && to !== undefined) return closedStrings(a, project, recv, depth + 1, state)?.map((v) => v.split(from).join(to));
      }
      if (f?.type === 'identifier' && a.src(f) === 'str') {
        const arg = named(field(e, 'arguments') ?? e)[0];
        return arg ? closedStrings(a, project, arg, depth + 1, state) : undefined;
      }
      return returnedStrings(a, project, e, depth);
    }
    default:
      return programOutput(a, e);
  }
}

function union(x: string[] | undefined, y: string[] | undefined): string[] | undefined {
  if (!x || !y) return undefined;
  const u = [...new Set([...x, ...y])];
  return u.length <= MAX_DOMAIN ? u : undefined;
}

/** A project function called here that returns only closed strings. */
function returnedStrings(a: PythonAnalysis, project: PythonProject | undefined, call: PyNode, depth: number): string[] | undefined {
  const f = field(call, 'function');
  if (!project || !f || (f.type !== 'identifier' && f.type !== 'attribute')) return undefined;
  const r = project.resolveFunction(a.path, a.src(f));
  const ca = r && project.analysis(r.file);
  if (!r || !ca) return undefined;
  const domains: Array<string[] | undefined> = [];
  walk(r.fn.node, (k) => {
    if (k !== r.fn.node && (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition')) return false;
    if (k.type !== 'return_statement') return undefined;
    const v = named(k)[0];
    domains.push(v ? closedStrings(ca, project, v, depth + 1) : undefined);
    return undefined;
  });
  if (!domains.length) return undefined;
  return domains.reduce((acc, d) => union(acc, d), domains[0]);
}

/**
 * The output of a program the code hands to a call, when it prints only literals: `e` is the call
 * (or an attribute of it, `proc.stdout`, `response.generic.output`), directly or through a local, and
 * one argument of the call (or an item of a list argument) is a shell script every line of which is a
 * test or an echo of a literal (`shellLiteralOutputs`).
 */
function programOutput(a: PythonAnalysis, e0: PyNode): string[] | undefined {
  let e = unparen(e0);
  while (e.type === 'attribute') e = unparen(field(e, 'object') ?? e);
  if (e.type === 'identifier') {
    const src = a.valueSources(e).filter((x) => x !== e);
    if (src.length !== 1) return undefined;
    e = unparen(src[0]!);
    while (e.type === 'attribute') e = unparen(field(e, 'object') ?? e);
  }
  if (e.type !== 'call') return undefined;
  const args = named(field(e, 'arguments') ?? e).flatMap((x) => {
    const v = x.type === 'keyword_argument' ? field(x, 'value') : x;
    const u = v ? unparen(v) : undefined;
    return u?.type === 'list' || u?.type === 'tuple' ? named(u) : u ? [u] : [];
  });
  for (const arg of args) {
    const texts = (arg.type === 'identifier' ? valuesOf(a, arg) : [arg]).map((s) => templateText(unparen(s)));
    if (texts.length !== 1 || texts[0] === undefined || !/\b(?:echo|printf)\b/.test(texts[0])) continue;
    const outs = shellLiteralOutputs(texts[0]);
    if (outs) return outs;
  }
  return undefined;
}

/** The values a name may hold: its reaching assignments, or the module's assignments of a name the function does not bind. */
function valuesOf(a: PythonAnalysis, id: PyNode): readonly PyNode[] {
  const src = a.valueSources(id);
  return src.length === 1 && src[0] === id ? moduleValues(a, a.src(id)) : src;
}

/** One argument a call passes for a parameter: the caller's analysis, its function, and the expression. */
export interface ArgumentSite {
  analysis: PythonAnalysis;
  fn: FunctionInfo | undefined;
  arg: PyNode;
}

/**
 * What every call of `fn` in the project passes for parameter `name` (positional or keyword); undefined
 * when a call passes it through `*args`/`**kwargs`, leaves it to its default, or no call is found.
 * Callers are looked for in the function's module and in modules whose text names the function.
 */
export function argumentsFor(project: PythonProject, a: PythonAnalysis, fn: FunctionInfo, name: string): ArgumentSite[] | undefined {
  if (fn.classNode || fn.qualname.includes('.')) return undefined;
  const index = fn.params.indexOf(name);
  if (index < 0) return undefined;
  const key = `${a.path}\0${fn.qualname}\0${name}`;
  let memo = argumentMemo.get(project);
  if (!memo) argumentMemo.set(project, (memo = new Map()));
  if (memo.has(key)) return memo.get(key) ?? undefined;
  const found = findArguments(project, a, fn, name, index);
  memo.set(key, found ?? null);
  return found;
}

const argumentMemo = new WeakMap<PythonProject, Map<string, ArgumentSite[] | null>>();

function findArguments(project: PythonProject, a: PythonAnalysis, fn: FunctionInfo, name: string, index: number): ArgumentSite[] | undefined {
  const out: ArgumentSite[] = [];
  // other modules call it only after importing its module: their text names both
  const mod = project.moduleName(a.path)?.split('.').pop();
  const files = [a.path, ...(fn.name.startsWith('_') || !mod ? [] : project.files().filter((p) => p !== a.path && project.text(p)?.includes(fn.name) && project.text(p)?.includes(mod)))];
  for (const file of files) {
    const ca = file === a.path ? a : project.analysis(file);
    if (!ca) continue;
    let broken = false;
    walk(ca.ast, (k) => {
      if (broken) return false;
      if (k.type !== 'call') return undefined;
      const f = field(k, 'function');
      if (!f) return undefined;
      const callee = ca.src(f);
      if (callee !== fn.name && !callee.endsWith(`.${fn.name}`)) return undefined;
      if (file !== a.path) {
        const r = project.resolveFunction(ca.path, callee);
        if (!r || r.file !== a.path || r.fn.qualname !== fn.qualname) return undefined;
      }
      const args = named(field(k, 'arguments') ?? k);
      if (args.some((x) => x.type === 'list_splat' || x.type === 'dictionary_splat')) { broken = true; return false; }
      const kw = args.find((x) => x.type === 'keyword_argument' && ca.src(field(x, 'name') ?? x) === name);
      const positional = args.filter((x) => x.type !== 'keyword_argument');
      const arg = kw ? field(kw, 'value') : positional[index];
      if (!arg) { broken = true; return false; }
      out.push({ analysis: ca, fn: ca.functionAt(k), arg });
      return undefined;
    });
    if (broken) return undefined;
  }
  return out.length ? out : undefined;
}
