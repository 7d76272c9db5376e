/**
 * What every oracle shares: the plan/judge contract, witnesses for Python verifier functions,
 * and the rule that a non-result is never turned into confirmed or refuted.
 *
 * Python-function oracles accept these common `finding.control` fields (rules fill what they know):
 *   file?: string        absolute path of the verifier module (default: finding.file)
 *   line?: number        1-based flagged line (default: finding.range.start.line)
 *   qualname?: string    function holding the flagged line (default: the innermost function at `line`)
 *   witnesses?: Witness[]  explicit witness inputs; when absent they come from the suite's entries
 *                        that route to the function (VerifierEntry.binding), with the optional fields
 *                        the function reads toggled, else are synthesized from the keys it reads.
 *   selfAttrs?: Record<string, Spec>  state doubles for `self` (e.g. {"manager": {"$double": "object", …}})
 */
import type { Confirmation } from '../core/types.js';
import type { Project } from '../contract/project.js';
import type { CaseResult, PyCallCase, Spec } from './harness.js';
import { slicePython, type Slice } from './slice-python.js';
import { routeWitnesses } from './routes.js';
import { documentedConfig, harnessObject, itemListOf, jsonFileFixtures, literalDefaults, placeRouted, routedWithRoots, selfState, standInFiles, suiteFileFixtures } from './inputs.js';
import type { OracleContext, Target, Witness } from './oracle-types.js';
import { ownValue } from '../core/own.js';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type { Witness, OracleContext, Plan, Oracle, Target } from './oracle-types.js';

const NON_RESULTS = new Set(['timeout', 'crash', 'sandbox', 'verifierUnavailable']);

/** The non-result of a case, as a confirmation (harness-level statuses mapped to outcomes). */
function nonResultOf(r: CaseResult | undefined, what = 'control case'): Confirmation | undefined {
  if (!r) return { status: 'crash', detail: `${what}: no answer` };
  if (NON_RESULTS.has(r.status)) return { status: r.status as Confirmation['status'], runId: r.runId, detail: r.detail };
  if (r.status === 'unavailable') return { status: 'verifierUnavailable', runId: r.runId, detail: r.detail };
  if (r.status === 'error') return { status: 'crash', runId: r.runId, detail: `${what} could not be set up: ${r.detail ?? ''}`.trim() };
  return undefined;
}

/** The first non-result among the cases, if any. */
export function firstNonResult(results: Array<CaseResult | undefined>, opts: { deadlineIsTimeout?: boolean } = {}): Confirmation | undefined {
  for (const r of results) {
    const nr = nonResultOf(r);
    if (nr) return nr;
    if (opts.deadlineIsTimeout !== false && r?.status === 'deadline') return { status: 'timeout', runId: r.runId, detail: r.detail };
  }
  return undefined;
}

export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('$set' in o) return (o.$set as unknown[]).length > 0;
    if ('$repr' in o) return true;
    return Object.keys(o).length > 0;
  }
  return true;
}

/** A value as the JSON report carries it: whole (a witness cut short can hide what decided the case,
 *  VER-001's `"value": null`), bounded only against a runaway value. Views shorten it (report/shorten.ts). */
export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 4000 ? s.slice(0, 3999) + '…' : s;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Resolve and slice the function a Python-layer finding is about. */
export async function pythonTarget(ctx: OracleContext): Promise<Target | Confirmation> {
  const file = str(ctx.control.file) || ctx.finding.file;
  if (!/\.py$/i.test(file))
    return { status: 'unsupported', detail: `${ctx.control.oracle} confirms Python verifier functions; ${file.split('/').pop()} is not one (code embedded in task JSON has no control case for this rule)` };
  const line = num(ctx.control.line) ?? ctx.finding.range.start.line;
  let slice: Slice | undefined;
  try {
    slice = await slicePython(file, { qualname: str(ctx.control.qualname), line });
  } catch (e) {
    return { status: 'unsupported', detail: `the verifier module could not be read or sliced: ${(e as Error).message}` };
  }
  if (!slice) {
    try {
      slice = await slicePython(file, { module: true });
    } catch {
      slice = undefined;
    }
    if (!slice) return { status: 'unsupported', detail: `no function encloses line ${line} of ${file}` };
  }
  const params = slice.info.params.filter((p) => !p.startsWith('*'));
  return { file, line, slice, params: slice.info.isMethod ? params.slice(1) : params };
}

export function callCase(t: Target, id: string, w: Witness, ctx: OracleContext, extra: Partial<PyCallCase> = {}): PyCallCase {
  const learned = t.slice.info.isMethod ? selfState(t, ctx.project, functionSource(t)) : {};
  const given = w.self as { $double?: string; attrs?: Record<string, Spec> } | undefined;
  const selfSpec =
    given && given.$double === 'self'
      ? { ...given, attrs: { ...learned, ...(given.attrs ?? {}) } }
      : (w.self ?? { $double: 'self', attrs: { ...learned, ...((ctx.control.selfAttrs as Record<string, Spec> | undefined) ?? {}) } });
  return {
    id,
    modules: t.slice.modules,
    entry: { module: t.slice.entryModule, qualname: t.slice.qualname },
    ...(t.slice.info.isMethod ? { self: selfSpec } : {}),
    args: w.args,
    ...(w.kwargs ? { kwargs: w.kwargs } : {}),
    ...(w.stubTools ? { stubTools: w.stubTools } : {}),
    ...(w.servers ? { servers: w.servers } : {}),
    ...(w.route ? { route: w.route } : {}),
    ...(w.files && Object.keys(w.files).length ? { files: w.files } : jsonFiles(t)),
    ...(w.dirs?.length ? { dirs: w.dirs } : {}),
    ...(verdictOf(functionSource(t)) ? { verdict: verdictOf(functionSource(t)) } : {}),
    traceFiles: t.slice.traceFiles,
    ...(t.slice.externalImports.length ? { doubleModules: t.slice.externalImports } : {}),
    ...(suiteModulesOf(t, ctx) ? { suiteModules: suiteModulesOf(t, ctx) } : {}),
    timeoutMs: ctx.timeoutMs,
    ...extra,
  };
}

/** The JSON files the function loads from its working folder, written for the case (inputs.ts). */
function jsonFiles(t: Target): { files?: Record<string, string> } {
  const files = jsonFileFixtures(functionSource(t));
  return Object.keys(files).length ? { files } : {};
}

/** Modules the slicer left to import (`externalImports`) that are the suite's own: the module (or its
 *  top-level package, with `__init__.py`) on disk in a folder above the verifier. A case that misses
 *  one says so, instead of calling the suite's own package "not installed". Top-level name → path. */
function suiteModulesOf(t: Target, ctx: OracleContext): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const root = resolve(ctx.root);
  for (const dotted of new Set(t.slice.externalImports)) {
    const parts = dotted.split('.');
    if (out[parts[0]!]) continue;
    let dir = dirname(resolve(t.file));
    for (let up = 0; up < 8; up++, dir = dirname(dir)) {
      const hit =
        [join(dir, ...parts) + '.py', join(dir, ...parts, '__init__.py'), join(dir, parts[0]!, '__init__.py'), join(dir, `${parts[0]!}.py`)].find((p) => existsSync(p)) ??
        (namespacePackage(join(dir, parts[0]!)) ? join(dir, parts[0]!) : undefined);
      if (hit) {
        out[parts[0]!] = hit.startsWith(root + '/') ? relative(root, hit) : hit;
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/** A folder without `__init__.py` that Python imports as a (namespace) package: it holds Python files,
 *  itself or in a sub-folder. */
function namespacePackage(dir: string): boolean {
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name.endsWith('.py'))) return true;
    return entries.some((e) => e.isDirectory() && existsSync(join(dir, e.name, '__init__.py')));
  } catch {
    return false;
  }
}

/** How the caller reads this function's verdict: a body key (`{"pass": …}`, as a client's
 *  `response.json()["pass"]` does; known keys `pass`/`success`/`ok`), or a `(bool, msg)` tuple's
 *  first item when every return gives a pair. Undefined: the value itself. */
function verdictOf(code: string): string | undefined {
  const key = /[{,]\s*(['"])(pass|passed|success|ok)\1\s*:/.exec(code)?.[2];
  if (key) return `key:${key}`;
  const returns = [...code.matchAll(/^\s*return\b(.*)$/gm)].map((m) => m[1]!.trim());
  if (returns.length && returns.every((r) => /^\(?\s*(True|False|[\w.]+\s*(==|!=|<|>|<=|>=|\bin\b|\bis\b)[^,]*|not\s+[^,]+|bool\([^,]*\))\s*,\s*[^,]+\)?$/.test(r))) return 'first';
  return undefined;
}

/** Entry objects of the suites that route to this function (adapter binding). */
export function boundEntries(project: Project | undefined, file: string, qualname: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const suite of project?.suites ?? []) {
    for (const task of suite.tasks) {
      for (const e of task.entries) {
        if (e.binding && e.binding.file === file && e.binding.qualname === qualname && e.ref.value && typeof e.ref.value === 'object') {
          out.push(e.ref.value as Record<string, unknown>);
        }
      }
    }
  }
  return out;
}

function isLambda(v: unknown): v is string {
  return typeof v === 'string' && /^\s*lambda\b/.test(v);
}

/** Values tried for an item field, first = base. Lambdas are valid so the path goes past `eval`. */
const FIELD_POOL: Record<string, unknown[]> = {
  find: ['lambda key, value: True', 'lambda key, value: key.endswith("name")'],
  key: ['state.name', 'lambda key: key'],
  value: ['expected', null],
  pred: ['lambda key, value: key == value'],
  pattern: ['.*'],
  args: [['expected']],
};
const OTHER_POOL: unknown[] = ['state.name', ['state.name', 'main.name'], null, 1];
/** Candidate values for a field the verifier reads (own keys only: a task field named `constructor` is a field). */
const fieldPool = (k: string): unknown[] => ownValue(FIELD_POOL, k) ?? OTHER_POOL;

/** The source text of the flagged function (for usage-based witness synthesis). */
export function functionSource(t: Target): string {
  const m = t.slice.modules.find((x) => x.filename === t.file);
  return m ? m.source.split('\n').slice(t.slice.info.startLine - 1, t.slice.info.endLine).join('\n') : '';
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A stub tool name used when the command comes from a parameter (argv witness). */
export const WITNESS_TOOL = 'vaudit-witness-tool';
export const WITNESS_PORT = 18765;

/** How a non-item parameter is used, from the function's own text. */
export function paramUsage(code: string, p: string): 'argv' | 'argvString' | 'cwd' | 'url' | 'host' | 'port' | 'path' | undefined {
  const P = esc(p);
  if (new RegExp(String.raw`://[^\s'"{}]*:\{\s*${P}\s*\}`).test(code) || /^port$/i.test(p)) return 'port';
  if (new RegExp(String.raw`\b(?:run|call|check_call|check_output|Popen|create_subprocess_exec)\(\s*\*?${P}\b(?!\s*[\[.(])`).test(code)) {
    return new RegExp(String.raw`shell\s*=\s*True`).test(code) ? 'argvString' : 'argv';
  }
  if (new RegExp(String.raw`\bcwd\s*=\s*${P}\b`).test(code)) return 'cwd';
  if (new RegExp(String.raw`\b(?:get|post|put|head|request|urlopen|delete|patch)\(\s*${P}\b`).test(code)) return 'url';
  if (new RegExp(String.raw`\b(?:connect|create_connection)\(\s*\(\s*${P}\b`).test(code)) return 'host';
  if (/(^|_)(path|file|filename|fname|tex|pdf|dir|directory|folder|project|root)(_|$)/i.test(p)) return 'path';
  return undefined;
}

/** Default argument for a parameter that is not an item dict; with what it needs (stubs, servers). */
function paramWitness(code: string, p: string): { value: unknown; stubTools?: Record<string, string>; servers?: Witness['servers'] } {
  switch (paramUsage(code, p)) {
    case 'argv':
      return { value: [WITNESS_TOOL, 'main.tex'] };
    case 'argvString':
      return { value: `${WITNESS_TOOL} main.tex` };
    case 'cwd':
      return { value: '.' };
    case 'url':
      return { value: `http://127.0.0.1:${WITNESS_PORT}/state` };
    case 'host':
      return { value: '127.0.0.1' };
    case 'port':
      return { value: WITNESS_PORT };
    case 'path':
      return { value: /dir|folder|project|root/i.test(p) ? '.' : './main.tex' };
    default: {
      const list = itemListOf(code, p);
      return { value: list };
    }
  }
}

/** The shape of an entry: its fields, and which of them hold a lambda (or null). Entries of one
 *  shape take the same path through a verifier, so one witness per shape is enough. */
function entryShape(o: Record<string, unknown>): string {
  return Object.keys(o)
    .sort()
    .map((k) => `${k}:${isLambda(o[k]) ? 'λ' : o[k] === null ? 'null' : typeof o[k] === 'object' ? 'obj' : '·'}`)
    .join(',');
}

/** Item (entry-like dict) witnesses: one bound entry per shape (same fields, same lambda-ness),
 *  then the toggled variants of every base taken round-robin, absence requests first (so a large
 *  suite's entries cannot fill the budget before any variant is built); without entries, a base
 *  item built from the keys the function reads, each field varied in turn. */
export function itemWitnesses(t: Target, ctx: OracleContext, limit = 16): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  const push = (o: Record<string, unknown>) => {
    const k = JSON.stringify(o);
    if (!seen.has(k) && items.length < limit) {
      seen.add(k);
      items.push(o);
    }
  };
  const firstParam = t.params[0];
  const keys = firstParam ? (t.slice.info.reads[firstParam]?.keys ?? []) : [];
  const entries = boundEntries(ctx.project, t.file, t.slice.qualname);
  const shapes = new Map<string, Record<string, unknown>>();
  for (const e of entries) if (!shapes.has(entryShape(e))) shapes.set(entryShape(e), e);
  // no entry routes here: the item as the function documents and reads it (documentedConfig) first
  const documented = !shapes.size && firstParam ? documentedConfig(functionSource(t), firstParam, keys, (k) => fieldPool(k)[0]) : undefined;
  const bases = shapes.size ? [...shapes.values()] : [...(documented ? [documented] : []), Object.fromEntries(keys.map((k) => [k, fieldPool(k)[0]]))];
  for (const b of bases) push(b);
  const toggles = bases.map((b) => {
    const out: Array<Record<string, unknown>> = [];
    // absence requests with each selector first: `value: null` with and without `find`
    if ('value' in b || keys.includes('value')) {
      out.push({ ...b, value: null });
      if ('find' in b) {
        const { find: _f, ...rest } = b;
        out.push({ ...rest, value: null });
      }
    }
    for (const k of new Set([...keys, ...Object.keys(b)])) {
      for (const v of fieldPool(k)) if (JSON.stringify(v) !== JSON.stringify(b[k])) out.push({ ...b, [k]: v });
      if (k in b) {
        const { [k]: _drop, ...rest } = b;
        out.push(rest);
      }
    }
    // every field but `value` set to None, then absent (neither selector given)
    const others = Object.keys(b).filter((k) => k !== 'value' && k !== 'type');
    if (others.length > 1) {
      out.push({ ...b, ...Object.fromEntries(others.map((k) => [k, null])) });
      out.push(Object.fromEntries(Object.entries(b).filter(([k]) => !others.includes(k))));
    }
    return out;
  });
  const rounds = Math.max(0, ...toggles.map((x) => x.length));
  for (let i = 0; i < rounds && items.length < limit; i++) for (const list of toggles) if (i < list.length) push(list[i]!);
  return items;
}

/** A state mapping in which the item's key is present (and keys built from its lambdas' constants). */
export function presentState(item: Record<string, unknown>, value: unknown = 'present'): Record<string, unknown> {
  const st: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    if (typeof v === 'string' && !isLambda(v) && k !== 'value' && k !== 'type') st[v] = value;
  }
  const key = item.key;
  const find = item.find;
  if (isLambda(find) || isLambda(key)) {
    for (const c of stringConstants(`${String(find ?? '')} ${String(key ?? '')}`)) {
      st[`obj.(1,)${c}`] = value;
      st[c] = value;
    }
  }
  if (Object.keys(st).length === 0) st['state.name'] = value;
  return st;
}

export function stringConstants(code: string): string[] {
  const out: string[] = [];
  const re = /(['"])((?:\\.|(?!\1).)*)\1/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) if (m[2] && m[2].length > 1 && !out.includes(m[2])) out.push(m[2]);
  return out;
}

/** Is parameter i an item dict (string keys read on it), as opposed to a tool argv, a path…? */
function isItemParam(t: Target, i: number): boolean {
  const p = t.params[i];
  return !!p && (t.slice.info.reads[p]?.keys.length ?? 0) > 0;
}

/** Values tried for a parameter nothing else tells about. */
const GENERIC_POOL: unknown[] = [
  ['state.name', 'main.name'],
  'state.name',
  null,
  { 'state.name': 'present' },
  [{ $double: 'object', attrs: { name: 'state.name', value: 'expected' } }],
  '{"state.name": "present"}',
  0,
];

/** How far witnesses may go past what the suite holds. `standInFiles`: a relative file a routed task
 *  names that the suite does not ship gets a stand-in (inputs.ts `standInFiles`), for an oracle whose
 *  verdict cannot depend on the file's content. */
export interface WitnessOptions {
  standInFiles?: boolean;
}

/** Witnesses for the flagged function: explicit ones, else the cross product (capped) of candidate
 *  values per parameter: item dicts for (item, state, …) functions with matching states,
 *  usage-based values (argv, cwd, url, host, path), and a small generic pool otherwise. */
export function defaultWitnesses(t: Target, ctx: OracleContext, cap = 48, opts: WitnessOptions = {}): Witness[] {
  const explicit = ctx.control.witnesses as Witness[] | undefined;
  if (Array.isArray(explicit) && explicit.length) return explicit.map((w) => ({ ...w, label: w.label ?? `arguments ${show(w.args)}` }));
  const code = functionSource(t);
  const routed = routeWitnesses(t, ctx, code);
  if (routed) return routed;
  const fixed = t.params.map((p) => paramWitness(code, p));
  // a parameter the function reads attributes on: the harness object the suite gives it
  const objs = t.params.map((p) => (p === '_' ? undefined : harnessObject(t, ctx.project, code, p)));
  const tasks = taskWitnesses(t, ctx, objs, fixed, 4, opts);
  const defaults = literalDefaults(code);
  if (tasks.length) return tasks;
  const servers = fixed.find((f) => f.servers?.length)?.servers;
  const itemMode = isItemParam(t, 0) || boundEntries(ctx.project, t.file, t.slice.qualname).length > 0;
  const items: Array<Record<string, unknown> | undefined> = itemMode ? itemWitnesses(t, ctx) : [undefined];
  let combos: unknown[][] = [];
  for (const it of items) {
    let partial: unknown[][] = [[]];
    t.params.forEach((p, i) => {
      let cands: unknown[];
      if (p === '_') cands = [{}]; // an ignored parameter: no witness slots spent on it
      else if (i === 0 && it !== undefined) cands = [it];
      else if (objs[i]) cands = [objs[i]!.spec];
      else if (fixed[i]!.value !== undefined) cands = [fixed[i]!.value];
      else if (i === 1 && it !== undefined) cands = [{}, presentState(it)];
      else if (isItemParam(t, i)) {
        const keys = t.slice.info.reads[p]?.keys ?? [];
        // the config as the function documents and reads it first (optional keys left to their
        // defaults, a documented URL on the case's endpoint), then every key filled
        const documented = documentedConfig(code, p, keys, (k) => fieldPool(k)[0]);
        cands = [...(documented ? [documented] : []), Object.fromEntries(keys.map((k) => [k, fieldPool(k)[0]]))];
      }
      // a literal default first: what the harness passes when it gives nothing (`retry_times=20`)
      else if (p in defaults) cands = [defaults[p], ...GENERIC_POOL];
      else cands = GENERIC_POOL;
      partial = partial.flatMap((a) => cands.map((c) => [...a, c]));
    });
    combos.push(...partial);
  }
  if (combos.length > cap) {
    // keep a spread: every k-th combination
    const step = combos.length / cap;
    combos = Array.from({ length: cap }, (_, i) => combos[Math.floor(i * step)]!);
  }
  // a `**config` parameter whose keys the function reads: the keyword arguments as it documents them
  const star = t.slice.info.params.find((p) => p.startsWith('**'))?.slice(2);
  const starKeys = star ? (t.slice.info.reads[star]?.keys ?? []) : [];
  const kwargs = star && starKeys.length ? documentedConfig(code, star, starKeys, (k) => fieldPool(k)[0]) : undefined;
  const kwLabel = kwargs ? Object.entries(kwargs).map(([k, v]) => `${k}=${show(v)}`) : [];
  return combos.map((args) => ({
    label: [...t.params.map((p, i) => `${p}=${show(args[i])}`), ...kwLabel].join(', ') || 'no arguments',
    args,
    ...(kwargs ? { kwargs: kwargs as Record<string, Spec> } : {}),
    ...(servers ? { servers } : {}),
  }));
}

/** Witnesses from the task objects that route to the function (a getter's config, a set-up step's
 *  parameters; one per shape, at most `cap`), each placed where the dispatcher passes it, the other
 *  parameters given the harness object or usage value they take; parameters after the last one given
 *  keep their defaults. None when no task routes to the function. */
function taskWitnesses(t: Target, ctx: OracleContext, objs: Array<{ spec: Spec } | undefined>, fixed: Array<{ value: unknown }>, cap = 4, opts: WitnessOptions = {}): Witness[] {
  // one object per shape: the first whose relative paths all name files the suite has (a task may
  // name a file the suite does not ship), else the first
  const shapes = new Map<string, { obj: Record<string, unknown>; root: string; whole: boolean }>();
  for (const o of routedWithRoots(ctx.project, t.file, t.slice.qualname)) {
    const k = entryShape(o.obj);
    const held = shapes.get(k);
    if (held?.whole) continue;
    const whole = pathStrings(o.obj).every((p) => p in suiteFileFixtures(p, o.root));
    if (!held || whole) shapes.set(k, { ...o, whole });
  }
  const out: Witness[] = [];
  for (const { obj, root } of [...shapes.values()].slice(0, cap)) {
    const place = placeRouted(t, obj);
    if (!place) continue;
    const given = t.params.map((_, i) => (i === place.index ? obj : objs[i]?.spec ?? fixed[i]!.value));
    let last = -1;
    given.forEach((g, i) => {
      if (g !== undefined && !(place.kwargs && t.params[i]! in place.kwargs)) last = i;
    });
    const args = given.slice(0, last + 1).map((g) => (g === undefined ? null : g));
    let label = [...args.map((a, i) => `${t.params[i]}=${show(a)}`), ...Object.entries(place.kwargs ?? {}).map(([k, v]) => `${k}=${show(v)}`)].join(', ') || 'no arguments';
    // the suite's files the object names by relative path, and the JSON files the function loads
    const held = { ...jsonFileFixtures(functionSource(t)), ...suiteFileFixtures(obj, root) };
    const standIns = opts.standInFiles ? standInFiles(pathStrings(obj), held) : {};
    const files = { ...standIns, ...held };
    const named = Object.keys(standIns);
    if (named.length)
      label += `; ${named.map((p) => show(p)).join(', ')} ${named.length > 1 ? 'are' : 'is'} not in the suite, so a stand-in (${named.map((p) => (standIns[p] ? `holding ${standIns[p]}` : 'empty')).join(', ')}) is written there`;
    out.push({ label, args, ...(place.kwargs ? { kwargs: place.kwargs as Record<string, Spec> } : {}), ...(Object.keys(files).length ? { files } : {}), ...(named.length ? { standIns } : {}) });
  }
  return out;
}

/** Strings of a value that look like relative file paths (`dir/name.ext`). */
function pathStrings(v: unknown): string[] {
  if (typeof v === 'string') return /^[\w.-]+(\/[\w.-]+)+\.\w+$/.test(v) && !v.startsWith('/') ? [v] : [];
  if (Array.isArray(v)) return v.flatMap(pathStrings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(pathStrings);
  return [];
}

/** A `self.<path>(…)` double whose return has the shape the call site uses: unpacked into N targets
 *  (`out, _ = self.m._call(…)`: a tuple, `value` at the first target not named `_`, True elsewhere),
 *  indexed (`self.m._call(…)[1]`: `value` at that index), or read through `.json()` (a response whose
 *  body is `value` as JSON); a bare value otherwise. */
export function shapedReturn(code: string, path: string, value: unknown): Spec {
  const call = String.raw`self\.${esc(path)}\s*\(`;
  const unpack = new RegExp(String.raw`^[ \t]*\(?\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*,?\s*\)?\s*=\s*${call}`, 'm').exec(code);
  if (unpack) {
    const targets = unpack[1]!.split(',').map((x) => x.trim());
    const at = Math.max(0, targets.findIndex((x) => x !== '_'));
    return { $tuple: targets.map((_, i) => (i === at ? value : true)) };
  }
  const m = new RegExp(call).exec(code);
  if (m) {
    // the text after the call's closing parenthesis
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < code.length && depth > 0; i++) depth += code[i] === '(' ? 1 : code[i] === ')' ? -1 : 0;
    const after = code.slice(i);
    const idx = /^\s*\[\s*(\d+)\s*\]/.exec(after);
    if (idx) return { $tuple: Array.from({ length: Number(idx[1]) + 2 }, (_, k) => (k === Number(idx[1]) ? value : true)) };
    if (/^\s*\.json\(\s*\)/.test(after)) return { $double: 'response', status: 200, text: JSON.stringify(value) };
  }
  return value;
}

/** The HTTP libraries a verifier module imports (what its state reads can raise), in a fixed order;
 *  every library vaudit knows when it imports none of them (the read goes through another module). */
export function httpLibraries(source: string): string[] {
  const has = (m: string) => new RegExp(String.raw`^[ \t]*(?:import[ \t]+${m}\b|from[ \t]+${m}\b)`, 'm').test(source);
  const libs = ['requests', 'httpx', 'urllib', 'aiohttp'].filter(has);
  return libs.length ? libs : ['requests', 'httpx', 'urllib', 'aiohttp', 'socket'];
}

/** What a case did, in a few words (for `unreached` details: what the witness met instead). */
export function outcomeOf(r: CaseResult | undefined): string {
  if (!r) return 'no answer';
  const where = (f?: string | null, l?: number | null) => (f ? ` at ${f.split('/').pop()}:${l}` : '');
  if (r.status === 'returned') return `returned ${show(r.value)}`;
  if (r.status === 'raised') return `raised ${r.exception?.type}: ${(r.exception?.message ?? '').slice(0, 120)}${where(r.exception?.file, r.exception?.line)}`;
  return `${r.status}${r.detail ? `: ${r.detail.slice(0, 160)}` : ''}`;
}

/** The distinct outcomes of many cases, most frequent first (`3× returned false; 1× raised KeyError …`). */
export function outcomesOf(rs: Array<CaseResult | undefined>, max = 3): string {
  const n = new Map<string, number>();
  for (const r of rs) n.set(outcomeOf(r), (n.get(outcomeOf(r)) ?? 0) + 1);
  const top = [...n].sort((a, b) => b[1] - a[1]);
  return top.slice(0, max).map(([o, k]) => `${k}× ${o}`).join('; ') + (top.length > max ? `; … ${top.length - max} other outcomes` : '');
}

export function executedLine(r: CaseResult | undefined, file: string, line: number): boolean {
  return !!r && (r.lines[file] ?? []).includes(line);
}

export interface EmbeddedFacts {
  code: string;
  language: 'python' | 'regex';
  role: string;
  /** The entry object the code belongs to (for its expected `value`). */
  entry?: Record<string, unknown>;
}

/** The code embedded in a JSON string that a JSON-file finding points into (via the project's suites),
 *  or the code the rule put in `control.code` / `control.pattern`. */
export function embeddedAt(ctx: OracleContext): EmbeddedFacts | undefined {
  const explicit = str(ctx.control.code) ?? str(ctx.control.pattern);
  if (explicit !== undefined)
    return { code: explicit, language: str(ctx.control.pattern) !== undefined && str(ctx.control.code) === undefined ? 'regex' : 'python', role: str(ctx.control.role) ?? '' };
  const off = ctx.finding.range.start.offset;
  for (const suite of ctx.project?.suites ?? []) {
    for (const task of suite.tasks) {
      if (task.file.path !== ctx.finding.file) continue;
      for (const e of task.entries) {
        for (const code of e.embedded) {
          if (code.ref.start <= off && off < code.ref.end) {
            return { code: code.code, language: code.language, role: code.role, entry: e.ref.value as Record<string, unknown> };
          }
        }
      }
    }
  }
  return undefined;
}

/** Positional parameter names of a lambda's source text (best effort, for witness shapes). */
export function lambdaParams(code: string): string[] {
  const m = /^\s*\(?\s*lambda\s*([^:]*):/.exec(code);
  if (!m) return [];
  return m[1]!
    .split(',')
    .map((s) => s.trim().replace(/=.*$/, '').trim())
    .filter((s) => s && !s.startsWith('*'));
}
