/**
 * Python data task containers, learned from the harness: a module-level collection (`TASKS = [...]`)
 * is a task container when harness code imports it (or its own module uses it) and iterates it,
 * indexes it, or passes it to a function or constructor that does, and the records it takes out are
 * routed by one of their members: `getattr(checks, task["check"])` (an export of a project module) or
 * `REGISTRY[action.name]` (a key of a dict whose keys are known: a dict display, or a comprehension
 * keyed per class of a literal list, `{tool.get_info()["function"]["name"]: tool for tool in tools}`).
 * Records are followed through assignments (`self.task = self.tasks[i]`), loops over their members
 * (`for action in self.task.actions`) and one call into a method of the same class (`self.step(action)`).
 * Names never matter: a collection nobody routes by is not a task container.
 */
import type { FunctionInfo, PythonAnalysis, PythonProject, PyNode } from '../../lang/python/types.js';
import { field, importFromModule, mayHoldStatements, named, unparen, walk } from '../../lang/python/tree.js';
import { ancestry, classOfExpr, methodOf, type ClassRef } from './py-classes.js';
import { pyStringLiteral } from './py-values.js';
import { isCollectionValue, moduleAssignments } from './py-data.js';
import { perFile } from './file-memo.js';

interface Where { file: string; line: number }

export interface PyLookup {
  /** Member path from the record to the name looked up; `*` is every item of a list. */
  path: string[];
  kind: 'export' | 'key';
  /** export: the module file; key: the registry as the harness writes it (`self.tools_map`). */
  target: string;
  /** Names the lookup finds, with the function each leads to when known. */
  names: Map<string, { file: string; qualname: string; start: number; end: number } | undefined>;
  /** Names the harness handles before the lookup (`if action.name == RESPOND: …`). */
  accepted: Set<string>;
  via: Where;
}

export interface PyTaskContainer {
  /** The data module and the collection's name in it. */
  file: string;
  name: string;
  /** Where the harness takes records out of it. */
  via: Where;
  /** The member the harness keys records by (`{t.id: t for t in TASKS}`), when it does. */
  idMember?: string;
  lookups: PyLookup[];
}

interface Scope {
  a: PythonAnalysis;
  /** Nodes whose code reads the records (a function, a class's methods, the module). */
  roots: PyNode[];
  /** The class whose methods share `self.*` (for `self.m(...)` calls). */
  cls?: ClassRef;
  /** Arguments given at the call followed into this scope: parameter key → argument. */
  args: Map<string, { a: PythonAnalysis; node: PyNode }>;
}

const idKey = (a: PythonAnalysis, n: PyNode): string | undefined => {
  const u = unparen(n);
  if (u.type === 'identifier') return `${a.functionAt(u)?.qualname ?? ''}:${u.text}`;
  if (u.type === 'attribute' && field(u, 'object')?.text === 'self') return `self.${field(u, 'attribute')!.text}`;
  return undefined;
};

/** Records, containers and member paths held by names of a scope, to a fixpoint. */
class Flow {
  containers = new Set<string>();
  paths = new Map<string, string[]>();
  memberReads = 0;
  loadLine?: number;
  idMember?: string;

  constructor(readonly python: PythonProject, readonly s: Scope) {}

  isContainer(n: PyNode): boolean {
    const k = idKey(this.s.a, n);
    return k !== undefined && this.containers.has(k);
  }

  pathOf(n: PyNode): string[] | undefined {
    const a = this.s.a;
    const u = unparen(n);
    const k = idKey(a, u);
    if (k && this.paths.has(k)) return this.paths.get(k);
    if (u.type === 'subscript') {
      const v = field(u, 'value');
      const s = field(u, 'subscript');
      if (!v || !s) return undefined;
      if (this.isContainer(v)) return [];
      const p = this.pathOf(v);
      const m = pyStringLiteral(a, s);
      return p && m !== undefined ? [...p, m] : undefined;
    }
    if (u.type === 'attribute') {
      const o = field(u, 'object');
      const p = o ? this.pathOf(o) : undefined;
      return p ? [...p, field(u, 'attribute')!.text] : undefined;
    }
    if (u.type === 'call') {
      const c = a.call(u);
      if (c?.method === 'get' && c.receiver && c.args[0]) {
        const p = this.pathOf(c.receiver);
        const m = pyStringLiteral(a, c.args[0]);
        return p && m !== undefined ? [...p, m] : undefined;
      }
    }
    return undefined;
  }

  /** `{t["id"]: t for t in CONTAINER}`: the records keyed by a member (that member is then the id). */
  keyedBy(comp: PyNode): boolean {
    const pair = named(comp).find((x) => x.type === 'pair');
    const clause = named(comp).find((x) => x.type === 'for_in_clause');
    const v = pair ? field(pair, 'value') : undefined;
    const l = clause ? field(clause, 'left') : undefined;
    const r = clause ? field(clause, 'right') : undefined;
    return !!(v && l && r && l.type === 'identifier' && unparen(v).text === l.text && this.isContainer(r));
  }

  private setPath(k: string | undefined, p: string[]): boolean {
    if (!k || this.paths.has(k)) return false;
    this.paths.set(k, p);
    return true;
  }

  run(): void {
    const a = this.s.a;
    for (let round = 0, grew = true; grew && round < 8; round++) {
      grew = false;
      for (const root of this.s.roots) {
        walk(root, (n) => {
          if (n.type === 'for_statement' || n.type === 'for_in_clause') {
            const l = field(n, 'left');
            const r = field(n, 'right');
            if (!l || !r) return;
            if (this.isContainer(r)) {
              if (this.setPath(idKey(a, l), [])) grew = true;
              this.loadLine ??= a.line(n);
            } else {
              const p = this.pathOf(r);
              if (p && p.length && this.setPath(idKey(a, l), [...p, '*'])) grew = true;
            }
          } else if (n.type === 'assignment') {
            const l = field(n, 'left');
            const r = field(n, 'right');
            if (!l || !r) return;
            const lk = idKey(a, l);
            const u = unparen(r);
            if (this.isContainer(r) || (u.type === 'dictionary_comprehension' && this.keyedBy(u))) {
              if (lk && !this.containers.has(lk)) { this.containers.add(lk); grew = true; }
              return;
            }
            if (u.type === 'subscript' && field(u, 'value') && this.isContainer(field(u, 'value')!)) this.loadLine ??= a.line(n);
            const p = this.pathOf(r);
            if (p && this.setPath(lk, p)) grew = true;
          } else if (n.type === 'call') {
            const c = a.call(n);
            // `self.m(record_part)`: the method's parameter holds it
            if (!c || !c.receiver || c.receiver.text !== 'self' || !this.s.cls) return;
            const m = methodOf(this.python, this.s.cls, c.method);
            if (!m || m.file !== a.path) return;
            const params = m.fn.params.filter((p, i) => !(i === 0 && p === 'self'));
            c.args.forEach((x, i) => {
              const p = this.pathOf(x);
              if (p && params[i] && this.setPath(`${m.fn.qualname}:${params[i]}`, p)) grew = true;
            });
            for (const [k, x] of c.kwargs) {
              const p = this.pathOf(x);
              if (p && params.includes(k) && this.setPath(`${m.fn.qualname}:${k}`, p)) grew = true;
            }
          } else if (n.type === 'subscript' && this.isContainer(field(n, 'value') ?? n)) {
            this.loadLine ??= a.line(n);
          }
        });
      }
    }
    // member reads of records, and the member a dict comprehension over the container keys them by
    for (const root of this.s.roots) {
      walk(root, (n) => {
        if ((n.type === 'attribute' || n.type === 'subscript') && n.parent?.type !== 'attribute') {
          const p = this.pathOf(n);
          if (p && p.length) this.memberReads++;
        }
        if (n.type === 'dictionary_comprehension') {
          const pair = named(n).find((x) => x.type === 'pair');
          const clause = named(n).find((x) => x.type === 'for_in_clause');
          const key = pair ? field(pair, 'key') : undefined;
          const p = key ? this.pathOf(key) : undefined;
          if (clause && p?.length === 1 && field(clause, 'right') && this.isContainer(field(clause, 'right')!)) this.idMember = p[0];
        }
      });
    }
  }
}

/** A string a name or literal stands for (`RESPOND = "respond"`, imported or local). */
function constString(python: PythonProject, a: PythonAnalysis, n: PyNode, depth = 0): string | undefined {
  const s = pyStringLiteral(a, n);
  if (s !== undefined || depth > 3) return s;
  const u = unparen(n);
  if (u.type !== 'identifier') return undefined;
  const top = moduleAssignments(a).get(u.text);
  if (top) return constString(python, a, top.value, depth + 1);
  const imp = a.imports().get(u.text);
  if (!imp?.name) return undefined;
  const file = python.resolveModule(a.path, imp.module, imp.level);
  const b = file ? python.analysis(file) : undefined;
  const v = b ? moduleAssignments(b).get(imp.name) : undefined;
  return b && v ? constString(python, b, v.value, depth + 1) : undefined;
}

/** A module-level value a name means in `a` (its own, or imported from a project module). */
function moduleValue(python: PythonProject, a: PythonAnalysis, name: string): { a: PythonAnalysis; node: PyNode } | undefined {
  const own = moduleAssignments(a).get(name);
  if (own) return { a, node: own.value };
  const imp = a.imports().get(name);
  if (!imp?.name) return undefined;
  const file = python.resolveModule(a.path, imp.module, imp.level);
  const b = file && file !== a.path ? python.analysis(file) : undefined;
  const v = b ? moduleAssignments(b).get(imp.name) : undefined;
  return b && v ? { a: b, node: v.value } : undefined;
}

type Bind = { file: string; qualname: string; start: number; end: number };
const bindOf = (file: string, fn: FunctionInfo): Bind => ({ file, qualname: fn.qualname, start: fn.node.start, end: fn.node.end });

/** The value of `expr` for one class bound to the comprehension variable: `v.NAME`, `v.m()[k]…` over a returned dict display. */
function keyForClass(python: PythonProject, a: PythonAnalysis, expr: PyNode, v: string, cls: ClassRef): string | undefined {
  const u = unparen(expr);
  if (u.type === 'attribute' && field(u, 'object')?.text === v) {
    const attr = field(u, 'attribute')!.text;
    if (attr === '__name__') return cls.qualname.split('.').pop();
    for (const k of ancestry(python, cls)) {
      const ka = python.analysis(k.file);
      const body = field(k.info.node, 'body');
      for (const st of body && ka ? named(body) : []) {
        const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
        if (asg?.type === 'assignment' && field(asg, 'left')?.text === attr && field(asg, 'right')) return pyStringLiteral(ka!, field(asg, 'right')!);
      }
    }
    return undefined;
  }
  // v.method()["a"]["b"]
  const keys: string[] = [];
  let cur = u;
  while (cur.type === 'subscript') {
    const s = field(cur, 'subscript');
    const k = s ? pyStringLiteral(a, s) : undefined;
    if (k === undefined) return undefined;
    keys.unshift(k);
    cur = unparen(field(cur, 'value')!);
  }
  const c = cur.type === 'call' ? a.call(cur) : undefined;
  if (!c || !c.receiver || c.receiver.text !== v || c.args.length) return undefined;
  const m = methodOf(python, cls, c.method);
  const ma = m ? python.analysis(m.file) : undefined;
  if (!m || !ma) return undefined;
  let out: string | undefined;
  let returns = 0;
  walk(m.fn.node, (n) => {
    if (n.type !== 'return_statement') return;
    returns++;
    let val: PyNode | undefined = named(n)[0] ? unparen(named(n)[0]!) : undefined;
    for (const k of keys) {
      if (val?.type !== 'dictionary') { val = undefined; break; }
      const pair = named(val).find((p) => p.type === 'pair' && field(p, 'key') && pyStringLiteral(ma, field(p, 'key')!) === k);
      val = pair ? unparen(field(pair, 'value')!) : undefined;
    }
    out = val ? pyStringLiteral(ma, val) : undefined;
  });
  return returns === 1 ? out : undefined;
}

/** The items of a sequence expression: a literal, a module-level name (imported too), or a parameter given at the followed call. */
function sequenceItems(python: PythonProject, s: Scope, a: PythonAnalysis, n: PyNode, depth = 0): Array<{ a: PythonAnalysis; node: PyNode }> | undefined {
  const u = unparen(n);
  if (depth > 4) return undefined;
  if (u.type === 'list' || u.type === 'tuple') return named(u).filter((x) => x.type !== 'comment').map((node) => ({ a, node }));
  if (u.type === 'identifier') {
    const arg = s.args.get(`${a.functionAt(u)?.qualname ?? ''}:${u.text}`);
    if (arg) return sequenceItems(python, s, arg.a, arg.node, depth + 1);
    const mv = moduleValue(python, a, u.text);
    return mv ? sequenceItems(python, s, mv.a, mv.node, depth + 1) : undefined;
  }
  if (u.type === 'attribute' && field(u, 'object')?.text === 'self') {
    const d = selfAssigned(s, field(u, 'attribute')!.text);
    return d ? sequenceItems(python, s, s.a, d, depth + 1) : undefined;
  }
  return undefined;
}

/** The value `self.NAME = …` assigns in the scope's class (the only assignment). */
function selfAssigned(s: Scope, name: string): PyNode | undefined {
  const found: PyNode[] = [];
  for (const root of s.roots) {
    walk(root, (n) => {
      if (n.type !== 'assignment') return;
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (l?.type === 'attribute' && field(l, 'object')?.text === 'self' && field(l, 'attribute')?.text === name && r) found.push(unparen(r));
    });
  }
  return found.length === 1 ? found[0] : undefined;
}

/** The keys of a dict the harness looks names up in, when every one is known. */
function registryKeys(python: PythonProject, s: Scope, d: PyNode, method: string | undefined): Map<string, Bind | undefined> | undefined {
  const a = s.a;
  const u = unparen(d);
  let value: { a: PythonAnalysis; node: PyNode } | undefined;
  if (u.type === 'attribute' && field(u, 'object')?.text === 'self') {
    const v = selfAssigned(s, field(u, 'attribute')!.text);
    value = v ? { a, node: v } : undefined;
  } else if (u.type === 'identifier') value = moduleValue(python, a, u.text);
  if (!value) return undefined;
  // a registry that gains keys after it is built (`REG[k] = …`, `REG.update(…)`) has keys vaudit does not know
  const spelled = a.src(u).replace(/\./g, '\\.');
  const grows = new RegExp(`${spelled}\\s*\\[[^\\]\\n]*\\]\\s*=(?!=)|${spelled}\\.(?:update|setdefault)\\s*\\(|${spelled}\\s*\\|=`);
  if (grows.test(a.text) || (value.a !== a && grows.test(value.a.text))) return undefined;
  const va = value.a;
  const v = value.node;
  const out = new Map<string, Bind | undefined>();
  if (v.type === 'dictionary') {
    for (const p of named(v)) {
      if (p.type === 'comment') continue;
      const k = p.type === 'pair' ? field(p, 'key') : undefined;
      const name = k ? pyStringLiteral(va, k) : undefined;
      if (name === undefined) return undefined;
      const val = field(p, 'value');
      const fn = val && unparen(val).type === 'identifier' ? python.resolveFunction(va.path, unparen(val).text) : undefined;
      const cls = !fn && val ? classOfExpr(python, va, val) : undefined;
      const m = cls && method ? methodOf(python, cls, method) : undefined;
      out.set(name, fn ? bindOf(fn.file, fn.fn) : m ? bindOf(m.file, m.fn) : undefined);
    }
    return out.size ? out : undefined;
  }
  if (v.type === 'dictionary_comprehension') {
    const pair = named(v).find((x) => x.type === 'pair');
    const clauses = named(v).filter((x) => x.type === 'for_in_clause');
    const clause = clauses[0];
    const loopVar = clause ? field(clause, 'left') : undefined;
    const key = pair ? field(pair, 'key') : undefined;
    if (clauses.length !== 1 || !clause || loopVar?.type !== 'identifier' || !key || named(v).some((x) => x.type === 'if_clause')) return undefined;
    const items = sequenceItems(python, s, va, field(clause, 'right')!);
    if (!items?.length) return undefined;
    for (const it of items) {
      const cls = classOfExpr(python, it.a, it.node);
      if (!cls) return undefined;
      const name = keyForClass(python, va, key, loopVar.text, cls);
      if (name === undefined) return undefined;
      const m = method ? methodOf(python, cls, method) : undefined;
      out.set(name, m ? bindOf(m.file, m.fn) : undefined);
    }
    return out;
  }
  return undefined;
}

/** The module a name in `a` means, as a project file (`import checks`, `from pkg import checks`). */
function moduleFile(python: PythonProject, a: PythonAnalysis, n: PyNode): string | undefined {
  const u = unparen(n);
  if (u.type !== 'identifier') return undefined;
  const imp = a.imports().get(u.text);
  if (!imp) return undefined;
  const dotted = imp.name ? `${imp.module ? imp.module + (imp.module.endsWith('.') ? '' : '.') : ''}${imp.name}` : imp.module;
  const f = python.resolveModule(a.path, dotted, imp.level);
  return f && f !== a.path ? f : undefined;
}

/** The lookups by record member in a scope. */
function lookupsIn(python: PythonProject, flow: Flow, s: Scope): PyLookup[] {
  const a = s.a;
  const out: PyLookup[] = [];
  // names compared before a lookup, per member path
  const accepted = new Map<string, Set<string>>();
  for (const root of s.roots) {
    walk(root, (n) => {
      if (n.type !== 'comparison_operator') return;
      const [l, r] = named(n);
      if (!l || !r) return;
      const op = a.src(n).slice(l.end - n.start, r.start - n.start).trim();
      if (op !== '==') return;
      const p = flow.pathOf(l) ?? flow.pathOf(r);
      const c = flow.pathOf(l) ? constString(python, a, r) : constString(python, a, l);
      if (!p || c === undefined) return;
      const k = p.join('/');
      if (!accepted.has(k)) accepted.set(k, new Set());
      accepted.get(k)!.add(c);
    });
  }
  const seen = new Set<string>();
  for (const root of s.roots) {
    walk(root, (n) => {
      let lk: Omit<PyLookup, 'accepted'> | undefined;
      if (n.type === 'subscript') {
        const d = field(n, 'value');
        const key = field(n, 'subscript');
        const p = key ? flow.pathOf(key) : undefined;
        if (!d || !p?.length || flow.pathOf(d)) return;
        // the method called on what the lookup finds (`tools_map[name].invoke(...)`)
        const parent = n.parent?.type === 'attribute' && field(n.parent, 'object') === n ? field(n.parent, 'attribute')?.text : undefined;
        const names = registryKeys(python, s, d, parent);
        if (names) lk = { path: p, kind: 'key', target: a.src(d), names, via: { file: a.path, line: a.line(n) } };
      } else if (n.type === 'call') {
        const c = a.call(n);
        if (c?.calleeText !== 'getattr' || c.args.length < 2) return;
        const p = flow.pathOf(c.args[1]!);
        const file = p?.length ? moduleFile(python, a, c.args[0]!) : undefined;
        const ma = file ? python.analysis(file) : undefined;
        // a module that answers any name (`__getattr__`) or takes names it does not spell (`import *`)
        if (!p || !file || !ma || ma.moduleNames().has('__getattr__') || /^\s*from\s+\S+\s+import\s+\*/m.test(ma.text)) return;
        const names = new Map<string, Bind | undefined>();
        for (const name of ma.moduleNames()) {
          const fn = ma.functionByQualname(name);
          names.set(name, fn ? bindOf(file, fn) : undefined);
        }
        lk = { path: p, kind: 'export', target: file, names, via: { file: a.path, line: a.line(n) } };
      }
      if (!lk) return;
      const k = `${lk.kind}\0${lk.target}\0${lk.path.join('/')}`;
      if (seen.has(k)) return;
      seen.add(k);
      out.push({ ...lk, accepted: accepted.get(lk.path.join('/')) ?? new Set() });
    });
  }
  return out;
}

/** The scope a function's code shares: its class's methods (and the module's code when it is module level). */
function scopeOf(python: PythonProject, a: PythonAnalysis, fn: FunctionInfo | undefined, args: Scope['args']): Scope {
  if (!fn) return { a, roots: [a.ast], args };
  if (fn.className) {
    const info = a.classByQualname(fn.className);
    if (info) return { a, roots: [info.node], cls: { file: a.path, qualname: info.qualname, info }, args };
  }
  return { a, roots: [fn.node], args };
}

/** The function a call reaches, and its parameters (without self): `super().__init__`, `self.m`, `Cls(...)`, `f(...)`. */
function calleeOf(python: PythonProject, a: PythonAnalysis, call: PyNode): { file: string; fn: FunctionInfo; params: string[] } | undefined {
  const c = a.call(call);
  if (!c) return undefined;
  const strip = (fn: FunctionInfo) => fn.params.filter((p, i) => !(i === 0 && (p === 'self' || p === 'cls')));
  const here = a.functionAt(call);
  const cls = here?.className ? a.classByQualname(here.className) : undefined;
  const ref = cls ? { file: a.path, qualname: cls.qualname, info: cls } : undefined;
  if (/^super\(\s*\)\.\w+$/.test(c.calleeText) && ref) {
    for (const k of ancestry(python, ref).slice(1)) {
      const fn = k.info.methods.get(c.method);
      if (fn) return { file: k.file, fn, params: strip(fn) };
    }
    return undefined;
  }
  if (c.receiver?.text === 'self' && ref) {
    const m = methodOf(python, ref, c.method);
    return m ? { file: m.file, fn: m.fn, params: strip(m.fn) } : undefined;
  }
  if (c.receiver) return undefined;
  const k = classOfExpr(python, a, c.fn);
  if (k) {
    const m = methodOf(python, k, '__init__');
    return m ? { file: m.file, fn: m.fn, params: strip(m.fn) } : undefined;
  }
  const f = python.resolveFunction(a.path, c.calleeText);
  return f ? { file: f.file, fn: f.fn, params: strip(f.fn) } : undefined;
}

/** Follow the collection from where a name holds it into the code that takes records out of it. */
function follow(python: PythonProject, a: PythonAnalysis, key: string, fn: FunctionInfo | undefined, args: Scope['args'], depth: number, out: Array<{ flow: Flow; scope: Scope }>): void {
  const s = scopeOf(python, a, fn, args);
  const flow = new Flow(python, s);
  flow.containers.add(key);
  flow.run();
  out.push({ flow, scope: s });
  if (depth >= 2) return;
  // passed on as an argument: follow into the callee's parameter
  for (const root of s.roots) {
    walk(root, (n) => {
      if (n.type !== 'call') return;
      const argList = field(n, 'arguments');
      const given: Array<{ index?: number; kw?: string; node: PyNode }> = [];
      named(argList ?? n).forEach((x, i) => {
        if (x.type === 'keyword_argument') {
          const v = field(x, 'value');
          if (v) given.push({ kw: field(x, 'name')!.text, node: v });
        } else given.push({ index: i, node: x });
      });
      const passed = given.filter((g) => flow.isContainer(g.node));
      if (!passed.length) return;
      const callee = calleeOf(python, a, n);
      const ca = callee ? python.analysis(callee.file) : undefined;
      if (!callee || !ca) return;
      const calleeArgs: Scope['args'] = new Map();
      for (const g of given) {
        const p = g.kw ?? callee.params[g.index ?? -1];
        if (p) calleeArgs.set(`${callee.fn.qualname}:${p}`, { a, node: g.node });
      }
      for (const g of passed) {
        const p = g.kw ?? callee.params[g.index ?? -1];
        if (p && callee.params.includes(p)) follow(python, ca, `${callee.fn.qualname}:${p}`, callee.fn, calleeArgs, depth + 1, out);
      }
    });
  }
}

interface NearMiss { file: string; name: string; via: Where }
const memo = new WeakMap<PythonProject, PyTaskContainer[]>();

interface FileContainers {
  found: Array<Omit<PyTaskContainer, 'lookups'> & { lookups: readonly PyLookup[] }>;
  nearMisses: NearMiss[];
}

/** The containers whose records one harness file takes out (and the near misses), before merging. */
function fileContainers(python: PythonProject, f: string): FileContainers {
  const out: FileContainers = { found: [], nearMisses: [] };
  const text = python.text(f) ?? '';
  if (!mayLoad(text)) return out;
  try {
    const a = python.analysis(f);
    if (!a) return out;
    for (const use of collectionUses(python, a)) {
      const found: Array<{ flow: Flow; scope: Scope }> = [];
      follow(python, a, use.key, use.fn, new Map(), 0, found);
      const lookups = found.flatMap(({ flow, scope }) => (flow.memberReads > 0 ? lookupsIn(python, flow, scope) : []));
      const loader = found.find((x) => x.flow.loadLine !== undefined);
      if (!lookups.length) {
        if (loader && found.some((x) => x.flow.memberReads > 0)) out.nearMisses.push({ file: use.file, name: use.name, via: { file: loader.scope.a.path, line: loader.flow.loadLine! } });
        continue;
      }
      out.found.push({
        file: use.file, name: use.name,
        via: loader ? { file: loader.scope.a.path, line: loader.flow.loadLine! } : { file: a.path, line: use.line },
        idMember: found.map((x) => x.flow.idMember).find((m) => m),
        lookups,
      });
    }
  } catch {
    // harness code vaudit cannot follow loads no tasks
  }
  return out;
}

/** Every Python task container of the project, with the lookups that route its records. */
export function pythonTaskContainers(python: PythonProject): PyTaskContainer[] {
  const hit = memo.get(python);
  if (hit) return hit;
  const byKey = new Map<string, PyTaskContainer>();
  const nearMisses: NearMiss[] = [];
  for (const f of python.files()) {
    // per file, kept over an editor's edits while what it read is the same (file-memo.ts); merged here
    // into fresh objects, so the kept answers are never changed
    const fc = perFile('py-task-containers', python, f, fileContainers);
    nearMisses.push(...fc.nearMisses);
    for (const c of fc.found) {
      const k = `${c.file}\0${c.name}`;
      const prev = byKey.get(k);
      if (prev) {
        for (const l of c.lookups) if (!prev.lookups.some((p) => p.kind === l.kind && p.target === l.target && p.path.join('/') === l.path.join('/'))) prev.lookups.push(l);
        continue;
      }
      byKey.set(k, { ...c, lookups: [...c.lookups] });
    }
  }
  const out = [...byKey.values()];
  memo.set(python, out);
  const byName = new Map(nearMisses.map((m) => [`${m.file}\0${m.name}`, m]));
  missed.set(python, [...byName].filter(([k]) => !byKey.has(k)).map(([, m]) => m));
  return out;
}

const missed = new WeakMap<PythonProject, NearMiss[]>();

/** Collections harness code takes records out of and reads members of, routing none by them (for "why nothing was recognised"). */
export function pythonDataNearMisses(python: PythonProject): NearMiss[] {
  pythonTaskContainers(python);
  return missed.get(python) ?? [];
}

/** `assignsCollection`'s answers per project (or per view of it) and module: a module is imported by many
 *  harness files, and its whole text was screened again at each import (Spider2-V: ≈ 12 ms a run). */
const collectionScreens = new WeakMap<PythonProject, Map<string, boolean>>();

/** Whether a module's text assigns a collection display at module level (`TASKS = [`, `X: dict = {`). */
function assignsCollection(python: PythonProject, file: string): boolean {
  // the text is asked for every time: an editor session's view notes what each answer read (file-memo.ts)
  const text = python.text(file) ?? '';
  let byFile = collectionScreens.get(python);
  if (!byFile) collectionScreens.set(python, (byFile = new Map()));
  let hit = byFile.get(file);
  if (hit === undefined) byFile.set(file, (hit = /^\w+\s*(?::[^=\n]*)?=\s*[[({]\s*[^\s\])}]/m.test(text)));
  return hit;
}

/** Text that may take records out of a collection named `name`: a loop over it, an index, an argument, an alias. */
const loadsOf = (name: string) => new RegExp(`\\bin\\s+${name}\\b|\\b${name}\\s*\\[|[(,=]\\s*${name}\\s*[,)\\n]`);

/** Cheap screen on a file's text: a collection of its own, or an imported name, that its code may take records out of. */
function mayLoad(text: string): boolean {
  for (const m of text.matchAll(/^(\w+)\s*(?::[^=\n]*)?=\s*[[({]\s*[^\s\])}]/gm)) if (loadsOf(m[1]!).test(text.slice(m.index + m[0].length))) return true;
  for (const m of text.matchAll(/^[ \t]*from\s+\S+\s+import\s+(\([^)]*\)|[^\n]+)/gm)) {
    for (const part of m[1]!.replace(/[()]/g, '').split(',')) {
      const local = /(\w+)\s*$/.exec(part.replace(/#.*$/gm, '').trim())?.[1];
      if (local && loadsOf(local).test(text)) return true;
    }
  }
  return false;
}

/** Names bound to a module-level collection of a project module: imported (anywhere in the file, any alias) or the module's own. */
function collectionUses(python: PythonProject, a: PythonAnalysis): Array<{ key: string; fn: FunctionInfo | undefined; file: string; name: string; line: number }> {
  const out: Array<{ key: string; fn: FunctionInfo | undefined; file: string; name: string; line: number }> = [];
  walk(a.ast, (n) => {
    // imports are statements: the walk leaves expressions (most of a tree) out
    if (n.type !== 'import_from_statement') return mayHoldStatements(n) ? undefined : false;
    const mod = field(n, 'module_name');
    const { module, level } = importFromModule(n, (x) => a.src(x));
    const file = python.resolveModule(a.path, module, level);
    // cheap screen before parsing the module: it assigns a collection at module level
    const b = file && file !== a.path && assignsCollection(python, file) ? python.analysis(file) : undefined;
    if (!b) return false;
    const top = moduleAssignments(b);
    for (const c of named(n)) {
      if (c === mod) continue;
      const nm = c.type === 'aliased_import' ? field(c, 'name') : c;
      const alias = c.type === 'aliased_import' ? field(c, 'alias') : c;
      const v = nm ? top.get(a.src(nm)) : undefined;
      if (!nm || !alias || !v || !isCollectionValue(v.value)) continue;
      const fn = a.functionAt(n);
      const local = a.src(alias);
      if (fn) out.push({ key: `${fn.qualname}:${local}`, fn, file: b.path, name: a.src(nm), line: a.line(n) });
      else {
        out.push({ key: `:${local}`, fn: undefined, file: b.path, name: a.src(nm), line: a.line(n) });
        const loads = loadsOf(local);
        for (const g of a.functions()) if (loads.test(a.src(g.node))) out.push({ key: `${g.qualname}:${local}`, fn: g, file: b.path, name: a.src(nm), line: a.line(n) });
      }
    }
    return false;
  });
  for (const [name, v] of moduleAssignments(a)) {
    // the module's own collection, iterated, indexed or passed on in its functions
    const loads = loadsOf(name);
    if (!loads.test(a.text) || !isCollectionValue(v.value)) continue;
    for (const fn of a.functions()) {
      if (loads.test(a.src(fn.node))) out.push({ key: `${fn.qualname}:${name}`, fn, file: a.path, name, line: a.line(v.node) });
    }
  }
  return out;
}
