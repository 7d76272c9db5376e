/**
 * The OSWorld-family adapter (OSWorld, OSWorld-Verified, Spider2-V, WindowsAgentArena…): tasks
 * `{"config": [...], "evaluator": {"func", "result", "expected", "options", "conj", "postconfig"}}`.
 * Recognised by shape, without config.
 *
 * How the real dispatcher (`desktop_env/envs/desktop_env.py`) consumes the evaluator, and so how the
 * entries are built:
 * - `func` is a metric name or a list of them; `getattr(metrics, func)` looks each up in the metrics
 *   package (its `__init__.py` re-exports). A list gives one entry per metric: entry i takes
 *   `result[i]`, `expected[i]` and `options[i]` (the lists must have the same length; a missing
 *   `options` means `{}` for every metric; an `expected[i]` of null means no expected state).
 * - each `result`/`expected` `type` is looked up as `get_<type>` in the getters package.
 * - the metric is called `metric(result_state, expected_state, **options)`, or
 *   `metric(result_state, **options)` when there is no expected state; `conj` ("and" by default,
 *   or "or") combines the metrics of a list.
 * - `func: "infeasible"` grades whether the agent gave up: the metric is never called.
 * - `postconfig` steps run before grading through the set-up controller (`_<type>_setup`), like
 *   the `config` steps before the task: both are the task's initializers.
 *
 * Binding learns the packages and the getter name template from the dispatcher's own
 * `getattr(metrics, …)` / `getattr(getters, "get_{:}".format(…))` calls and the imports that name
 * those modules; it falls back to `desktop_env/evaluators/{metrics,getters}` and `get_{type}`.
 * Re-exports are followed as Python does (the last import of a name wins).
 */
import * as path from 'node:path';
import type { JsonDocument } from '../lang/json/parse.js';
import { isObject, joinPointer } from '../lang/json/parse.js';
import type { SourceFile } from '../core/source.js';
import type { AdapterLoadOptions, AdapterLoadResult, DetectedDocument, SuiteAdapter } from './adapter.js';
import type { EntryRoute, Suite, Task, VerifierEntry } from './types.js';
import type { JsonValueRef } from '../lang/json/parse.js';
import type { FunctionInfo, PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { field, named, walk, type PyNode } from '../lang/python/tree.js';
import { membersOf } from './reference.js';

export const OSWORLD_ADAPTER_ID = 'osworld';

/** Template and index files that share the task shape but are not tasks (`template.json`, `*_template.json`). */
function isTemplateFile(file: SourceFile): boolean {
  return /(^|[_.-])template$/i.test(path.basename(file.path).replace(/\.jsonc?$/i, ''));
}

/** Does this document look like an OSWorld-family task? */
function isOsworldTask(v: unknown): boolean {
  if (!isObject(v) || !('evaluator' in v)) return false;
  const ev = v.evaluator;
  if (isObject(ev)) return typeof ev.func === 'string' || Array.isArray(ev.func);
  // an evaluator that is not an object is still this format's task when the rest says so
  return Array.isArray(v.config) || typeof v.instruction === 'string';
}

/** The suite root: the parent of the nearest `evaluation_examples` folder, else the project root. */
function suiteRootOf(filePath: string, projectRoot: string): string {
  let dir = path.dirname(filePath);
  for (;;) {
    if (path.basename(dir) === 'evaluation_examples') return path.dirname(dir);
    const up = path.dirname(dir);
    if (up === dir || dir === projectRoot || !dir.startsWith(projectRoot)) return projectRoot;
    dir = up;
  }
}

/** The app folder after `examples/` (`evaluation_examples/examples/<app>/…`), else the first related app. */
function familyOf(relPath: string, json: Record<string, unknown>): string {
  const parts = relPath.split('/');
  const i = parts.lastIndexOf('examples');
  if (i >= 0 && i + 2 < parts.length) return parts[i + 1]!;
  const apps = json.related_apps;
  if (Array.isArray(apps) && typeof apps[0] === 'string') return apps[0];
  return 'osworld';
}

/** The getter route of a `result`/`expected` config (an object with a string `type`). */
function getterRoute(doc: JsonDocument, role: 'result' | 'expected', pointer: string, cfg: unknown): EntryRoute | undefined {
  if (!isObject(cfg) || typeof cfg.type !== 'string') return undefined;
  const ref = doc.values.get(joinPointer(pointer, 'type'));
  return ref ? { role, name: cfg.type, target: `get_${cfg.type}`, ref } : undefined;
}

function buildOsworldTask(file: SourceFile, doc: JsonDocument, suite: Suite): Task {
  const json = doc.value as Record<string, unknown>;
  const stem = path.basename(file.path).replace(/\.json$/i, '');
  const task: Task = {
    suite,
    file,
    id: typeof json.id === 'string' && json.id.trim() !== '' ? json.id : stem,
    family: familyOf(file.relPath, json),
    json,
    fields: membersOf(doc, '', json),
    values: doc.values,
    entries: [],
    initializers: [],
  };
  const steps = (role: 'config' | 'postconfig', pointer: string, list: unknown) => {
    if (!Array.isArray(list)) return;
    list.forEach((step, i) => {
      const p = joinPointer(pointer, i);
      const ref = doc.values.get(p);
      if (ref) task.initializers.push(ref);
      const typeRef = doc.values.get(joinPointer(p, 'type'));
      if (isObject(step) && typeof step.type === 'string' && typeRef)
        (task.initializerRoutes ??= []).push({ role, name: step.type, target: `_${step.type}_setup`, ref: typeRef });
    });
  };
  steps('config', '/config', json.config);
  const ev = json.evaluator;
  if (!isObject(ev)) return task;
  steps('postconfig', '/evaluator/postconfig', ev.postconfig);
  const evRef = doc.values.get('/evaluator');
  if (!evRef) return task;
  const shared = (name: string): Record<string, JsonValueRef> => {
    const r = doc.values.get(joinPointer('/evaluator', name));
    return r ? { [name]: r } : {};
  };
  if (typeof ev.func === 'string') {
    const funcRef = doc.values.get('/evaluator/func')!;
    const entry: VerifierEntry = {
      task,
      index: 0,
      kind: ev.func,
      pointer: '/evaluator',
      ref: evRef,
      fields: membersOf(doc, '/evaluator', ev),
      embedded: [],
      routes: [{ role: 'metric', name: ev.func, target: ev.func, ref: funcRef }],
    };
    for (const role of ['result', 'expected'] as const) {
      const r = getterRoute(doc, role, `/evaluator/${role}`, ev[role]);
      if (r) entry.routes!.push(r);
    }
    task.entries.push(entry);
    return task;
  }
  if (!Array.isArray(ev.func)) return task;
  ev.func.forEach((f, i) => {
    const pointer = joinPointer('/evaluator/func', i);
    const funcRef = doc.values.get(pointer);
    if (!funcRef) return;
    const fields: Record<string, JsonValueRef> = { ...shared('conj'), ...shared('postconfig'), func: funcRef };
    const entry: VerifierEntry = { task, index: i, kind: typeof f === 'string' ? f : '', pointer, ref: funcRef, fields, embedded: [], routes: [] };
    if (typeof f === 'string') entry.routes!.push({ role: 'metric', name: f, target: f, ref: funcRef });
    for (const role of ['result', 'expected', 'options'] as const) {
      const list = ev[role];
      if (!Array.isArray(list) || i >= list.length) continue;
      const p = joinPointer(`/evaluator/${role}`, i);
      const ref = doc.values.get(p);
      if (ref) fields[role] = ref;
      if (role !== 'options') {
        const r = getterRoute(doc, role, p, list[i]);
        if (r) entry.routes!.push(r);
      }
    }
    task.entries.push(entry);
  });
  return task;
}

/** Where the dispatcher looks functions up. */
interface OsworldDispatch {
  /** The metrics package (`…/metrics/__init__.py`). */
  metrics?: string;
  /** The getters package. */
  getters?: string;
  /** Getter name around the type (`get_` + type + ``). */
  getterPrefix: string;
  getterSuffix: string;
  /** The file the dispatch was learned from, when found. */
  learnedFrom?: string;
}

const dispatchCache = new WeakMap<PythonProject, OsworldDispatch>();

/** Learn the dispatch from the dispatcher's `getattr(<module>, …)` calls (cached per project). */
function osworldDispatch(python: PythonProject): OsworldDispatch {
  const hit = dispatchCache.get(python);
  if (hit) return hit;
  const d: OsworldDispatch = { getterPrefix: 'get_', getterSuffix: '' };
  const files = python.files();
  // the dispatcher is the file that looks up both a templated name (the getters) and a plain one (the metrics)
  for (const f of files) {
    // the text first: a file without `getattr(` is not parsed for this (most are never parsed at all)
    if (!python.text(f)?.includes('getattr(')) continue;
    const a = python.analysis(f);
    if (!a) continue;
    const imports = a.imports();
    let getters: { mod: string; prefix: string; suffix: string } | undefined;
    let metrics: string | undefined;
    walk(a.ast, (n) => {
      if (n.type !== 'call') return;
      const fn = field(n, 'function');
      if (!fn || a.src(fn) !== 'getattr') return;
      const [obj, name] = named(field(n, 'arguments') ?? n);
      if (!obj || !name || obj.type !== 'identifier') return;
      const imp = imports.get(a.src(obj));
      if (!imp) return;
      const mod = python.resolveModule(f, imp.name ? (imp.module ? `${imp.module}.${imp.name}` : imp.name) : imp.module, imp.level);
      if (!mod) return;
      // `"get_{:}".format(t)` / f"get_{t}": a templated name → the getters package
      const tpl = /^[rbuf]*["']([A-Za-z_]\w*?)?\{[^}]*\}(\w*)["']/.exec(a.src(name));
      if (tpl) getters ??= { mod, prefix: tpl[1] ?? '', suffix: tpl[2] ?? '' };
      else if (name.type === 'identifier' || name.type === 'subscript') metrics ??= mod;
    });
    if (getters && metrics && getters.mod !== metrics) {
      d.metrics = metrics;
      d.getters = getters.mod;
      d.getterPrefix = getters.prefix;
      d.getterSuffix = getters.suffix;
      d.learnedFrom = f;
      break;
    }
  }
  const pkg = (folder: string) => files.find((f) => f.split(path.sep).join('/').endsWith(`evaluators/${folder}/__init__.py`));
  d.metrics ??= pkg('metrics');
  d.getters ??= pkg('getters');
  dispatchCache.set(python, d);
  return d;
}

/**
 * How the set-up controller runs a `config`/`postconfig` step, learned from its dispatch method
 * (Spider2-V's `SetupController.setup`): `getattr(self, "_{:}_setup".format(cfg["type"]))(**cfg["parameters"])`
 * when the class has that method, else `getattr(configs, "{:}_setup".format(…), None)(self, **parameters)`.
 */
export interface SetupDispatch {
  /** The controller class and its file. */
  file: string;
  className: string;
  /** The class has bases: a method may be inherited from code we do not model. */
  inherits: boolean;
  method: { prefix: string; suffix: string; positional?: number };
  /** The module-level fallback (a package of `<type>_setup` functions), when the dispatcher has one. */
  fallback?: { module: string; prefix: string; suffix: string; positional?: number };
  /** Step keys read by subscript (`cfg["type"]`, `cfg["parameters"]`): a step without them raises KeyError. */
  typeKey?: string;
  paramsKey?: string;
}

const setupCache = new WeakMap<PythonProject, SetupDispatch | null>();

/** Name template of a `"pre{:}suf".format(x)` / f-string expression, and the formatted expression. */
function nameTemplate(a: PythonAnalysis, n: PyNode): { prefix: string; suffix: string; arg?: PyNode } | undefined {
  for (const v of a.valueSources(n)) {
    const tpl = /^[rbuf]*["']([A-Za-z_]\w*?)?\{[^}]*\}(\w*)["']/.exec(a.src(v));
    if (!tpl) continue;
    let arg: PyNode | undefined;
    if (v.type === 'call') arg = a.call(v)?.args[0];
    else if (v.type === 'string') {
      const interp = named(v).find((c) => c.type === 'interpolation');
      arg = interp ? named(interp)[0] : undefined;
    }
    return { prefix: tpl[1] ?? '', suffix: tpl[2] ?? '', arg };
  }
  return undefined;
}

/** The string key of a `x["key"]` value source of `n`. */
function subscriptKey(a: PythonAnalysis, n: PyNode | undefined): string | undefined {
  if (!n) return undefined;
  for (const v of a.valueSources(n)) {
    if (v.type !== 'subscript') continue;
    const k = field(v, 'subscript');
    const m = k?.type === 'string' ? /^[rbuf]*(['"])(\w+)\1$/.exec(a.src(k)) : null;
    if (m) return m[2];
  }
  return undefined;
}

/** Positional arguments of a call, and the key its `**splat` comes from (`**cfg["parameters"]` through a local). */
function callShape(a: PythonAnalysis, call: PyNode): { positional: number; paramsKey?: string } {
  const info = a.call(call);
  const splat = named(field(call, 'arguments') ?? call).find((x) => x.type === 'dictionary_splat');
  return { positional: info?.args.length ?? 0, paramsKey: subscriptKey(a, splat ? named(splat)[0] : undefined) };
}

/**
 * Resolve an import; an absolute one the project's module names miss (a top folder without
 * `__init__.py`, as Spider2-V's `desktop_env`) is tried from each folder above the importing file,
 * as Python finds it from the repository root on `sys.path`.
 */
function resolveImport(python: PythonProject, fromFile: string, module: string, level: number): string | undefined {
  const hit = python.resolveModule(fromFile, module, level);
  if (hit || level > 0 || !module) return hit;
  const files = new Set(python.files());
  const rel = module.split('.');
  for (let dir = path.dirname(fromFile); ; dir = path.dirname(dir)) {
    for (const c of [`${path.join(dir, ...rel)}.py`, path.join(dir, ...rel, '__init__.py')]) if (files.has(c)) return c;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Learn the set-up dispatch: a method that calls `getattr(self, <templated name>)(…)`. */
export function setupDispatch(python: PythonProject): SetupDispatch | undefined {
  const hit = setupCache.get(python);
  if (hit !== undefined) return hit ?? undefined;
  let found: SetupDispatch | undefined;
  for (const f of python.files()) {
    if (!python.text(f)?.includes('getattr(self')) continue;
    const a = python.analysis(f);
    if (!a) continue;
    walk(a.ast, (n) => {
      if (found) return false;
      if (n.type !== 'call' || a.src(field(n, 'function') ?? n) !== 'getattr') return;
      const [obj, name] = named(field(n, 'arguments') ?? n);
      if (!obj || !name || a.src(obj) !== 'self') return;
      const fn = a.functionAt(n);
      const tpl = nameTemplate(a, name);
      if (!fn?.className || !tpl) return;
      const cls = a.classes().find((c) => c.node === fn.classNode);
      if (!cls) return;
      const d: SetupDispatch = { file: f, className: cls.qualname, inherits: cls.bases.some((b) => b !== 'object'), method: { prefix: tpl.prefix, suffix: tpl.suffix } };
      d.typeKey = subscriptKey(a, tpl.arg);
      // the call of the looked-up method: `getattr(self, name)(…)`
      if (n.parent?.type === 'call' && field(n.parent, 'function') === n) {
        const sh = callShape(a, n.parent);
        d.method.positional = sh.positional;
        d.paramsKey = sh.paramsKey;
      }
      // the fallback in the same method: `g = getattr(<module>, "<tpl>".format(…), None)` then `g(self, **parameters)`
      walk(fn.node, (m) => {
        if (m.type !== 'call' || a.src(field(m, 'function') ?? m) !== 'getattr' || m === n) return;
        const [o, nm] = named(field(m, 'arguments') ?? m);
        if (!o || !nm || o.type !== 'identifier') return;
        const imp = a.imports().get(a.src(o));
        const t = nameTemplate(a, nm);
        const mod = imp && t ? resolveImport(python, f, imp.name ? (imp.module ? `${imp.module}.${imp.name}` : imp.name) : imp.module, imp.level) : undefined;
        if (!mod || !t) return;
        d.fallback = { module: mod, prefix: t.prefix, suffix: t.suffix };
        walk(fn.node, (c) => {
          if (c.type !== 'call') return;
          const callee = field(c, 'function');
          if (callee?.type !== 'identifier' || !a.valueSources(callee).includes(m)) return;
          const sh = callShape(a, c);
          d.fallback!.positional = sh.positional;
          d.paramsKey ??= sh.paramsKey;
        });
      });
      found = d;
      return false;
    });
    if (found) break;
  }
  setupCache.set(python, found ?? null);
  return found;
}

/** Bind each set-up step to the controller method or the fallback function the dispatcher would call. */
function bindSetupSteps(suites: Suite[], python: PythonProject): void {
  const d = setupDispatch(python);
  if (!d) return;
  const a = python.analysis(d.file);
  const cls = a?.classByQualname(d.className);
  if (!a || !cls) return;
  const binding = (file: string, fn: FunctionInfo) => ({ file, qualname: fn.qualname, start: fn.node.start, end: fn.node.end });
  for (const s of suites) {
    for (const t of s.tasks) {
      for (const r of t.initializerRoutes ?? []) {
        const method = `${d.method.prefix}${r.name}${d.method.suffix}`;
        const m = /^[A-Za-z_]\w*$/.test(method) ? cls.methods.get(method) : undefined;
        if (m) {
          r.target = method;
          r.binding = binding(d.file, m);
          continue;
        }
        if (d.fallback) {
          const name = `${d.fallback.prefix}${r.name}${d.fallback.suffix}`;
          const g = /^[A-Za-z_]\w*$/.test(name) ? python.resolveFunction(d.fallback.module, name) : undefined;
          if (g) {
            r.target = name;
            r.binding = binding(g.file, g.fn);
            continue;
          }
        }
        r.target = method;
        // an inherited method may exist in a base class we do not model: not known to be missing
        if (d.inherits) continue;
        const rel = (p: string) => path.relative(s.root, p).split(path.sep).join('/') || p;
        r.unbound = `\`${d.className}\` (${rel(d.file)}) has no method \`${method}\`${d.fallback ? ` and ${rel(d.fallback.module)} defines or re-exports no \`${d.fallback.prefix}${r.name}${d.fallback.suffix}\`` : ''}`;
      }
    }
  }
}

function bindOsworld(suites: Suite[], python: PythonProject): void {
  if (!python.files().length) return;
  const d = osworldDispatch(python);
  const cache = new Map<string, { file: string; qualname: string; start: number; end: number } | null>();
  const lookup = (pkg: string, name: string) => {
    const key = `${pkg}\0${name}`;
    let b = cache.get(key);
    if (b === undefined) {
      const r = /^[A-Za-z_]\w*$/.test(name) ? python.resolveFunction(pkg, name) : undefined;
      b = r ? { file: r.file, qualname: r.fn.qualname, start: r.fn.node.start, end: r.fn.node.end } : null;
      cache.set(key, b);
    }
    return b ?? undefined;
  };
  for (const s of suites) {
    for (const t of s.tasks) {
      for (const e of t.entries) {
        for (const r of e.routes ?? []) {
          const pkg = r.role === 'metric' ? d.metrics : d.getters;
          if (!pkg) continue;
          if (r.role !== 'metric') r.target = `${d.getterPrefix}${r.name}${d.getterSuffix}`;
          const b = lookup(pkg, r.target);
          if (b) {
            r.binding = b;
            if (r.role === 'metric') e.binding = b;
          } else {
            r.unbound = `${path.relative(s.root, pkg).split(path.sep).join('/') || pkg} defines or re-exports no function \`${r.target}\``;
          }
        }
      }
    }
  }
  bindSetupSteps(suites, python);
}

export const osworldAdapter: SuiteAdapter = {
  id: OSWORLD_ADAPTER_ID,
  description: 'OSWorld-family tasks (OSWorld, Spider2-V, …): "evaluator": {"func", "result", "expected", "options", "conj", "postconfig"} graded by a metrics package and getters.',
  detect(doc, file) {
    return isOsworldTask(doc.value) && !isTemplateFile(file);
  },
  load(docs: DetectedDocument[], options: AdapterLoadOptions): AdapterLoadResult {
    const byRoot = new Map<string, Suite>();
    for (const { file, doc } of docs) {
      const root = suiteRootOf(file.path, options.root);
      let suite = byRoot.get(root);
      if (!suite) byRoot.set(root, (suite = { adapter: OSWORLD_ADAPTER_ID, root, tasks: [] }));
      suite.tasks.push(buildOsworldTask(file, doc, suite));
    }
    const suites = [...byRoot.values()].sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
    for (const s of suites) s.tasks.sort((a, b) => (a.file.relPath < b.file.relPath ? -1 : a.file.relPath > b.file.relPath ? 1 : 0));
    return { suites, problems: [] };
  },
  bind(suites, python) {
    bindOsworld(suites, python);
  },
  // the binder reads bodies only to learn the two dispatches (the rest is the modules' summaries)
  bindKey(_suites, python) {
    return python.files().length ? JSON.stringify([osworldDispatch(python), setupDispatch(python) ?? null]) : '';
  },
};
