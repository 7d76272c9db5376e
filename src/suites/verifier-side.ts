/**
 * The verifier side of a project: the functions the suites' entries are bound or routed to (metrics,
 * getters, task-class verifiers, the modules a task names) and the project functions they call, a few
 * levels deep. Code outside it (an in-VM server, an agent, a setup script) runs elsewhere or before
 * grading; rules about what a verifier reads use it to stay on the grading path.
 *
 * When no entry of the project is bound, nobody knows: `verifierSide` returns undefined.
 */
import type { Suite } from './types.js';
import type { PythonProject } from '../lang/python/types.js';
import { field, walk } from '../lang/python/tree.js';

interface Project {
  readonly suites: readonly Suite[];
  readonly python: PythonProject;
}

const MAX_DEPTH = 4;
const cache = new WeakMap<Project, Set<string> | null>();
const keyOf = (file: string, qualname: string) => `${file}\0${qualname}`;

/** `file\0qualname` of every function on the verifier side, or undefined when no entry is bound. */
export function verifierSide(project: Project): ReadonlySet<string> | undefined {
  const hit = cache.get(project);
  if (hit !== undefined) return hit ?? undefined;
  const out = new Set<string>();
  const queue: Array<{ file: string; qualname: string; depth: number }> = [];
  const add = (file: string, qualname: string, depth: number) => {
    const k = keyOf(file, qualname);
    if (out.has(k)) return;
    out.add(k);
    queue.push({ file, qualname, depth });
  };
  const py = project.python;
  for (const s of project.suites)
    for (const t of s.tasks)
      for (const e of t.entries) {
        if (e.binding) add(e.binding.file, e.binding.qualname, 0);
        for (const r of e.routes ?? []) if (r.binding) add(r.binding.file, r.binding.qualname, 0);
        if (e.target) {
          const a = py.analysis(e.target.file);
          for (const fn of a?.functions() ?? []) if (!e.target.export || fn.qualname === e.target.export || fn.qualname.startsWith(`${e.target.export}.`)) add(e.target.file, fn.qualname, 0);
        }
      }
  if (!out.size) {
    cache.set(project, null);
    return undefined;
  }
  for (let i = 0; i < queue.length && i < 20000; i++) {
    const { file, qualname, depth } = queue[i]!;
    if (depth >= MAX_DEPTH) continue;
    const a = py.analysis(file);
    const fn = a?.functionByQualname(qualname);
    if (!a || !fn) continue;
    const cls = fn.className ? a.classes().find((c) => c.name === fn.className) : undefined;
    walk(fn.node, (x) => {
      if (x.type !== 'call') return undefined;
      const f = field(x, 'function');
      if (!f) return undefined;
      if (f.type === 'identifier') {
        const name = a.src(f);
        const local = a.functionByQualname(`${qualname}.<locals>.${name}`);
        if (local) add(file, local.qualname, depth + 1);
        else {
          const r = py.resolveFunction(file, name);
          if (r) add(r.file, r.fn.qualname, depth + 1);
        }
      } else if (f.type === 'attribute' && cls && a.src(field(f, 'object') ?? f) === 'self') {
        const m = cls.methods.get(a.src(field(f, 'attribute') ?? f));
        if (m) add(file, m.qualname, depth + 1);
      }
      return undefined;
    });
  }
  cache.set(project, out);
  return out;
}
