/**
 * The `module-route` adapter: task records that name the module grading them, routed the way the
 * suite's own harness routes them. The routes are learned from the harness code (`learn.ts`):
 * `spec_from_file_location("v", Path(app_dir) / task["verify"])` then `mod.verify`, or
 * `import(path.join(dir, "tasks", input.name + ".ts"))` then `mod[input.name]`. A record is a task
 * when its members fill a route's template and the module it names exists for most records of its
 * container (one task per file, an array, an array one member down, an object keyed by id).
 */
import * as path from 'node:path';
import { commonDir } from '../../core/paths.js';
import type { AdapterLoadOptions, AdapterLoadResult, DetectedDocument, SuiteAdapter } from '../adapter.js';
import type { JsonDocument } from '../../lang/json/parse.js';
import type { SourceFile } from '../../core/source.js';
import { joinPointer } from '../../lang/json/parse.js';
import type { EntryRoute, Suite, Task, VerifierEntry } from '../types.js';
import type { PythonProject } from '../../lang/python/types.js';
import { releasingTrees } from '../../lang/python/project.js';
import { containersOf, ITEM, type TaskRecord } from './records.js';
import { loadResolutions, resolveRoute, type LoadResolutions, type Resolved } from './resolve.js';
import { membersOf } from './template.js';
import type { ModuleRoute } from './routes.js';

const MODULE_ROUTE_ADAPTER_ID = 'module-route';

/** Members that commonly carry a record's id, in order; else the route's own member. */
const ID_MEMBERS = ['id', 'task_id', 'taskId', 'uid', 'name'];

interface Bound {
  record: TaskRecord;
  route: ModuleRoute;
  resolved: Resolved;
}

/** Route sites grouped: the alternatives one load site tries (`${p}.js`, `${p}.ts`). */
function sitesOf(routes: readonly ModuleRoute[]): ModuleRoute[][] {
  const by = new Map<string, ModuleRoute[]>();
  for (const r of routes) {
    const k = `${r.file}:${r.line}`;
    const list = by.get(k) ?? [];
    list.push(r);
    by.set(k, list);
  }
  return [...by.values()];
}

/** Per suite, the targets (`file\0export`) bind found no function for. */
const notFunctions = new WeakMap<Suite, Set<string>>();

/** Per document, what it bound through routes that say the same (the routes array is new for each load:
 *  an editor session keeps the document's parse while the harness changes). Not kept when a record
 *  names a module that is not there: the file may appear on disk without coming into the session (a
 *  buffer saved while it stays open, a module outside the root), and the next load looks again. */
const bindMemo = new WeakMap<JsonDocument, { routes: string; root: string; bound: Bound[] | null }>();
/** What a set of routes says (not its identity: each load builds a new array of the same routes). */
const routeKeys = new WeakMap<readonly ModuleRoute[], string>();
function routesKey(routes: readonly ModuleRoute[]): string {
  let k = routeKeys.get(routes);
  if (k === undefined) routeKeys.set(routes, (k = JSON.stringify(routes, (_k, v: unknown) => (typeof v === 'function' ? String(v) : v))));
  return k;
}

/** The records of a document bound through a route site: the container and site that bind most, when at least half its fitting records resolve. */
function bindDocument(doc: JsonDocument, file: SourceFile, routes: readonly ModuleRoute[], root: string, load: LoadResolutions): Bound[] | undefined {
  const hit = bindMemo.get(doc);
  const key = routesKey(routes);
  if (hit?.routes === key && hit.root === root) return hit.bound ?? undefined;
  let best: Bound[] | undefined;
  let missing = false;
  for (const site of sitesOf(routes.filter((r) => !r.files || r.files(file.path)))) {
    for (const container of containersOf(doc)) {
      const bound: Bound[] = [];
      let resolvedCount = 0;
      for (const record of container) {
        for (const route of site) {
          if (!membersOf(route.template).every((m) => typeof record.value[m] === 'string')) continue;
          const resolved = resolveRoute(route, (m) => record.value[m], file.path, root, load);
          if (!resolved) continue;
          const prev = bound.find((b) => b.record === record);
          if (prev && !prev.resolved.file && resolved.file) Object.assign(prev, { route, resolved });
          else if (!prev) bound.push({ record, route, resolved });
        }
      }
      resolvedCount = bound.filter((b) => b.resolved.file).length;
      if (resolvedCount < bound.length) missing = true;
      if (resolvedCount === 0 || resolvedCount * 2 < bound.length) continue;
      if (!best || resolvedCount > best.filter((b) => b.resolved.file).length) best = bound;
    }
  }
  if (missing) bindMemo.delete(doc);
  else bindMemo.set(doc, { routes: key, root, bound: best ?? null });
  return best;
}

function taskId(record: TaskRecord, route: ModuleRoute, index: number): string {
  if (record.key) return record.key;
  for (const k of ID_MEMBERS) {
    const v = record.value[k];
    if ((typeof v === 'string' && v) || typeof v === 'number') return String(v);
  }
  const m = membersOf(route.template)[0];
  const v = m ? record.value[m] : undefined;
  return typeof v === 'string' ? v : String(index);
}

export const moduleRouteAdapter: SuiteAdapter = {
  id: MODULE_ROUTE_ADAPTER_ID,
  description: 'Task records that name the module grading them, routed as the suite\'s harness code routes them (learned from its loader: spec_from_file_location, import_module, import(), require()).',
  detect(doc, file, ctx) {
    const routes = ctx?.routes ?? [];
    return routes.length > 0 && bindDocument(doc, file, routes, ctx!.root, ctx!.resolutions ?? loadResolutions()) !== undefined;
  },
  load(docs: DetectedDocument[], options: AdapterLoadOptions): AdapterLoadResult {
    const routes = options.routes ?? [];
    const bySite = new Map<string, { route: ModuleRoute; tasks: Task[] }>();
    const suites: Suite[] = [];
    // detection bound each document already: kept in bindMemo, or resolved again through the same files
    const resolutions = options.resolutions ?? loadResolutions();
    for (const { file, doc } of docs) {
      const bound = bindDocument(doc, file, routes, options.root, resolutions) ?? [];
      bound.forEach(({ record, route, resolved }, i) => {
        const k = `${route.file}:${route.line}`;
        let group = bySite.get(k);
        if (!group) bySite.set(k, (group = { route, tasks: [] }));
        const task: Task = {
          suite: undefined as unknown as Suite, file, json: record.value, id: taskId(record, route, i), family: 'task',
          pointer: record.pointer, fields: {}, values: doc.values, entries: [], initializers: [],
        };
        for (const name of Object.keys(record.value).filter((k) => k !== ITEM)) {
          const ref = doc.values.get(joinPointer(record.pointer, name));
          if (ref) task.fields[name] = ref;
        }
        const member = membersOf(route.template)[0]!;
        const pointer = member === ITEM ? record.pointer : joinPointer(record.pointer, member);
        const ref = doc.values.get(pointer)!;
        const entry: VerifierEntry = { task, index: 0, kind: member, pointer, ref, fields: {}, embedded: [] };
        const value = String(record.value[member]);
        const fromMember = route.exportFromMember !== undefined ? record.value[route.exportFromMember] : undefined;
        const exportName = route.exportName ?? (typeof fromMember === 'string' ? fromMember.split('/').pop() : route.exportDefault);
        const r: EntryRoute = { role: 'module', name: value, target: exportName ? `${resolved.wanted}:${exportName}` : resolved.wanted, ref, via: { file: route.file, line: route.line } };
        if (resolved.file) entry.target = { file: resolved.file, export: exportName || undefined };
        else r.unbound = `no module ${resolved.wanted} (the harness at ${path.basename(route.file)}:${route.line} loads it)`;
        entry.routes = [r];
        task.entries.push(entry);
        group.tasks.push(task);
      });
    }
    for (const { tasks } of bySite.values()) {
      // the suite is the task files and the modules they name
      const files = tasks.flatMap((t) => [t.file.path, ...t.entries.flatMap((e) => (e.target ? [e.target.file] : []))]);
      const suite: Suite = { adapter: MODULE_ROUTE_ADAPTER_ID, root: commonDir(files), tasks };
      for (const t of tasks) t.suite = suite;
      suites.push(suite);
    }
    return { suites, problems: [] };
  },
  async bind(suites: Suite[], python: PythonProject) {
    const release = releasingTrees();
    for (const s of suites) {
      for (const t of s.tasks) {
        for (const e of t.entries) {
          const tg = e.target;
          const route = e.routes?.[0];
          if (!tg || !route || !/\.py$/.test(tg.file)) continue;
          await release();
          const a = python.analysis(tg.file);
          if (!a) continue;
          if (!tg.export) continue;
          const fn = a.functionByQualname(tg.export);
          if (fn) e.binding = { file: tg.file, qualname: fn.qualname, start: fn.node.start, end: fn.node.end };
          else {
            let nf = notFunctions.get(s);
            if (!nf) notFunctions.set(s, (nf = new Set()));
            nf.add(`${tg.file}\0${tg.export}`);
            if (!a.moduleNames().has(tg.export)) route.missingExport = true;
          }
        }
      }
    }
  },
  // beyond functions (the summaries), whether a module defines the export as another name at top level:
  // read again only for the exports bind found no function for (the others are functions while the
  // summaries are the same)
  bindKey(suites: readonly Suite[], python: PythonProject) {
    const out: string[] = [];
    for (const s of suites) {
      for (const k of notFunctions.get(s) ?? []) {
        const [file, name] = k.split('\0') as [string, string];
        out.push(`${k}\0${python.analysis(file)?.moduleNames().has(name) ?? false}`);
      }
    }
    return out.sort().join('\n');
  },
};
