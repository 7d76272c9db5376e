/**
 * Routes of a web app (Flask) as control cases: a view function reads its input from the request,
 * not from parameters, so it runs through its app (`route` on the case: the harness finds the app,
 * takes the rule and method from its `url_map` and calls the view inside
 * `test_request_context(json=body)`). Bodies come from the keys the view reads
 * (`data = request.json; data.get("k", default)`) — all defaults first — and from the client calls
 * in the project that post to the rule (`_request("POST/tex/check", {"json": {...}})`), with
 * item fields (`eval_item["path"]`) filled from the suite entries routed to the calling function.
 * Absolute paths the view reads, runs or uses as `cwd` (`/home/user/sci/...`) become file fixtures
 * (bound privately under bubblewrap; under process isolation the case is `sandbox`).
 */
import { readFileSync } from 'node:fs';
import type { PyCallCase } from './harness.js';
import type { OracleContext, Target, Witness } from './oracle-types.js';

interface RouteInfo {
  app: string;
  path: string;
  methods: string[];
  /** Keys read from the request body, with their default when `.get(k, default)` gives one. */
  keys: Array<{ key: string; fallback?: unknown }>;
}

/** A file made for the case in its working folder (a path-like request key with no default names it). */
const WITNESS_FILE = 'vaudit-witness.txt';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A Python literal (string, number, bool, None) as JSON; undefined when it is anything else. */
function literal(src: string): unknown {
  const t = src.trim();
  const s = /^[rbu]?(['"])((?:\\.|(?!\1).)*)\1$/.exec(t);
  if (s) return s[2]!.replace(/\\(['"\\])/g, '$1');
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t === 'True' || t === 'False') return t === 'True';
  if (t === 'None') return null;
  return undefined;
}

/** The route a function is registered as (`@app.route("/p", methods=[...])` on it), if any. */
function routeOf(code: string): RouteInfo | undefined {
  const m = /^\s*@(\w+)\.(?:route|post|get)\(\s*[rbu]?(['"])([^'"]+)\2([^)]*)\)/m.exec(code);
  if (!m) return undefined;
  const methods = /methods\s*=\s*[[(]([^\])]*)[\])]/.exec(m[4]!)?.[1]?.match(/[A-Z]+/g) ?? ['GET'];
  const keys: RouteInfo['keys'] = [];
  const vars = [...code.matchAll(/\b(\w+)\s*=\s*request\.(?:json|get_json\([^)]*\)|args|form|values)\b/g)].map((x) => x[1]!);
  const readers = [...vars.map(esc), String.raw`request\.(?:json|args|form|values)`];
  for (const r of readers) {
    for (const g of code.matchAll(new RegExp(String.raw`\b${r}\.get\(\s*[rbu]?(['"])([^'"]+)\1\s*(?:,\s*([^()]*?|\w+\([^()]*\)))?\)`, 'g'))) {
      if (!keys.some((k) => k.key === g[2])) keys.push({ key: g[2]!, ...(g[3] !== undefined && literal(g[3]) !== undefined ? { fallback: literal(g[3]) } : {}) });
    }
    for (const g of code.matchAll(new RegExp(String.raw`\b${r}\[\s*[rbu]?(['"])([^'"]+)\1\s*\]`, 'g'))) if (!keys.some((k) => k.key === g[2])) keys.push({ key: g[2]! });
  }
  return { app: m[1]!, path: m[3]!, methods, keys };
}

/** Bodies the project's own clients send to this route (literal values and routed item fields). */
function clientBodies(route: RouteInfo, ctx: OracleContext): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  for (const suite of ctx.project?.suites ?? []) {
    // entries routed per verifier function: (file, qualname) → entries
    const routed = new Map<string, Array<Record<string, unknown>>>();
    for (const task of suite.tasks)
      for (const e of task.entries)
        if (e.binding && e.ref.value && typeof e.ref.value === 'object') {
          const k = `${e.binding.file}\0${e.binding.qualname}`;
          routed.set(k, [...(routed.get(k) ?? []), e.ref.value as Record<string, unknown>]);
        }
    for (const [k, entries] of routed) {
      const file = k.split('\0')[0]!;
      if (seen.has(file)) continue;
      seen.add(file);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const at = text.search(new RegExp(String.raw`(['"])[A-Z]*(?::\d+)?${esc(route.path)}\1`));
      if (at < 0) continue;
      const json = /["']json["']\s*:\s*\{([\s\S]*?)\}\s*\}|\bjson\s*=\s*\{([\s\S]*?)\}/.exec(text.slice(at, at + 1500));
      if (!json) continue;
      const pairs = [...(json[1] ?? json[2] ?? '').matchAll(/(['"])(\w+)\1\s*:\s*([^,\n]+)/g)];
      const sameFn = [...routed].filter(([kk]) => kk.startsWith(file + '\0')).flatMap(([, es]) => es);
      const firstOfShape = new Map<string, Record<string, unknown>>();
      for (const e of sameFn.length ? sameFn : entries) firstOfShape.set(Object.keys(e).sort().join(','), firstOfShape.get(Object.keys(e).sort().join(',')) ?? e);
      for (const e of firstOfShape.values()) {
        const body: Record<string, unknown> = {};
        for (const [, , key, expr] of pairs) {
          const lit = literal(expr!);
          const field = /\w+\[\s*(['"])(\w+)\1\s*\]/.exec(expr!)?.[2];
          if (lit !== undefined) body[key!] = lit;
          else if (field && Object.hasOwn(e, field) && e[field] !== undefined) body[key!] = e[field];
        }
        if (Object.keys(body).length) out.push(body);
        if (out.length >= 3) return out;
      }
    }
  }
  return out;
}

/** Absolute paths the function reads (file fixtures) or runs in (folders), for one body. */
function fixturesFor(code: string, route: RouteInfo | undefined, body: Record<string, unknown>): { files: NonNullable<PyCallCase['files']>; dirs: string[] } {
  const files: NonNullable<PyCallCase['files']> = {};
  const dirs = new Set<string>();
  // a file the function reads holds every string the request carries, one per line (so a
  // membership check of a request value against its lines can pass)
  const strings = (route?.keys ?? []).map((k) => (k.key in body ? body[k.key] : k.fallback)).filter((v): v is string => typeof v === 'string');
  const content = strings.length ? strings.join('\n') + '\n' : '';
  for (const m of code.matchAll(/\bopen\(\s*[rbu]?(['"])(\/[^'"]+)\1/g)) files[m[2]!] = content;
  for (const m of code.matchAll(/\bcwd\s*=\s*[rbu]?(['"])(\/[^'"]+)\1/g)) dirs.add(m[2]!);
  // request values bound to a variable the function uses as cwd, or opens
  for (const m of code.matchAll(/\b(\w+)\s*=\s*\w+\.get\(\s*(['"])(\w+)\2/g)) {
    const v = m[3]! in body ? body[m[3]!] : route?.keys.find((k) => k.key === m[3])?.fallback;
    if (v === WITNESS_FILE) files[WITNESS_FILE] = content;
    if (typeof v !== 'string' || !v.startsWith('/') || v.split('/').filter(Boolean).length < 2) continue;
    if (new RegExp(String.raw`\bcwd\s*=\s*${esc(m[1]!)}\b`).test(code)) dirs.add(v);
    if (new RegExp(String.raw`\bopen\(\s*${esc(m[1]!)}\b`).test(code)) files[v] = content;
  }
  return { files, dirs: [...dirs] };
}

/** Witnesses for a route: bodies (all defaults first, then the project's client bodies), each with
 *  the file fixtures it needs. Undefined when the function is not a route. */
export function routeWitnesses(t: Target, ctx: OracleContext, code: string): Witness[] | undefined {
  const route = routeOf(code);
  if (!route) return undefined;
  const bodies: Array<Record<string, unknown>> = [{}];
  // keys with no usable default, filled: a path-like key names a file made for the case (in its
  // working folder), any other key a plain string; URLs are left out (no peer to name)
  const filled: Record<string, unknown> = {};
  for (const k of route.keys) {
    if (k.fallback !== undefined && k.fallback !== null) continue;
    if (/url|uri|link/i.test(k.key)) continue;
    filled[k.key] = /path|file|dir|folder/i.test(k.key) ? WITNESS_FILE : 'witness';
  }
  if (Object.keys(filled).length) bodies.push(filled);
  bodies.push(...clientBodies(route, ctx));
  const method = route.methods.find((m) => m !== 'HEAD' && m !== 'OPTIONS') ?? 'GET';
  return bodies.map((body) => {
    const { files, dirs } = fixturesFor(code, route, body);
    return {
      label: `${method} ${route.path} with body ${JSON.stringify(body)}${Object.keys(files).length ? ` and ${Object.keys(files).join(', ')} holding the request's strings` : ''}`,
      args: t.params.map(() => null),
      route: { path: route.path, method, json: body },
      ...(Object.keys(files).length ? { files } : {}),
      ...(dirs.length ? { dirs } : {}),
    };
  });
}
