/** Resolving Python class references across a project: `Cls`, `mod.Cls`, `pkg.mod.Cls` through imports. */
import type { ClassInfo, FunctionInfo, PythonAnalysis, PythonProject, PyNode } from '../../lang/python/types.js';
import { unparen } from '../../lang/python/tree.js';

export interface ClassRef {
  file: string;
  qualname: string;
  info: ClassInfo;
}

function classIn(python: PythonProject, file: string, name: string, depth = 0): ClassRef | undefined {
  const a = python.analysis(file);
  if (!a) return undefined;
  const info = a.classByQualname(name);
  if (info) return { file, qualname: name, info };
  // re-exported through the module's imports (`from .clock import ClockTask` in a package's __init__)
  if (depth < 3 && !name.includes('.')) {
    const imp = a.imports().get(name);
    if (imp) return resolveDotted(python, a, name, depth + 1);
  }
  return undefined;
}

/** The class a dotted name means in `a`'s module (local, imported, or module-qualified). */
export function resolveDotted(python: PythonProject, a: PythonAnalysis, dotted: string, depth = 0): ClassRef | undefined {
  const local = a.classByQualname(dotted);
  if (local) return { file: a.path, qualname: dotted, info: local };
  const [head, ...rest] = dotted.split('.');
  const imp = a.imports().get(head!);
  if (!imp) return undefined;
  if (imp.name) {
    // `from pkg import mod` then `mod.Cls`, or `from pkg.mod import Cls`
    if (rest.length) {
      const asModule = python.resolveModule(a.path, `${imp.module ? imp.module + '.' : ''}${imp.name}`, imp.level);
      if (asModule && asModule !== a.path) {
        const hit = walkModules(python, asModule, rest, depth);
        if (hit) return hit;
      }
    }
    const mod = python.resolveModule(a.path, imp.module, imp.level);
    return mod && mod !== a.path ? walkModules(python, mod, [imp.name, ...rest], depth) : undefined;
  }
  // `import pkg.mod as m` then `m.Cls`
  if (imp.local !== imp.module.split('.')[0]) {
    const mod = python.resolveModule(a.path, imp.module, imp.level);
    return mod && mod !== a.path ? walkModules(python, mod, rest, depth) : undefined;
  }
  // `import pkg.mod` then `pkg.mod.Cls`
  for (let k = rest.length - 1; k >= 1; k--) {
    const mod = python.resolveModule(a.path, [head, ...rest.slice(0, k)].join('.'), 0);
    if (mod) return walkModules(python, mod, rest.slice(k), depth);
  }
  return undefined;
}

function walkModules(python: PythonProject, file: string, parts: string[], depth: number): ClassRef | undefined {
  if (parts.length === 1) return classIn(python, file, parts[0]!, depth);
  const a = python.analysis(file);
  if (!a) return undefined;
  const inner = classIn(python, file, parts.join('.'), depth);
  if (inner) return inner;
  return resolveDotted(python, a, parts.join('.'), depth + 1);
}

/** The class an expression names (`clock.ClockTask`, `ClockTask`). */
export function classOfExpr(python: PythonProject, a: PythonAnalysis, n: PyNode): ClassRef | undefined {
  const u = unparen(n);
  if (u.type !== 'identifier' && u.type !== 'attribute') return undefined;
  return resolveDotted(python, a, a.src(u).replace(/\s+/g, ''));
}

/** A class and its project ancestors, nearest first (bases outside the project end the chain). */
export function ancestry(python: PythonProject, c: ClassRef): ClassRef[] {
  const out: ClassRef[] = [c];
  const seen = new Set([`${c.file}\0${c.qualname}`]);
  for (let i = 0; i < out.length && out.length < 32; i++) {
    const cur = out[i]!;
    const a = python.analysis(cur.file);
    if (!a) continue;
    for (const b of cur.info.bases) {
      const base = resolveDotted(python, a, b.replace(/\[.*$/, ''));
      const k = base ? `${base.file}\0${base.qualname}` : '';
      if (base && !seen.has(k)) {
        seen.add(k);
        out.push(base);
      }
    }
  }
  return out;
}

/** The method `name` as a class resolves it (its own, else the nearest ancestor's). */
export function methodOf(python: PythonProject, c: ClassRef, name: string): { file: string; fn: FunctionInfo } | undefined {
  for (const k of ancestry(python, c)) {
    const fn = k.info.methods.get(name);
    if (fn) return { file: k.file, fn };
  }
  return undefined;
}
