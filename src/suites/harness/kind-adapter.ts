/**
 * The `kind-dispatch` adapter: task records whose member names what grades them by kind — an
 * evaluation type, a check name — routed the way the suite's harness dispatches on it (learned in
 * kind-sites.ts: a `match`, an if-chain or a dict over `configs["eval"]["eval_types"]`, each case
 * building an evaluator class or calling a check function). A record is a task when the member path
 * the harness reads holds a string (or, for an item-by-item dispatch, a list of strings) and at least
 * half of its values are cases the harness handles — or, for a document none of whose values is handled
 * (one task per file, naming a kind no case has), at least half of the values over the whole project are,
 * and its records share at least half their members with records that hold a handled value. Each value is one entry, bound to the grading
 * method of the class (or the function) its case routes to; a value no case names is an unbound route.
 */
import { commonDir, rel } from '../../core/paths.js';
import type { AdapterLoadOptions, AdapterLoadResult, DetectedDocument, EntrypointDecl, KindTally, SuiteAdapter } from '../adapter.js';
import type { JsonDocument } from '../../lang/json/parse.js';
import { joinPointer } from '../../lang/json/parse.js';
import type { EntryRoute, Suite, Task, VerifierEntry } from '../types.js';
import type { PythonProject } from '../../lang/python/types.js';
import { containersOf, type TaskRecord } from './records.js';
import type { KindRoute, KindTarget } from './kind-sites.js';

export const KIND_DISPATCH_ADAPTER_ID = 'kind-dispatch';

const ID_MEMBERS = ['task_id', 'id', 'taskId', 'uid', 'name'];

interface Bound {
  record: TaskRecord;
  route: KindRoute;
  /** The dispatched values with their pointers. */
  values: Array<{ value: string; pointer: string }>;
}

/** The value at a member path of a record, with its pointer. */
function valueAt(record: TaskRecord, p: readonly string[]): { value: unknown; pointer: string } | undefined {
  let v: unknown = record.value;
  let pointer = record.pointer;
  for (const k of p) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
    pointer = joinPointer(pointer, k);
  }
  return { value: v, pointer };
}

function dispatched(record: TaskRecord, route: KindRoute): Bound['values'] | undefined {
  const at = valueAt(record, route.path);
  if (!at) return undefined;
  if (route.each) {
    if (!Array.isArray(at.value) || !at.value.every((x) => typeof x === 'string')) return undefined;
    return (at.value as string[]).map((value, i) => ({ value, pointer: joinPointer(at.pointer, i) }));
  }
  return typeof at.value === 'string' ? [{ value: at.value, pointer: at.pointer }] : undefined;
}

/** The records of one container the route dispatches, with how many of their values the harness handles. */
function bindContainer(container: readonly TaskRecord[], route: KindRoute): { bound: Bound[]; known: number; total: number } {
  const bound: Bound[] = [];
  let known = 0;
  let total = 0;
  for (const record of container) {
    const values = dispatched(record, route);
    if (!values) continue;
    bound.push({ record, route, values });
    total += values.length;
    known += values.filter((v) => route.cases.has(v.value)).length;
  }
  return { bound, known, total };
}

const MAX_SHAPES = 64;

/** What one document holds at a route's member path (its best container): counts, and the member sets
 *  (sorted keys) of the records that hold a handled value, each once, first seen first. */
interface DocTally {
  known: number;
  total: number;
  shapes: string[][];
}

/** Per document and route object: an editor session's load after a task file's edit tallies only that
 *  file again (the routes are the same objects while no code file changed). */
const docTallies = new WeakMap<JsonDocument, WeakMap<KindRoute, DocTally | null>>();

function docTally(doc: JsonDocument, containers: () => TaskRecord[][], route: KindRoute): DocTally | undefined {
  let byRoute = docTallies.get(doc);
  if (!byRoute) docTallies.set(doc, (byRoute = new WeakMap()));
  const hit = byRoute.get(route);
  if (hit !== undefined) return hit ?? undefined;
  let best: ReturnType<typeof bindContainer> | undefined;
  for (const container of containers()) {
    const c = bindContainer(container, route);
    if (c.total && (!best || c.total > best.total)) best = c;
  }
  let out: DocTally | undefined;
  if (best) {
    out = { known: best.known, total: best.total, shapes: [] };
    const seen = new Set<string>();
    for (const b of best.bound) {
      if (!b.values.some((v) => route.cases.has(v.value))) continue;
      const keys = Object.keys(b.record.value).sort();
      const sig = keys.join('\0');
      if (seen.has(sig)) continue;
      seen.add(sig);
      out.shapes.push(keys);
    }
  }
  byRoute.set(route, out ?? null);
  return out;
}

/** Per route, what all the project's documents hold at its member path (their best container each). */
export function tallyKinds(docs: readonly JsonDocument[], routes: readonly KindRoute[]): Map<KindRoute, KindTally> {
  const out = new Map<KindRoute, { known: number; total: number; shapes: Set<string>[]; seen: Set<string> }>();
  for (const route of routes) out.set(route, { known: 0, total: 0, shapes: [], seen: new Set() });
  for (const doc of docs) {
    let containers: TaskRecord[][] | undefined;
    const once = () => (containers ??= containersOf(doc));
    for (const route of routes) {
      const t = out.get(route)!;
      const d = docTally(doc, once, route);
      if (!d) continue;
      t.known += d.known;
      t.total += d.total;
      for (const keys of d.shapes) {
        const sig = keys.join('\0');
        if (t.shapes.length < MAX_SHAPES && !t.seen.has(sig)) {
          t.seen.add(sig);
          t.shapes.push(new Set(keys));
        }
      }
    }
  }
  return new Map([...out].map(([r, { known, total, shapes }]) => [r, { known, total, shapes }]));
}

/** A record shaped like the records that hold handled values: it shares at least half of the members of one. */
function likeTasks(record: TaskRecord, shapes: ReadonlyArray<ReadonlySet<string>>): boolean {
  const keys = Object.keys(record.value);
  return shapes.some((s) => {
    const common = keys.filter((k) => s.has(k)).length;
    return common * 2 >= new Set([...keys, ...s]).size;
  });
}

/** A tool's configuration file (npm's `package.json` with its `"type": "module"`, tsconfig, linters, bundlers):
 *  never a task record, and its `type`/`name` members must not count against the share of handled kinds. */
const TOOL_CONFIG = /^(?:package(?:-lock)?|npm-shrinkwrap|composer(?:\.lock)?|(?:ts|js)config(?:\.[\w.-]+)?|\.?eslintrc(?:\.[\w.-]+)?|\.?prettierrc|\.?babelrc|babel\.config|biome|deno|turbo|lerna|nx|vercel|renovate|tslint|\.swcrc|angular|firebase)\.json$/i;
export const isToolConfig = (file: { path: string }): boolean => TOOL_CONFIG.test(file.path.replace(/^.*[\\/]/, ''));

/** Per document and per set of learned routes (a harness edit in an editor session learns new ones, while
 *  the document's parse is kept) and the project's tally. */
const bindMemo = new WeakMap<JsonDocument, { routes: readonly KindRoute[]; tally: ReadonlyMap<KindRoute, KindTally> | undefined; bound: Bound[] | null }>();

/** The records of a document the harness dispatches: the route and container that bind most, when at least half
 *  their values are handled. A document none of whose values is handled (one task per file, naming a kind no case
 *  handles) is bound too when, over the whole project, at least half the values at the route's member path are
 *  handled and its records are shaped like those that hold handled values. */
function bindDocument(doc: JsonDocument, routes: readonly KindRoute[], tally?: ReadonlyMap<KindRoute, KindTally>): Bound[] | undefined {
  const hit = bindMemo.get(doc);
  if (hit?.routes === routes && hit.tally === tally) return hit.bound ?? undefined;
  let best: { bound: Bound[]; known: number } | undefined;
  let stray: Bound[] | undefined;
  const containers = containersOf(doc);
  for (const route of routes) {
    for (const container of containers) {
      const { bound, known, total } = bindContainer(container, route);
      if (known === 0 || known * 2 < total) {
        const t = tally?.get(route);
        if (!stray && total && t && t.known > 0 && t.known * 2 >= t.total && bound.every((b) => likeTasks(b.record, t.shapes))) stray = bound;
        continue;
      }
      if (!best || known > best.known) best = { bound, known };
    }
  }
  const bound = best?.bound ?? stray;
  bindMemo.set(doc, { routes, tally, bound: bound ?? null });
  return bound;
}

function taskId(record: TaskRecord, index: number): string {
  if (record.key) return record.key;
  for (const k of ID_MEMBERS) {
    const v = record.value[k];
    if ((typeof v === 'string' && v) || typeof v === 'number') return String(v);
  }
  return String(index);
}

/** Targets of the entries, for `bind` (the route's case for the entry's value). */
const targets = new WeakMap<VerifierEntry, KindTarget>();
const routeOfSuite = new WeakMap<Suite, KindRoute>();

/** The parameters of the entry's bound code that the dispatch hands the task record (or a member of it) to. */
export function passedRecord(entry: VerifierEntry): KindTarget['passes'] {
  return targets.get(entry)?.passes;
}

/** The code the entry's kind routes to, as learned at the dispatch (a JS/TS target is found again by the check). */
export function kindTarget(entry: VerifierEntry): KindTarget | undefined {
  return targets.get(entry);
}

/** The routes a document can be bound by: a JS/TS module's task array only by the JS/TS dispatches (a Python harness does not import it). */
const jsOnly = new WeakMap<readonly KindRoute[], KindRoute[]>();
function routesFor(file: { path: string }, routes: readonly KindRoute[]): readonly KindRoute[] {
  if (file.path.toLowerCase().endsWith('.json')) return routes;
  let r = jsOnly.get(routes);
  if (!r) jsOnly.set(routes, (r = routes.filter((x) => !x.file.endsWith('.py'))));
  return r;
}

export const kindDispatchAdapter: SuiteAdapter = {
  id: KIND_DISPATCH_ADAPTER_ID,
  description: 'Task records naming the kind of check that grades them (an evaluation type), routed as the suite\'s harness dispatches on that member (learned from its match, if-chain or dict of cases).',
  detect(doc, file, ctx) {
    if (isToolConfig(file)) return false;
    const routes = routesFor(file, ctx?.kinds ?? []);
    return routes.length > 0 && bindDocument(doc, routes, ctx?.kindTally) !== undefined;
  },
  load(docs: DetectedDocument[], options: AdapterLoadOptions): AdapterLoadResult {
    const routes = options.kinds ?? [];
    const bySite = new Map<string, { route: KindRoute; tasks: Task[] }>();
    for (const { file, doc } of docs) {
      (bindDocument(doc, routesFor(file, routes), options.kindTally) ?? []).forEach(({ record, route, values }, i) => {
        const k = `${route.file}:${route.line}`;
        let group = bySite.get(k);
        if (!group) bySite.set(k, (group = { route, tasks: [] }));
        const task: Task = {
          suite: undefined as unknown as Suite, file, json: record.value, id: taskId(record, i), family: 'task',
          pointer: record.pointer, fields: {}, values: doc.values, entries: [], initializers: [],
        };
        for (const name of Object.keys(record.value)) {
          const ref = doc.values.get(joinPointer(record.pointer, name));
          if (ref) task.fields[name] = ref;
        }
        values.forEach(({ value, pointer }, index) => {
          const ref = doc.values.get(pointer)!;
          const entry: VerifierEntry = { task, index, kind: value, pointer, ref, fields: {}, embedded: [] };
          const handled = route.cases.has(value);
          const t = route.cases.get(value);
          const r: EntryRoute = { role: 'kind', name: value, target: t?.shown ?? value, ref, via: { file: route.file, line: route.line } };
          if (!handled && route.otherwise !== 'default') r.unbound = route.otherwise;
          if (t) targets.set(entry, t);
          // a JS/TS dispatch grades in the dispatching function (its handlers are what it calls): the entry names it
          if (handled && !route.file.endsWith('.py')) entry.target = { file: route.file, export: route.fn };
          entry.routes = [r];
          task.entries.push(entry);
        });
        group.tasks.push(task);
      });
    }
    const suites: Suite[] = [];
    for (const { route, tasks } of bySite.values()) {
      const files = [route.file, ...tasks.map((t) => t.file.path)];
      const suite: Suite = { adapter: KIND_DISPATCH_ADAPTER_ID, root: commonDir(files), tasks };
      for (const t of tasks) t.suite = suite;
      routeOfSuite.set(suite, route);
      suites.push(suite);
    }
    return { suites, problems: [] };
  },
  bind(suites: Suite[], python: PythonProject) {
    for (const s of suites) {
      for (const t of s.tasks) {
        for (const e of t.entries) {
          const tg = targets.get(e);
          // a JS/TS dispatch's targets are shown, not bound (the bound code's reads are Python analysis)
          const fn = tg && tg.file.endsWith('.py') ? python.analysis(tg.file)?.functionByQualname(tg.qualname) : undefined;
          if (tg && fn) e.binding = { file: tg.file, qualname: fn.qualname, start: fn.node.start, end: fn.node.end };
          if (e.binding && e.routes?.[0]) e.routes[0].binding = e.binding;
        }
      }
    }
  },
  // the targets come from the learned routes (kept only while they are the same), found by qualname
  bindKey: () => '',
  entrypoints(suite: Suite): EntrypointDecl[] {
    // the dispatching function reads the task record too (what it loads, what it passes on)
    const route = routeOfSuite.get(suite);
    if (!route) return [];
    const files = rel(suite.root, route.file);
    const parts = route.fn.split('.');
    return parts.length === 1 ? [{ files, export: route.fn }] : [{ files, class: parts[0]!, method: parts[parts.length - 1]! }];
  },
};
