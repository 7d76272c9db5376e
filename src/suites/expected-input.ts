/**
 * Which parameters of a verdict function carry the task's expected input (the gold file, the reference
 * state, the task's options) rather than the agent's output, as the suites' routing says: an
 * OSWorld-family metric is called `metric(result_state, expected_state, **options)`, so when a task bound
 * to it has an `expected` getter its second positional parameter, and its `**options`, are the task's;
 * the first is the agent's. Other adapters do not say, and nothing is assumed for them.
 */
import type { Suite } from './types.js';
import type { FunctionInfo } from '../lang/python/types.js';
import { field, named } from '../lang/python/tree.js';

interface Project {
  readonly suites: readonly Suite[];
}

export interface ExpectedParams {
  /** Names of the parameters that hold the task's side (expected input, options). */
  task: Set<string>;
  /** Names of the parameters that hold the agent's output. */
  agent: Set<string>;
  /** The `**options` parameter, when there is one (also in `task`). */
  options?: string;
}

const cache = new WeakMap<Project, Map<string, { expected: boolean }>>();

/** Per bound function (`file\0qualname`): whether some task bound to it routes an expected getter. */
function routed(project: Project): Map<string, { expected: boolean }> {
  let m = cache.get(project);
  if (m) return m;
  m = new Map();
  for (const s of project.suites)
    for (const t of s.tasks)
      for (const e of t.entries) {
        if (!e.binding || !e.routes?.some((r) => r.role === 'metric')) continue;
        const k = `${e.binding.file}\0${e.binding.qualname}`;
        const cur = m.get(k) ?? { expected: false };
        if (e.routes.some((r) => r.role === 'expected')) cur.expected = true;
        m.set(k, cur);
      }
  cache.set(project, m);
  return m;
}

/** The task-side and agent-side parameters of a routed metric, or undefined when no routing says. */
export function expectedParams(project: Project, file: string, fn: FunctionInfo): ExpectedParams | undefined {
  const r = routed(project).get(`${file}\0${fn.qualname}`);
  if (!r) return undefined;
  const params = field(fn.node, 'parameters');
  const positional: string[] = [];
  const task = new Set<string>();
  let options: string | undefined;
  for (const p of params ? named(params) : []) {
    if (p.type === 'dictionary_splat_pattern') {
      const id = named(p)[0];
      if (id) task.add((options = id.text));
      continue;
    }
    if (p.type === 'list_splat_pattern' || p.type === 'keyword_separator' || p.type === 'positional_separator') continue;
    const id = p.type === 'identifier' ? p : (field(p, 'name') ?? named(p)[0]);
    if (id?.type === 'identifier') positional.push(id.text);
  }
  const own = fn.classNode ? positional.slice(1) : positional;
  if (r.expected && own[1]) task.add(own[1]);
  return { task, agent: new Set(own[0] ? [own[0]] : []), ...(options ? { options } : {}) };
}
