/**
 * From a route and one task record to the module file the harness would load: the template is
 * instantiated with the record's members and resolved against the folders the harness may run it
 * from (its own folder when it says so, else the record file's folder and the harness's folder and
 * their ancestors up to the project root).
 */
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { instantiate, membersOf } from './template.js';
import type { ModuleRoute } from './routes.js';

const JS_EXTS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];

function isFile(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `isFile` asked once per path for as long as `files` is kept. */
function isFileKept(p: string, files: Map<string, boolean>): boolean {
  let hit = files.get(p);
  if (hit === undefined) files.set(p, (hit = isFile(p)));
  return hit;
}

function ancestors(dir: string, root: string): string[] {
  const out: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    out.push(d);
    if (d === root || !d.startsWith(root + path.sep) || path.dirname(d) === d) break;
  }
  return out;
}

export interface Resolved {
  /** The module file, when it exists. */
  file?: string;
  /** The relative path the record names (for messages). */
  wanted: string;
}

/**
 * Resolutions an editor session keeps between loads of the suites: per route object (the routes are the
 * same objects while no code file changed), by what a resolution reads (the root, the record file's
 * folder and the record's values of the template's members). A module found is taken as still there
 * (the session starts a new one when a file comes or goes); one not found is looked for at every load.
 */
export class RouteResolutions {
  readonly byRoute = new WeakMap<ModuleRoute, Map<string, Resolved | undefined>>();
}

/**
 * What one load of the suites resolves through: whether each path probed is a file, asked once per load
 * (every record is resolved through each route site and container that may bind it: webarena-infinity
 * probed 2,357 module paths 63,639 times), and an editor session's resolutions when it keeps them. A CLI
 * load keeps no resolutions (their keys held 15-20 MB of webarena-infinity's peak RSS for probes the
 * file memo already saves); a session's files memo is not kept past the load (a file may appear on disk
 * without coming into the session: a saved buffer, a module outside the root).
 */
export interface LoadResolutions {
  readonly kept?: RouteResolutions;
  readonly files: Map<string, boolean>;
}

export function loadResolutions(kept?: RouteResolutions): LoadResolutions {
  return { kept, files: new Map() };
}

/** The module a record routes to, or what it names when no such file exists; undefined when the record does not fit the route. */
export function resolveRoute(route: ModuleRoute, member: (name: string) => unknown, recordFile: string, root: string, load: LoadResolutions): Resolved | undefined {
  if (!load.kept) return resolveNow(route, member, recordFile, root, load.files);
  let byKey = load.kept.byRoute.get(route);
  if (!byKey) load.kept.byRoute.set(route, (byKey = new Map()));
  let key = `${root}\0${path.dirname(recordFile)}`;
  // JSON per value: no raw NUL inside, so the key tells values apart wherever their text has one
  for (const m of membersOf(route.template)) key += `\0${JSON.stringify(member(m))}`;
  // a record that does not fit the route, or a module found, is kept; a module not found is looked for
  // again at the next load (a file may appear on disk without coming into the session: a buffer saved
  // while it stays open, a module outside the root)
  const hit = byKey.get(key);
  if (byKey.has(key) && (!hit || hit.file)) return hit;
  const r = resolveNow(route, member, recordFile, root, load.files);
  byKey.set(key, r);
  return r;
}

function resolveNow(route: ModuleRoute, member: (name: string) => unknown, recordFile: string, root: string, files: Map<string, boolean>): Resolved | undefined {
  const inst = instantiate(route.template, member);
  if (!inst || !inst.rest) return undefined;
  let rel = inst.rest;
  if (route.dotted) {
    if (!/^[\w.]+$/.test(rel)) return undefined;
    rel = rel.replace(/\./g, '/');
  }
  const bases = inst.lead?.kind === 'here'
    ? [inst.lead.dir]
    : path.isAbsolute(rel) ? [''] : [...new Set([...ancestors(path.dirname(recordFile), root), ...ancestors(path.dirname(route.file), root)])];
  const bare = !JS_EXTS.includes(path.extname(rel)) && path.extname(rel) !== '.py';
  const tails = route.dotted
    ? ['.py', '/__init__.py']
    : bare && route.declared ? ['', '.py', ...JS_EXTS]
    : bare && route.language === 'js' ? ['', ...JS_EXTS, ...JS_EXTS.map((e) => `/index${e}`)] : [''];
  for (const b of bases) {
    for (const t of tails) {
      const p = path.resolve(b, rel + t);
      if (isFileKept(p, files)) return { file: p, wanted: rel };
    }
  }
  return { wanted: rel + (route.dotted ? '.py' : '') };
}
