/**
 * Task-class registries, learned from what the code does: a collection literal of project classes
 * that share an ancestor (`_TASKS = (clock.ClockTask, …)`, `{"a": A, "b": B}`), or a factory that
 * builds task classes with `type(name, (Base,), ns)` and is called once per item of a literal list
 * or per record of a data file the module reads (a textproto, JSON). The grading method is the one
 * every registered class has, that the runner calls on a task object with its result used, and whose
 * implementations return verdicts (numbers, booleans, comparisons).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { FunctionInfo, PythonAnalysis, PythonProject, PyNode } from '../../lang/python/types.js';
import { field, named, unparen, walk } from '../../lang/python/tree.js';
import { parseTextproto, repeated, type Message } from '../../lang/textproto/parse.js';
import { isObject } from '../../lang/json/parse.js';
import { pyReturnValues } from '../verdict-shape.js';
import { ancestry, classOfExpr, methodOf, type ClassRef } from './py-classes.js';
import { callersOf, pyStringLiteral } from './py-values.js';
import { perFile } from './file-memo.js';
import { assignmentOf } from './py-data.js';

interface ClassRegistry {
  /** Where the registry is declared (file, 1-based line). */
  file: string;
  line: number;
  /** Registered task ids (class names, or the names the factory is given). */
  ids: string[];
  /** Classes registered (literal collections), or the factory's base class. */
  classes: ClassRef[];
  /** The data file the tasks come from, for factory registries over records. */
  dataFile?: string;
}

export interface RegistrySuite {
  registry: ClassRegistry;
  /** The grading methods each registered class runs (deduplicated). */
  graders: Array<{ file: string; qualname: string }>;
  method?: string;
}

const COLLECTIONS = new Set(['tuple', 'list', 'set', 'dictionary']);
const DATA_EXT = /\.(textproto|pbtxt|txtpb|json|jsonl)$/;

/** Assignments at module or class level: `X = <expr>`. */
function topAssignments(a: PythonAnalysis): Array<{ name: string; value: PyNode; node: PyNode }> {
  const out: Array<{ name: string; value: PyNode; node: PyNode }> = [];
  const visit = (block: PyNode | undefined) => {
    for (const st of block ? named(block) : []) {
      if (st.type === 'class_definition') visit(field(st, 'body'));
      if (st.type === 'decorated_definition') {
        const def = named(st).find((x) => x.type === 'class_definition');
        if (def) visit(field(def, 'body'));
      }
      const asg = assignmentOf(st);
      if (asg) out.push(asg);
    }
  };
  visit(a.ast);
  return out;
}

/** Literal collections of ≥2 project classes sharing a project ancestor. */
function literalRegistries(python: PythonProject, a: PythonAnalysis): ClassRegistry[] {
  const out: ClassRegistry[] = [];
  for (const { value, node } of topAssignments(a)) {
    if (!COLLECTIONS.has(value.type)) continue;
    const items = named(value).map((e) => (e.type === 'pair' ? field(e, 'value') : e)).filter((e): e is PyNode => !!e && e.type !== 'comment');
    if (items.length < 2 || !items.every((e) => e.type === 'identifier' || e.type === 'attribute')) continue;
    const classes = items.map((e) => classOfExpr(python, a, e));
    if (classes.some((c) => !c)) continue;
    const refs = classes as ClassRef[];
    if (!commonAncestor(python, refs)) continue;
    out.push({ file: a.path, line: a.line(node), ids: refs.map((c) => c.qualname.split('.').pop()!), classes: refs });
  }
  return out;
}

function commonAncestor(python: PythonProject, classes: ClassRef[]): ClassRef | undefined {
  const key = (c: ClassRef) => `${c.file}\0${c.qualname}`;
  const [first, ...rest] = classes;
  if (!first) return undefined;
  const sets = rest.map((c) => new Set(ancestry(python, c).map(key)));
  return ancestry(python, first).slice(1).find((c) => sets.every((s) => s.has(key(c)))) ?? (rest.every((c) => key(c) !== key(first)) ? undefined : first);
}

/** `type(name, (Base,), ns)` returned by a function: the factory and its base class. */
function factories(python: PythonProject, a: PythonAnalysis): Array<{ fn: FunctionInfo; base: ClassRef }> {
  const out: Array<{ fn: FunctionInfo; base: ClassRef }> = [];
  if (!/\btype\s*\(/.test(a.text)) return out;
  walk(a.ast, (n) => {
    if (n.type !== 'call') return;
    const c = a.call(n);
    if (!c || c.calleeText !== 'type' || c.args.length !== 3) return;
    const bases = unparen(c.args[1]!);
    if (bases.type !== 'tuple' || named(bases).length === 0) return;
    const fn = a.functionAt(n);
    if (!fn) return;
    const base = classOfBaseExpr(python, a, named(bases)[0]!, fn);
    if (base) out.push({ fn, base });
  });
  return out;
}

/** A base given as a class name, or as `self.attr` set from a parameter with a class default. */
function classOfBaseExpr(python: PythonProject, a: PythonAnalysis, e: PyNode, fn: FunctionInfo): ClassRef | undefined {
  const direct = classOfExpr(python, a, e);
  if (direct) return direct;
  const u = unparen(e);
  if (u.type !== 'attribute' || field(u, 'object')?.text !== 'self' || !fn.className) return undefined;
  const attr = field(u, 'attribute')!.text;
  const cls = a.classByQualname(fn.className);
  for (const m of cls?.methods.values() ?? []) {
    let found: ClassRef | undefined;
    walk(m.node, (n) => {
      if (found || n.type !== 'assignment') return;
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (l?.type !== 'attribute' || a.src(l) !== `self.${attr}` || !r) return;
      found = classOfExpr(python, a, r) ?? defaultOfParam(python, a, m, unparen(r));
    });
    if (found) return found;
  }
  return undefined;
}

function defaultOfParam(python: PythonProject, a: PythonAnalysis, fn: FunctionInfo, id: PyNode): ClassRef | undefined {
  if (id.type !== 'identifier') return undefined;
  const params = field(fn.node, 'parameters');
  for (const p of params ? named(params) : []) {
    if ((p.type === 'default_parameter' || p.type === 'typed_default_parameter') && field(p, 'name')?.text === id.text) {
      const v = field(p, 'value');
      return v ? classOfExpr(python, a, v) : undefined;
    }
  }
  return undefined;
}

/** Registries a factory fills: each caller inside `for v in ITER` gives the items of ITER. */
function factoryRegistries(python: PythonProject, a: PythonAnalysis): ClassRegistry[] {
  const out: ClassRegistry[] = [];
  for (const { fn, base } of factories(python, a)) {
    for (const site of callersOf(python, a.path, fn)) {
      const loop = enclosingFor(site.node);
      if (!loop) continue;
      const items = loopItems(python, site.a, loop, fn);
      if (!items || items.ids.length === 0) continue;
      out.push({ file: site.a.path, line: site.a.line(loop), ids: items.ids, classes: [base], dataFile: items.dataFile });
    }
  }
  return out;
}

function enclosingFor(n: PyNode): PyNode | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'for_statement') return p;
    if (p.type === 'function_definition') return undefined;
  }
  return undefined;
}

/** The items a loop runs over: a literal list of names, or the records of a data file the module reads. */
function loopItems(python: PythonProject, a: PythonAnalysis, loop: PyNode, factory: FunctionInfo): { ids: string[]; dataFile?: string } | undefined {
  const iter = field(loop, 'right');
  if (!iter) return undefined;
  const literal = literalStrings(a, iter);
  if (literal) return { ids: literal };
  // `raw.tasks` where raw holds what the module parsed from a data file
  // `raw.tasks` or `data["items"]`
  const u = unparen(iter);
  const key = u.type === 'subscript' ? field(u, 'subscript') : undefined;
  const member = u.type === 'attribute' ? field(u, 'attribute')!.text : key ? pyStringLiteral(a, key) : undefined;
  if (member === undefined) return undefined;
  const keyMember = registryKeyMember(a, loop) ?? 'name';
  for (const file of dataFilesRead(a, factory)) {
    const records = recordsIn(file, member);
    if (records) return { ids: records.map((r, i) => (typeof r[keyMember] === 'string' ? (r[keyMember] as string) : `#${i}`)), dataFile: file };
  }
  return undefined;
}

/** A tuple/list of string literals, directly or through a module-level name. */
function literalStrings(a: PythonAnalysis, e: PyNode): string[] | undefined {
  let u = unparen(e);
  if (u.type === 'identifier') {
    const asg = topAssignments(a).find((x) => x.name === u.text);
    if (!asg) return undefined;
    u = asg.value;
  }
  if (u.type !== 'tuple' && u.type !== 'list' && u.type !== 'set') return undefined;
  const items = named(u).filter((x) => x.type !== 'comment').map((x) => pyStringLiteral(a, x));
  return items.length > 0 && items.every((x) => x !== undefined) ? (items as string[]) : undefined;
}

/** `REG[v.name] = cls` inside the loop: the member that keys the registry. */
function registryKeyMember(a: PythonAnalysis, loop: PyNode): string | undefined {
  let key: string | undefined;
  walk(loop, (n) => {
    if (key || n.type !== 'assignment') return;
    const l = field(n, 'left');
    if (l?.type !== 'subscript') return;
    const s = field(l, 'subscript');
    if (s?.type === 'attribute') key = field(s, 'attribute')!.text;
    else if (s?.type === 'subscript') {
      const k = field(s, 'subscript');
      key = k ? pyStringLiteral(a, k) : undefined;
    }
  });
  return key;
}

/** Data files the factory's module names by a string literal (`'tasks.textproto'`), found under its folder. */
function dataFilesRead(a: PythonAnalysis, _factory: FunctionInfo): string[] {
  const names = new Set<string>();
  walk(a.ast, (n) => {
    if (n.type !== 'string') return;
    const s = pyStringLiteral(a, n);
    if (s && DATA_EXT.test(s)) names.add(path.basename(s));
  });
  const out: string[] = [];
  for (const name of names) {
    const hit = findUnder(path.dirname(a.path), name, 3);
    if (hit) out.push(hit);
  }
  return out;
}

function findUnder(dir: string, name: string, depth: number): string | undefined {
  const direct = path.join(dir, name);
  if (existsSync(direct)) return direct;
  if (depth === 0) return undefined;
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const e of entries.sort()) {
    const p = path.join(dir, e);
    if (!e.startsWith('.') && e !== 'node_modules' && statSync(p, { throwIfNoEntry: false })?.isDirectory()) {
      const hit = findUnder(p, name, depth - 1);
      if (hit) return hit;
    }
  }
  return undefined;
}

function recordsIn(file: string, member: string): Array<Record<string, unknown>> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (/\.json$/.test(file)) {
    try {
      const v: unknown = JSON.parse(text);
      const list = isObject(v) ? v[member] : undefined;
      return Array.isArray(list) ? list.filter(isObject) : undefined;
    } catch {
      return undefined;
    }
  }
  const m = parseTextproto(text);
  if (!m) return undefined;
  const recs = repeated(m, member);
  return recs.length ? (recs as Message[] as Array<Record<string, unknown>>) : undefined;
}

/** Method names called on a receiver other than self/cls with the result used, over the project. */
function usedCalls(python: PythonProject): Set<string> {
  const out = new Set<string>();
  // per file, kept over an editor's edits while its text is the same (file-memo.ts)
  for (const f of python.files()) for (const n of perFile('used-calls', python, f, fileUsedCalls)) out.add(n);
  return out;
}

function fileUsedCalls(python: PythonProject, f: string): string[] {
  const out = new Set<string>();
  const text = python.text(f) ?? '';
  for (const m of text.matchAll(/(?:=|return|if|not|and|or|\()\s*(?:await\s+)?[A-Za-z_][\w.]*(?<!\bself|\bcls)\.([A-Za-z_]\w*)\s*\(/g)) out.add(m[1]!);
  return [...out];
}

/** How much a function's returns look like a verdict: 2 all bool/number, 1 some bool, 0 none. */
export const verdictLike = (a: PythonAnalysis, fn: FunctionInfo): number => {
  const rs = pyReturnValues(a, fn);
  if (rs.length === 0) return 0;
  return rs.every((r) => r.kind === 'bool' || r.kind === 'number' || r.kind === 'boolish') ? 2 : rs.some((r) => r.kind === 'bool' || r.kind === 'boolish') ? 1 : 0;
};

/** The grading method of a registry: common to its classes, called with its result used, most verdict-like. */
function gradingMethod(python: PythonProject, reg: ClassRegistry, used: Set<string>): RegistrySuite {
  const names = new Set<string>();
  for (const k of ancestry(python, reg.classes[0]!)) for (const m of k.info.methods.keys()) if (!m.startsWith('_') && used.has(m)) names.add(m);
  let best: { method: string; score: number } | undefined;
  for (const name of [...names].sort()) {
    let score = 0;
    let all = true;
    for (const c of reg.classes) {
      if (!methodOf(python, c, name)) { all = false; break; }
      // every implementation up the class's ancestry (an override returns what its base's contract says)
      for (const k of ancestry(python, c)) {
        const fn = k.info.methods.get(name);
        const a = fn ? python.analysis(k.file) : undefined;
        if (fn && a) score += verdictLike(a, fn);
      }
    }
    if (all && score > 0 && (!best || score > best.score)) best = { method: name, score };
  }
  if (!best) return { registry: reg, graders: [] };
  const graders = new Map<string, { file: string; qualname: string }>();
  for (const c of reg.classes) {
    const m = methodOf(python, c, best.method);
    if (m) graders.set(`${m.file}\0${m.fn.qualname}`, { file: m.file, qualname: m.fn.qualname });
  }
  return { registry: reg, graders: [...graders.values()], method: best.method };
}

const memo = new WeakMap<PythonProject, RegistrySuite[]>();
const found = new WeakMap<PythonProject, number>();

/** How many registries were found before the grading method was looked for (for "why nothing was recognised"). */
export function registryCandidates(python: PythonProject): { found: number } {
  classRegistries(python);
  return { found: found.get(python) ?? 0 };
}

/** A function that stores one of its parameters into a collection (`REG[cls.name] = cls`, `REG.append(cls)`): which parameter. */
function storesParam(fn: FunctionInfo, a: PythonAnalysis): number | undefined {
  let idx: number | undefined;
  walk(fn.node, (n) => {
    if (idx !== undefined) return false;
    let stored: PyNode | undefined;
    if (n.type === 'assignment' && field(n, 'left')?.type === 'subscript') stored = field(n, 'right');
    else if (n.type === 'call') {
      const c = a.call(n);
      if (c?.receiver && (c.method === 'append' || c.method === 'add') && c.args.length === 1) stored = c.args[0];
    }
    const u = stored ? unparen(stored) : undefined;
    if (u?.type === 'identifier') {
      const i = fn.params.indexOf(u.text);
      if (i >= 0) idx = i - (fn.className && fn.params[0] === 'self' ? 1 : 0);
    }
    return undefined;
  });
  return idx;
}

/** Classes given to a registering function: decorated with it (`@register_task`) or passed to it (`register(Cls)`). */
function registeredByFunction(python: PythonProject, a: PythonAnalysis, into: Map<string, { line: number; file: string; classes: ClassRef[] }>): void {
  const registrar = (expr: PyNode): { key: string; idx: number } | undefined => {
    const name = a.src(unparen(expr)).replace(/\(.*$/s, '');
    const hit = python.resolveFunction(a.path, name);
    if (!hit) return undefined;
    const ha = python.analysis(hit.file);
    const idx = ha ? storesParam(hit.fn, ha) : undefined;
    return idx === undefined ? undefined : { key: `${hit.file}\0${hit.fn.qualname}`, idx };
  };
  const add = (key: string, file: string, line: number, c: ClassRef) => {
    let g = into.get(key);
    if (!g) into.set(key, (g = { file, line, classes: [] }));
    if (!g.classes.some((x) => x.file === c.file && x.qualname === c.qualname)) g.classes.push(c);
  };
  for (const c of a.classes()) {
    const deco = c.node.parent?.type === 'decorated_definition' ? named(c.node.parent).filter((d) => d.type === 'decorator') : [];
    for (const d of deco) {
      const e = named(d)[0];
      const r = e ? registrar(e) : undefined;
      if (r && r.idx === 0) add(r.key, a.path, a.line(c.node), { file: a.path, qualname: c.qualname, info: c });
    }
  }
  walk(a.ast, (n) => {
    if (n.type !== 'call') return;
    const k = a.call(n);
    if (!k || k.calleeText === 'type') return;
    const args = k.args;
    // cheap screen: an argument that reads like a class (`Cls`, `mod.Cls`)
    if (!args.some((x) => /(^|\.)[A-Z]\w*$/.test(a.src(x)))) return;
    const r = registrar(k.fn);
    const arg = r ? args[r.idx] : undefined;
    const cls = arg ? classOfExpr(python, a, arg) : undefined;
    if (r && cls) add(r.key, a.path, a.line(n), cls);
  });
}

/** The registries one file declares, and the classes it gives to registering functions (by function). */
function fileRegistries(python: PythonProject, f: string): { regs: ClassRegistry[]; byFunction: Map<string, { line: number; file: string; classes: ClassRef[] }> } {
  const out = { regs: [] as ClassRegistry[], byFunction: new Map<string, { line: number; file: string; classes: ClassRef[] }>() };
  const text = python.text(f) ?? '';
  // cheap screen: a collection literal, a type() factory, a decorator, or a class-like argument
  if (!/=\s*[([{]|\btype\s*\(|^\s*@|\(\s*[\w.]*[A-Z]\w*\s*[,)]/m.test(text)) return out;
  const a = python.analysis(f);
  if (!a) return out;
  try {
    out.regs.push(...literalRegistries(python, a), ...factoryRegistries(python, a));
    registeredByFunction(python, a, out.byFunction);
  } catch {
    // code vaudit cannot follow registers nothing
  }
  return out;
}

/** Every class registry of the project with its grading methods (registries whose classes a larger one already holds are left out). */
export function classRegistries(python: PythonProject): RegistrySuite[] {
  const hit = memo.get(python);
  if (hit) return hit;
  const regs: ClassRegistry[] = [];
  const byFunction = new Map<string, { line: number; file: string; classes: ClassRef[] }>();
  for (const f of python.files()) {
    // per file, kept over an editor's edits while the analyses it read are the same (file-memo.ts: the
    // answer holds class infos, nodes of those trees); merged in file order, as one walk would
    const got = perFile('class-registries', python, f, fileRegistries, true);
    regs.push(...got.regs);
    for (const [key, g] of got.byFunction) {
      const into = byFunction.get(key);
      if (!into) byFunction.set(key, { file: g.file, line: g.line, classes: [...g.classes] });
      else for (const c of g.classes) if (!into.classes.some((x) => x.file === c.file && x.qualname === c.qualname)) into.classes.push(c);
    }
  }
  for (const g of byFunction.values()) {
    if (g.classes.length > 0) regs.push({ file: g.file, line: g.line, ids: g.classes.map((c) => c.qualname.split('.').pop()!), classes: g.classes });
  }
  const unique = dedupe(regs);
  // (a scan of every file's text: only when there is a registry to grade)
  const used = unique.length ? usedCalls(python) : new Set<string>();
  found.set(python, unique.length);
  const suites = unique.map((r) => gradingMethod(python, r, used)).filter((s) => s.graders.length > 0);
  memo.set(python, suites);
  return suites;
}

/** A registry whose ids are all in a larger registry of the same classes is a subset of it. */
function dedupe(all: ClassRegistry[]): ClassRegistry[] {
  const regs = [...new Map(all.map((r) => [`${r.file}:${r.line}`, r])).values()];
  const key = (r: ClassRegistry) => `${r.classes.map((c) => `${c.file}\0${c.qualname}`).join('|')}`;
  return regs.filter((r, i) => !regs.some((o, j) => j !== i && o.ids.length >= r.ids.length && (o.ids.length > r.ids.length || j < i) && r.ids.every((id) => o.ids.includes(id)) && (o.dataFile === r.dataFile) && (r.classes.length > 1 ? key(r).split('|').every((k) => key(o).includes(k)) : key(o) === key(r))));
}

