/**
 * Why no suite was recognised: one line per shape vaudit tried, with what it found of it, so that a
 * user can tell a missing shape from a near miss (a loader whose template no record fills).
 */
import * as path from 'node:path';
import type { PythonProject } from '../../lang/python/types.js';
import { registryCandidates } from './registry.js';
import { pythonDataNearMisses } from './py-tasks.js';
import type { ModuleRoute } from './routes.js';
import type { KindRoute } from './kind-sites.js';
import type { Template } from './template.js';

const text = (t: Template) => t.map((p) => (p.kind === 'lit' ? p.text : p.kind === 'member' ? `{${p.name || 'item'}}` : '…')).join('');

export function whyNoSuite(o: { root: string; python: PythonProject; routes: readonly ModuleRoute[]; kinds: readonly KindRoute[] }): string[] {
  const rel = (p: string) => path.relative(o.root, p).split(path.sep).join('/') || '.';
  const out: string[] = [];
  // never how many JSON files there are: a report written into the folder is JSON too
  out.push('task files (reference, OSWorld family): no JSON file has their shape ("evaluate": [{"type": …}], or "evaluator": {"func": …}).');
  if (o.routes.length === 0) out.push('module routes: no harness code loads a module from a path built from task data (importlib, runpy, import(), require()).');
  else {
    const shown = o.routes.slice(0, 3).map((r) => `${rel(r.file)}:${r.line} loads ${text(r.template)}`).join('; ');
    out.push(`module routes: ${shown}${o.routes.length > 3 ? ` (and ${o.routes.length - 3} more)` : ''}; no data file has records whose members fill ${o.routes.length === 1 ? 'it' : 'one'} with a module that exists.`);
  }
  if (o.kinds.length === 0) out.push('evaluation kinds: no harness code dispatches on a task member (a match, an if/elif chain or a dict of cases) to evaluator classes or check functions.');
  else {
    const shown = o.kinds.slice(0, 3).map((k) => `${rel(k.file)}:${k.line} dispatches on ${k.path.join('.')}${k.each ? '[…]' : ''} (${[...k.cases.keys()].slice(0, 4).map((c) => `"${c}"`).join(', ')}${k.cases.size > 4 ? ', …' : ''})`).join('; ');
    out.push(`evaluation kinds: ${shown}${o.kinds.length > 3 ? ` (and ${o.kinds.length - 3} more)` : ''}; no data file has records whose member names mostly these cases.`);
  }
  const reg = registryCandidates(o.python);
  out.push(reg.found === 0
    ? 'class registries: no collection of task classes sharing a base, no registering function, no type() factory.'
    : `class registries: ${reg.found} found, but no method all their classes share is called by a runner with its result used and returns a verdict.`);
  const near = pythonDataNearMisses(o.python);
  out.push(near.length === 0
    ? 'Python data: no module-level collection of records that harness code loads (iterates, indexes or passes on) and routes by a member (getattr on a module, a registry key).'
    : `Python data: ${near.slice(0, 2).map((m) => `${m.name} (${rel(m.file)}) is loaded at ${rel(m.via.file)}:${m.via.line}`).join('; ')}${near.length > 2 ? ` (and ${near.length - 2} more)` : ''}, but no member of its records is looked up in a module (getattr) or a registry whose keys vaudit knows.`);
  out.push('Declare them in vaudit.config.json: "tasks" (files of task records and the module each names) or "entrypoints" (the functions that grade); `vaudit init` writes a config to complete.');
  return out;
}
