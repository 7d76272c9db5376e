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
import { shellLiteralOutputs } from '../shell-output.js';
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

/** A string literal, f-string included: its text with each interpolation as `\u0000`. */
function templateText(e: PyNode): string | undefined {
  if (e.type === 'concatenated_string') {
    const parts = named(e).map(templateText);
    return parts.some((p) => p === undefined) ? undefined : parts.join('');
  }
  if (e.type !== 'string') return undefined;
  return e.children.map((k) => (k.type === 'string_content' ? k.text : k.type === 'interpolation' ? '\u0000' : '')).join('');
}

/** The value of a string-valued expression as every literal it can be, within `MAX_DOMAIN`; undefined when any value is open. */
export function closedStrings(a: PythonAnalysis, project: PythonProject | undefined, e0: PyNode, depth = 0): string[] | undefined {
  if (depth > 6) return undefined;
  const e = unparen(e0);
  const lit = literalText(e);
  if (lit !== undefined) return [lit];
  switch (e.type) {
    case 'conditional_expression': {
      const [yes, , no] = named(e);
      return union(yes && closedStrings(a, project, yes, depth + 1), no && closedStrings(a, project, no, depth + 1));
    }
    case 'identifier': {
      const src = a.valueSources(e).filter((x) => x !== e);
      if (!src.length || src.length !== a.valueSources(e).length) return undefined;
      return src.reduce<string[] | undefined>((acc, s, i) => (i === 0 ? closedStrings(a, project, s, depth + 1) : union(acc, closedStrings(a, project, s, depth + 1))), undefined);
    }
    case 'call': {
      const f = field(e, 'function');
      if (f?.type === 'attribute') {
        const m = a.src(field(f, 'attribute') ?? f);
        const recv = field(f, 'object');
        const map = MAPPERS[m];
        if (map && recv && named(field(e, 'arguments') ?? e).length <= 1) {
          const inner = closedStrings(a, project, recv, depth + 1) ?? programOutput(a, recv);
          return inner?.map(map);
        }
      }
      if (f?.type === 'identifier' && a.src(f) === 'str') {
        const arg = named(field(e, 'arguments') ?? e)[0];
        return arg ? closedStrings(a, project, arg, depth + 1) : undefined;
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
  const out: ArgumentSite[] = [];
  const files = [a.path, ...(fn.name.startsWith('_') ? [] : project.files().filter((p) => p !== a.path && project.text(p)?.includes(fn.name)))];
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
