/**
 * Inputs the suite would really give a verifier function (issue 29, item 2), instead of placeholders:
 * - **Routed configs**: the task objects that name the function by their type string (an OSWorld-family
 *   getter's `{"type": "vm_file", "path": …}`, a set-up step's `{"type": "download", "parameters": {…}}`),
 *   matched to the function's parameters by name: a member dict whose keys are the function's keyword
 *   parameters (or that a `**kwargs` takes) becomes the keyword arguments, else the object goes to the
 *   parameter that reads its keys.
 * - **Harness objects**: a parameter the function reads attributes on (`env.vm_ip`, `controller.cache_dir`)
 *   gets an object whose attributes are those a class of the project assigns to `self` (`self.vm_ip = …`
 *   in any of its methods) and covers every attribute read: the harness object the function is given.
 *   Values follow what the class assigns: an address (`f"http://{vm_ip}:5000"`, a `*_url`/`*_server`
 *   name) points at the case's first endpoint (`{vaudit-port0}`), a host or IP name is the loopback, a
 *   folder or path is the case's working folder, a literal is itself, an attribute the function calls
 *   methods on is an object whose methods return None; any other attribute is left out (reading it
 *   raises AttributeError, as on an object that lacks it, and the case is `unreached` there).
 * Nothing here names one benchmark: the classes, keys and names are read from the project.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import type { Project } from '../contract/project.js';
import type { Spec } from './harness.js';
import type { Target } from './oracle-types.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The local endpoint an address attribute is pointed at (the case's first endpoint). */
const ENDPOINT = 'http://127.0.0.1:{vaudit-port0}';

/** Attributes read on parameter `p` in `code` (`p.x`, not `p.x(` calls of p's own methods). */
function attrsRead(code: string, p: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(new RegExp(String.raw`(?<![\w.])${esc(p)}\.([A-Za-z_]\w*)\b(?!\s*\()`, 'g'))) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

/** Methods called on `p.attr` in `code` (`env.setup_controller._execute_setup(…)`). */
function methodsOn(code: string, p: string, attr: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(new RegExp(String.raw`(?<![\w.])${esc(p)}\.${esc(attr)}\.([A-Za-z_]\w*)\s*\(`, 'g'))) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

interface ClassAssigns {
  name: string;
  /** Its `__init__` takes a parameter without a default (the harness cannot build it bare). */
  initNeedsArgs: boolean;
  /** attribute → the expression assigned to it (the first assignment). */
  attrs: Map<string, string>;
}

const classMemo = new WeakMap<object, ClassAssigns[]>();

/** Every class of the project with the `self.<attr> = <expr>` assignments of its methods (text scan). */
function projectClasses(project: Project): ClassAssigns[] {
  const hit = classMemo.get(project);
  if (hit) return hit;
  const out: ClassAssigns[] = [];
  let files: string[] = [];
  try {
    files = project.python.files();
  } catch {
    files = [];
  }
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    let cur: { c: ClassAssigns; indent: number } | undefined;
    for (const line of text.split('\n')) {
      const ind = /^[ \t]*/.exec(line)![0].length;
      if (line.trim() === '' || line.trim().startsWith('#')) continue;
      const cls = /^([ \t]*)class\s+([A-Za-z_]\w*)/.exec(line);
      if (cls) {
        cur = { c: { name: cls[2]!, initNeedsArgs: false, attrs: new Map() }, indent: ind };
        out.push(cur.c);
        continue;
      }
      if (cur && ind <= cur.indent) cur = undefined;
      if (!cur) continue;
      const init = /^\s*def\s+__init__\s*\(\s*self\s*,([^)]*)/.exec(line);
      if (init && init[1]!.split(',').some((x) => /^\s*[A-Za-z_]\w*\s*(:[^=]*)?$/.test(x) && x.trim() !== '')) cur.c.initNeedsArgs = true;
      const a = /^\s*self\.([A-Za-z_]\w*)\s*(?::\s*[^=]+)?=(?!=)\s*(.*)$/.exec(line);
      if (a && !cur.c.attrs.has(a[1]!)) cur.c.attrs.set(a[1]!, a[2]!.trim());
    }
  }
  classMemo.set(project, out);
  return out;
}

/** A Python literal as JSON (numbers, strings, True/False/None), else undefined. */
function literal(expr: string): { v: unknown } | undefined {
  const e = expr.replace(/\s+#.*$/, '').trim();
  if (/^-?\d+(\.\d+)?$/.test(e)) return { v: Number(e) };
  if (e === 'True' || e === 'False') return { v: e === 'True' };
  if (e === 'None') return { v: null };
  const s = /^(['"])((?:\\.|(?!\1).)*)\1$/.exec(e);
  if (s && !/^https?:/.test(s[2]!)) return { v: s[2] };
  return undefined;
}

/** The value of attribute `attr` on a harness object, from what the class assigns and how `code` uses it. */
function attrValue(attr: string, expr: string | undefined, calls: string[]): { v: Spec } | undefined {
  if (calls.length) return { v: { $double: 'object', attrs: Object.fromEntries(calls.map((m) => [m, { $double: 'callable', returns: null }])) } };
  if ((expr && /^[rbuf]*['"]https?:\/\//.test(expr)) || /(^|_)(url|uri|server|endpoint|base_url)$/i.test(attr)) return { v: ENDPOINT };
  if (/(^|_)(ip|host|hostname|addr|address)$/i.test(attr)) return { v: '127.0.0.1' };
  if (/(^|_)port$/i.test(attr)) return { v: { $port: 0 } };
  if (/(^|_)(dir|path|folder|root|cache_dir|cache)(_base)?$/i.test(attr)) return { v: '.' };
  const lit = expr !== undefined ? literal(expr) : undefined;
  return lit ? { v: lit.v as Spec } : undefined;
}

/** The harness object a parameter stands for, when the function reads attributes on it: attributes
 *  from the most specific project class that assigns every one read (fewest attributes). Undefined
 *  when no attribute is read or no class assigns them all. */
export function harnessObject(t: Target, project: Project | undefined, code: string, p: string): { spec: Spec; cls?: string } | undefined {
  const read = attrsRead(code, p);
  const called = [...code.matchAll(new RegExp(String.raw`(?<![\w.])${esc(p)}\.([A-Za-z_]\w*)\.`, 'g'))].map((m) => m[1]!);
  const all = [...new Set([...read, ...called])];
  if (!all.length) return undefined;
  // a parameter the function also indexes (`p["k"]`) or reads keys on is a dict, not an object
  if ((t.slice.info.reads[p]?.keys.length ?? 0) > 0 || new RegExp(String.raw`(?<![\w.])${esc(p)}\s*\[`).test(code)) return undefined;
  const classes = project ? projectClasses(project).filter((c) => all.every((a) => c.attrs.has(a))) : [];
  classes.sort((a, b) => a.attrs.size - b.attrs.size);
  const cls = classes[0];
  // no class of the project sets them: what the harness gives is unknown, so nothing is invented
  if (!cls) return undefined;
  const attrs: Record<string, Spec> = {};
  for (const a of cls.attrs.keys()) {
    const v = attrValue(a, cls.attrs.get(a), methodsOn(code, p, a));
    if (v) attrs[a] = v.v;
  }
  return { spec: { $double: 'object', attrs }, cls: cls.name };
}

/** The task objects that name this function by their type string (the parent of each bound route's
 *  `type` string: getters of the evaluator, set-up steps), with the root of the suite whose task holds
 *  each (where its relative paths point). */
export function routedWithRoots(project: Project | undefined, file: string, qualname: string): Array<{ obj: Record<string, unknown>; root: string }> {
  const out: Array<{ obj: Record<string, unknown>; root: string }> = [];
  const seen = new Set<string>();
  for (const suite of project?.suites ?? []) {
    for (const task of suite.tasks) {
      const routes = [...task.entries.flatMap((e) => (e.routes ?? []).filter((r) => r.role !== 'metric')), ...(task.initializerRoutes ?? [])];
      for (const r of routes) {
        if (!r.binding || r.binding.file !== file || r.binding.qualname !== qualname) continue;
        const parent = r.ref.pointer.replace(/\/[^/]*$/, '');
        const v = task.values.get(parent)?.value;
        if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
        const k = JSON.stringify(v);
        if (seen.has(k)) continue;
        seen.add(k);
        out.push({ obj: v as Record<string, unknown>, root: suite.root });
      }
    }
  }
  return out;
}

/** Where a routed object goes in the call: keyword arguments (a member dict whose keys are keyword
 *  parameters of the function, or any member dict when it takes `**kwargs`), or the positional
 *  parameter that reads its keys (else one named like a config). */
export function placeRouted(t: Target, obj: Record<string, unknown>): { index?: number; kwargs?: Record<string, unknown> } | undefined {
  const all = t.slice.info.params;
  const named = t.params;
  const varKw = all.some((p) => p.startsWith('**'));
  for (const v of Object.values(obj)) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const keys = Object.keys(v);
    if (keys.length && (varKw || keys.every((k) => named.includes(k)))) return { kwargs: v as Record<string, unknown> };
  }
  const keys = Object.keys(obj);
  // the parameter that reads most of its keys (a parameter rebound as a loop variable reads others too)
  const overlap = named.map((p) => (t.slice.info.reads[p]?.keys ?? []).filter((k) => keys.includes(k)).length);
  const best = Math.max(0, ...overlap);
  if (best > 0) return { index: overlap.indexOf(best) };
  const byName = named.findIndex((p) => /^(config|cfg|conf|options|opts|params|parameters|spec|args)$/i.test(p));
  return byName >= 0 ? { index: byName } : undefined;
}

/** Remote `http(s)://host/…` strings in a value pointed at the case's first endpoint (same path): the
 *  peer a call on that address meets is the case's, never a real host. */
export function localizeUrls(v: unknown): unknown {
  if (typeof v === 'string') return /^https?:\/\/[^/\s]+/.test(v) ? v.replace(/^https?:\/\/[^/\s]+/, ENDPOINT) : v;
  if (Array.isArray(v)) return v.map(localizeUrls);
  if (v && typeof v === 'object' && !('$double' in v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, localizeUrls(x)]));
  return v;
}

/** State for a method's `self` when its class's constructor needs arguments (the harness cannot run it
 *  bare, so nothing would set the instance's attributes): the attributes the class assigns, valued as
 *  for a harness object. Empty when the constructor runs without arguments (it sets them itself). */
export function selfState(t: Target, project: Project | undefined, code: string): Record<string, Spec> {
  const clsName = t.slice.qualname.split('.').slice(-2, -1)[0];
  if (!clsName || !project) return {};
  const cls = projectClasses(project).find((c) => c.name === clsName);
  if (!cls || !cls.initNeedsArgs) return {};
  const out: Record<string, Spec> = {};
  for (const [a, expr] of cls.attrs) {
    const v = attrValue(a, expr, methodsOn(code, 'self', a));
    if (v) out[a] = v.v;
  }
  return out;
}

/** A parameter the function iterates over, reading keys on each item (`for f in files: f["url"]`): a
 *  one-item list of such a dict, each key valued by its name (an address names the case's first
 *  endpoint, a path a file in the case's folder, anything else a plain string). */
export function itemListOf(code: string, p: string): Array<Record<string, unknown>> | undefined {
  const loop = new RegExp(String.raw`\bfor\s+([A-Za-z_]\w*)\s+in\s+${esc(p)}\s*:`).exec(code);
  if (!loop) return undefined;
  const v = loop[1]!;
  const keys: string[] = [];
  for (const m of code.matchAll(new RegExp(String.raw`(?<![\w.])${esc(v)}\s*(?:\[\s*|\.get\(\s*)(['"])(\w+)\1`, 'g'))) if (!keys.includes(m[2]!)) keys.push(m[2]!);
  if (!keys.length) return undefined;
  return [
    Object.fromEntries(
      keys.map((k) => [k, /(^|_)(url|uri|link|src|source)$/i.test(k) ? `${ENDPOINT}/witness` : /(^|_)(path|file|filename|dest|dir)$/i.test(k) ? 'witness.bin' : 'witness']),
    ),
  ];
}

/** The literal defaults of the function's parameters (`def f(self, retry_times=20)` → retry_times: 20):
 *  what the harness's own call passes when it gives the parameter nothing. */
export function literalDefaults(code: string): Record<string, unknown> {
  const sig = /\bdef\s+\w+\s*\(([\s\S]*?)\)\s*(?:->[^:]*)?:/.exec(code)?.[1] ?? '';
  const out: Record<string, unknown> = {};
  for (const part of sig.split(',')) {
    const m = /^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=\s*(.+?)\s*$/.exec(part);
    if (!m) continue;
    const lit = literal(m[2]!);
    if (lit && lit.v !== null) out[m[1]!] = lit.v;
  }
  return out;
}

/** JSON files the function loads from a relative path (`json.load(open(settings_file))`, the path a
 *  literal or a `config.get("k", "<default path>")` default) and reads keys on: each written in the
 *  case's working folder holding those keys (plain strings), as the suite's user would provide it.
 *  Relative paths inside the folder only; an absolute one is never written here. */
export function jsonFileFixtures(code: string): Record<string, string> {
  const out: Record<string, string> = {};
  const loads: Array<{ v: string; path: string }> = [];
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*=\s*json\.load\(\s*open\(\s*([^,)]+)/g)) loads.push({ v: m[1]!, path: m[2]!.trim() });
  for (const m of code.matchAll(/\bwith\s+open\(\s*([^,)]+)[^\n]*\bas\s+(\w+)\s*:\s*\n\s*([A-Za-z_]\w*)\s*=\s*json\.load\(\s*(\w+)\s*\)/g))
    if (m[4] === m[2]) loads.push({ v: m[3]!, path: m[1]!.trim() });
  for (const { v, path } of loads) {
    let p = /^(['"])(.+)\1$/.exec(path)?.[2];
    if (p === undefined && /^[A-Za-z_]\w*$/.test(path)) {
      const a = new RegExp(String.raw`^[ \t]*${esc(path)}\s*=\s*(?:[\w.]+\.get\(\s*['"][^'"]+['"]\s*,\s*)?(['"])([^'"]+)\1`, 'm').exec(code);
      p = a?.[2];
    }
    if (!p || p.startsWith('/') || p.split('/').includes('..') || !/\.json$/i.test(p)) continue;
    const keys: string[] = [];
    for (const k of code.matchAll(new RegExp(String.raw`(?<![\w.])${esc(v)}\s*(?:\[\s*|\.get\(\s*)(['"])([^'"]+)\1`, 'g'))) if (!keys.includes(k[2]!)) keys.push(k[2]!);
    if (keys.length) out[p] = JSON.stringify(Object.fromEntries(keys.map((k) => [k, 'witness'])));
  }
  return out;
}

/** Files of the suite a routed object names by a relative path (`"src": "evaluation_examples/…/x.json"`,
 *  read from the suite's root where the harness runs): copied into the case's working folder at the same
 *  relative path, so the function opens the file the task gives. Text files up to 256 KB only. */
export function suiteFileFixtures(obj: unknown, root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (v: unknown) => {
    if (typeof v === 'string') {
      if (!v || isAbsolute(v) || /^\w+:\/\//.test(v) || !/[/.]/.test(v) || normalize(v).split('/').includes('..') || out[v] !== undefined) return;
      try {
        const full = join(root, v);
        const st = statSync(full);
        if (!st.isFile() || st.size > 256 * 1024) return;
        const text = readFileSync(full, 'utf8');
        if (!text.includes('\uFFFD')) out[v] = text;
      } catch {
        // not a file of the suite
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(obj);
  return out;
}

/** Stand-ins for the relative files a routed object names that the suite does not hold (a benchmark's
 *  data files are often left out of its repository or trimmed): a JSON path gets an empty object, any
 *  other path an empty file, so the function gets past opening the file the task gives it. Only for
 *  oracles whose verdict cannot depend on what the file holds (missing-timeout: whether the flagged call
 *  meets its stalling peer); the witness label names each stand-in. */
export function standInFiles(paths: string[], held: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of paths) {
    if (p in held || isAbsolute(p) || normalize(p).split('/').includes('..')) continue;
    out[p] = /\.json$/i.test(p) ? '{}' : '';
  }
  return out;
}

/** Other content for each stand-in (a non-empty JSON object, non-empty text): a verdict that rests on a
 *  stand-in holds only when the flagged call is reached with both, i.e. the path to it does not depend on
 *  what the file holds (a real file would hold something else). */
export function otherStandIns(standIns: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(standIns).map((p) => [p, /\.json$/i.test(p) ? '{"vaudit": "stand-in"}' : 'vaudit stand-in\n']));
}

/** The function's docstring (the first triple-quoted string of its text), or ''. */
function docstring(code: string): string {
  return /("""|''')([\s\S]*?)\1/.exec(code)?.[2] ?? '';
}

/** A config dict as the function's own text documents and reads it, for a function no task routes to:
 *  a key the function reads only through `p.get("k", …)` is left out (its default applies, as when a
 *  task omits an optional field); a key the docstring describes as a URL (`path (str): the url to
 *  download from`) names the case's first endpoint; any other key holds `fill(key)`. Undefined when it
 *  would change nothing (no optional key, no documented URL). */
export function documentedConfig(code: string, p: string, keys: string[], fill: (k: string) => unknown): Record<string, unknown> | undefined {
  const doc = docstring(code);
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const k of keys) {
    const K = esc(k);
    const subscripted = new RegExp(String.raw`(?<![\w.])${esc(p)}\s*\[\s*(['"])${K}\1\s*\]`).test(code);
    const viaGet = new RegExp(String.raw`(?<![\w.])${esc(p)}\.get\(\s*(['"])${K}\1`).test(code);
    if (viaGet && !subscripted) {
      changed = true;
      continue;
    }
    // `key (type): …`, `key: …`, `- key: …` (Google style, bullets)
    const line = new RegExp(String.raw`^[ \t]*(?:[-*][ \t]*)?${K}\s*(?:\([^)\n]*\)\s*)?:\s*(.*)$`, 'm').exec(doc);
    if (line && /\b(url|uri|link)s?\b/i.test(line[1]!)) {
      out[k] = `${ENDPOINT}/witness`;
      changed = true;
      continue;
    }
    out[k] = fill(k);
  }
  return changed ? out : undefined;
}
