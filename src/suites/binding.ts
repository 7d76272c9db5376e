/**
 * Verifier binding: link each verifier entry (family, kind) to the Python
 * function that grades it, so cross-layer rules (e.g. float-equality) can read
 * the code an entry routes to.
 *
 * Options (config `adapterOptions`):
 * - `dispatch`: function-name template with a `{kind}` placeholder, default `_eval_{kind}`
 *   (the reference verifiers reach `_eval_<kind>` methods through `getattr(self, f"_eval_{type}")`);
 * - `verifierModules` (alias `modules`): family → module path (relative to the suite root or the
 *   project root, or a suffix of a project file path) that grades it.
 *
 * Zero-config default: a family's grading module is a Python file under a folder (or with a stem)
 * named after the family (case-insensitive, `_`/`-` ignored) that defines the dispatch function;
 * methods inherited from a base class are found through the class bases; a dispatch function
 * defined once in the project (e.g. a shared `_eval_stop`) binds for every family.
 */
import path from 'node:path';
import type { Suite, VerifierBinding } from './types.js';
import type { ClassInfo, FunctionInfo, PythonProject } from '../lang/python/types.js';
import { ADAPTERS } from './adapters.js';
import { ownValue } from '../core/own.js';

interface BindingOptions {
  dispatch?: string;
  verifierModules?: Record<string, string>;
  modules?: Record<string, string>;
}

const norm = (s: string) => s.toLowerCase().replace(/[_\-\s]/g, '');

export async function bindVerifiers(suites: readonly Suite[], python: PythonProject, opts: Record<string, unknown> = {}): Promise<void> {
  // adapters that route by their own dispatch (e.g. the OSWorld family's metrics/getters packages) bind their suites
  const rest: Suite[] = [];
  for (const a of new Set(suites.map((s) => s.adapter))) {
    const own = suites.filter((s) => s.adapter === a);
    const bind = ADAPTERS.find((x) => x.id === a)?.bind;
    if (!bind) {
      rest.push(...own);
      continue;
    }
    try {
      await bind(own, python, opts);
    } catch {
      // an adapter's binder never breaks the run: its entries stay unbound
    }
  }
  bindByFamily(rest, python, opts);
}

/** The default binder: a family's module (by folder or stem) and the `_eval_{kind}` dispatch. */
function bindByFamily(suites: readonly Suite[], python: PythonProject, opts: Record<string, unknown>): void {
  const o = opts as BindingOptions;
  const template = typeof o.dispatch === 'string' && o.dispatch.includes('{kind}') ? o.dispatch : '_eval_{kind}';
  const modules = { ...(o.modules ?? {}), ...(o.verifierModules ?? {}) };
  const files = python.files();
  if (!files.length) return;
  // the project caches analyses (within its memory budget): no second cache here that would keep every file alive
  const an = (f: string) => python.analysis(f);
  const families = new Set<string>();
  for (const s of suites) for (const t of s.tasks) families.add(t.family);
  const familyNorms = new Set([...families].map(norm));

  /** Files that belong to a family by folder or stem (asked for every file per entry kind: memoised). */
  const familyMemo = new Map<string, string | undefined>();
  const familyOf = (f: string): string | undefined => {
    if (familyMemo.has(f)) return familyMemo.get(f);
    const parts = f.split(path.sep).map((p) => norm(p.replace(/\.py$/, '')));
    let fam: string | undefined;
    for (let i = parts.length - 1; i >= 0; i--) if (familyNorms.has(parts[i]!)) { fam = parts[i]; break; }
    familyMemo.set(f, fam);
    return fam;
  };

  /** Names after `def` in a file's text (the screen above, for every dispatch name at once: it is asked
   *  for every file per entry kind). The lookahead lets `def def f` name both. */
  const defsMemo = new Map<string, Set<string>>();
  const defNames = (f: string): Set<string> => {
    let names = defsMemo.get(f);
    if (!names) {
      names = new Set();
      for (const m of (python.text(f) ?? '').matchAll(/\bdef[ \t]+(?=(\w+))/g)) names.add(m[1]!);
      defsMemo.set(f, names);
    }
    return names;
  };
  const resolveMemo = new Map<string, { file: string; cls: ClassInfo } | undefined>();

  const cache = new Map<string, VerifierBinding | null>();
  for (const suite of suites) {
    for (const task of suite.tasks) {
      for (const entry of task.entries) {
        const sort = String((task.json as Record<string, unknown> | null)?.sort ?? '');
        const key = `${suite.root}\0${task.family}\0${entry.kind}\0${sort}`;
        let b = cache.get(key);
        if (b === undefined) {
          b = bind(suite.root, task.family, entry.kind, sort) ?? null;
          cache.set(key, b);
        }
        if (b) entry.binding = b;
      }
    }
  }

  function bind(root: string, family: string, kind: string, sort: string): VerifierBinding | undefined {
    if (!/^[A-Za-z_]\w*$/.test(kind)) return undefined;
    const fname = template.replace('{kind}', kind);
    // `family` is task text (`toString`, `__proto__` …): only the config's own keys count.
    const configured = ownValue(modules, family);
    let candidates: string[];
    if (configured) {
      const abs = [path.resolve(root, configured), path.resolve(configured)];
      const suffix = configured.split('/').join(path.sep);
      candidates = files.filter((f) => abs.includes(f) || f.endsWith(suffix) || f.startsWith(abs[0]! + path.sep));
    } else {
      const fam = norm(family);
      candidates = files.filter((f) => familyOf(f) === fam);
    }
    // a file whose text has no `def <fname>` defines no such function: not parsed for it
    const defRe = /^\w+$/.test(fname) ? undefined : new RegExp(`\\bdef[ \\t]+${fname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);
    const mayDefine = (f: string) => (defRe ? defRe.test(python.text(f) ?? '') : defNames(f).has(fname));
    // 1. the dispatch function in the family's modules (directly or through class bases); when several
    //    classes define it, the one named after the task's `sort` (ScienceBoard: "VM" → VMTask, "Raw" → RawTask)
    for (const f of candidates) {
      if (!mayDefine(f)) continue;
      const a = an(f);
      if (!a) continue;
      const hits = a.functions().filter((fn) => fn.name === fname && (fn.classNode || !fn.qualname.includes('.')));
      const hit = (sort && hits.find((fn) => fn.className?.startsWith(sort))) || hits[0];
      if (hit) return toBinding(f, hit);
    }
    for (const f of candidates) {
      const a = an(f);
      if (!a) continue;
      for (const c of a.classes()) {
        const hit = viaBases(f, c.bases, fname, 0);
        if (hit) return hit;
      }
    }
    if (configured) return undefined;
    // 2. defined once in the project outside other families' folders (a shared base)
    const shared: Array<{ f: string; fn: FunctionInfo }> = [];
    for (const f of files) {
      const fam = familyOf(f);
      if (fam && fam !== norm(family)) continue;
      if (!mayDefine(f)) continue;
      const a = an(f);
      if (!a) continue;
      for (const fn of a.functions()) if (fn.name === fname && (fn.classNode || !fn.qualname.includes('.'))) shared.push({ f, fn });
    }
    if (shared.length === 1) return toBinding(shared[0]!.f, shared[0]!.fn);
    return undefined;
  }

  function viaBases(file: string, bases: string[], fname: string, depth: number): VerifierBinding | undefined {
    if (depth > 6) return undefined;
    for (const base of bases) {
      const loc = resolveClass(file, base);
      if (!loc) continue;
      const m = loc.cls.methods.get(fname);
      if (m) return toBinding(loc.file, m);
      const deeper = viaBases(loc.file, loc.cls.bases, fname, depth + 1);
      if (deeper) return deeper;
    }
    return undefined;
  }

  function resolveClass(file: string, name: string): { file: string; cls: ClassInfo } | undefined {
    const key = `${file}\0${name}`;
    if (!resolveMemo.has(key)) resolveMemo.set(key, findClass(file, name));
    return resolveMemo.get(key);
  }

  function findClass(file: string, name: string): { file: string; cls: ClassInfo } | undefined {
    const a = an(file);
    if (!a) return undefined;
    const local = a.classByQualname(name);
    if (local) return { file, cls: local };
    const [head, ...rest] = name.split('.');
    const imp = a.imports().get(head!);
    if (!imp) return undefined;
    const modPath = imp.name
      ? python.resolveModule(file, imp.module, imp.level)
      : python.resolveModule(file, [imp.module, ...rest.slice(0, -1)].join('.'), 0);
    if (!modPath) return undefined;
    const target = imp.name ? [imp.name, ...rest].join('.') : rest[rest.length - 1] ?? '';
    const b = an(modPath)?.classByQualname(target);
    return b ? { file: modPath, cls: b } : undefined;
  }

  function toBinding(file: string, fn: FunctionInfo): VerifierBinding {
    return { file, qualname: fn.qualname, start: fn.node.start, end: fn.node.end };
  }
}
