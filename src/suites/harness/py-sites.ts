/**
 * Where Python harness code loads a module whose path it builds from task data, and what it takes
 * from the module: `spec_from_file_location(_, path)` + `mod.verify`, `SourceFileLoader(_, path)`,
 * `runpy.run_path(path)["grade"]`, `importlib.import_module(f"pkg.{name}")` + `getattr(mod, "check")`,
 * `__import__(name)`, `imp.load_source(_, path)`.
 */
import type { PythonAnalysis, PythonProject, PyNode, CallInfo } from '../../lang/python/types.js';
import { field, unparen, walk } from '../../lang/python/tree.js';
import { pyStringLiteral, pyTemplates } from './py-values.js';
import { membersOf, type Template } from './template.js';
import type { ModuleRoute } from './routes.js';

/** Calls that load a module from a file path: qualified name → argument index (and keyword) of the path. */
const PATH_LOADERS: ReadonlyMap<string, [number, string]> = new Map([
  ['importlib.util.spec_from_file_location', [1, 'location']],
  ['importlib.machinery.SourceFileLoader', [1, 'path']],
  ['runpy.run_path', [0, 'path_name']],
  ['imp.load_source', [1, 'pathname']],
]);
/** Calls that load a module by dotted name. */
const NAME_LOADERS: ReadonlyMap<string, [number, string]> = new Map([
  ['importlib.import_module', [0, 'name']],
  ['__import__', [0, 'name']],
  ['runpy.run_module', [0, 'mod_name']],
]);

/** Names every loader call has in its text: files without one are not parsed for loads (searched as plain
 *  strings: one regex alternation over every file's text cost more than the rest of this learning). */
const SCREEN = ['spec_from_file_location', 'SourceFileLoader', 'run_path', 'load_source', 'import_module', '__import__', 'run_module'];

/** Module routes one Python harness file takes. */
export function pythonRoutes(python: PythonProject, file: string): ModuleRoute[] {
  const text = python.text(file);
  if (!text || !SCREEN.some((w) => text.includes(w))) return [];
  const a = python.analysis(file);
  if (!a) return [];
  const out: ModuleRoute[] = [];
  walk(a.ast, (n) => {
    if (n.type !== 'call') return;
    const c = a.call(n);
    if (!c) return;
    const q = a.qualifiedName(c.fn) ?? c.calleeText;
    const byPath = PATH_LOADERS.get(q);
    const byName = NAME_LOADERS.get(q);
    const spec = byPath ?? byName;
    if (!spec) return;
    const arg = c.kwargs.get(spec[1]) ?? c.args[spec[0]];
    if (!arg) return;
    const templates = pyTemplates(python, a, arg).filter((t) => membersOf(t).length > 0);
    if (templates.length === 0) return;
    const taken = exportTaken(python, a, c, q);
    for (const t of templates) out.push({ ...route(a, n, t, !byPath), ...taken });
  });
  return out;
}

function route(a: PythonAnalysis, n: PyNode, template: Template, dotted: boolean): ModuleRoute {
  return { file: a.path, line: a.line(n), language: 'python', template, dotted: dotted || undefined };
}

type Taken = Pick<ModuleRoute, 'exportName' | 'exportFromMember' | 'exportDefault'>;

/** The name `getattr(mod, X)` takes: a literal, or a record member (`task.get("function", "verify")`). */
function takenName(python: PythonProject, a: PythonAnalysis, x: PyNode): Taken {
  const s = pyStringLiteral(a, x);
  if (s !== undefined) return { exportName: s };
  const c = a.call(unparen(x));
  const fallback = c && c.method === 'get' && c.args[1] ? pyStringLiteral(a, c.args[1]) : undefined;
  const ts = pyTemplates(python, a, x);
  const only = ts.length === 1 && ts[0]!.length === 1 ? ts[0]![0]! : undefined;
  return only?.kind === 'member' ? { exportFromMember: only.name, exportDefault: fallback } : {};
}

/**
 * The name the harness takes from the loaded module: follows the module object (`module_from_spec(spec)`,
 * `loader.load_module()`, the call's own value) to `mod.NAME`, `getattr(mod, "NAME")` or `ns["NAME"]`.
 */
function exportTaken(python: PythonProject, a: PythonAnalysis, c: CallInfo, q: string): Taken {
  const fn = a.functionAt(c.node);
  const scopeNode = fn?.node ?? a.ast;
  // the variables holding the spec, then the module
  const holders = new Set<string>();
  const assignedTo = (call: PyNode): string | undefined => {
    const p = call.parent;
    if (p?.type === 'assignment' && field(p, 'right') === call) {
      const l = field(p, 'left');
      return l?.type === 'identifier' ? l.text : undefined;
    }
    return undefined;
  };
  const first = assignedTo(unwrap(c.node));
  if (first) holders.add(first);
  // `module_from_spec(spec)` / `spec.loader.load_module()` / `loader.load_module()` chains
  let grew = true;
  while (grew) {
    grew = false;
    walk(scopeNode, (n) => {
      if (n.type !== 'call') return;
      const k = a.call(n);
      if (!k) return;
      const reads = [...k.args, ...(k.receiver ? [k.receiver] : [])].some((x) => holders.has(rootName(x)));
      if (!reads) return;
      const v = assignedTo(n);
      if (v && !holders.has(v) && /module_from_spec|load_module|exec_module|run_path|import_module/.test(k.calleeText + (a.qualifiedName(k.fn) ?? ''))) {
        holders.add(v);
        grew = true;
      }
    });
  }
  if (holders.size === 0 && q !== 'runpy.run_path') {
    // the call's value read directly: `import_module(name).check`
    const p = unwrap(c.node).parent;
    if (p?.type === 'attribute' && field(p, 'object') === unwrap(c.node)) return { exportName: field(p, 'attribute')?.text };
  }
  let found: Taken | undefined;
  walk(scopeNode, (n) => {
    if (found) return false;
    if (n.type === 'attribute') {
      const o = field(n, 'object');
      const attr = field(n, 'attribute')?.text;
      if (o?.type === 'identifier' && holders.has(o.text) && attr && !attr.startsWith('__') && !LOADER_ATTRS.has(attr)) found = { exportName: attr };
    } else if (n.type === 'call') {
      const k = a.call(n);
      if (k?.calleeText === 'getattr' && k.args.length >= 2 && holders.has(rootName(k.args[0]!))) found = takenName(python, a, k.args[1]!);
    } else if (n.type === 'subscript') {
      const o = field(n, 'value');
      const key = field(n, 'subscript');
      if (o?.type === 'identifier' && holders.has(o.text) && key) found = takenName(python, a, key);
    }
    return undefined;
  });
  return found ?? {};
}

const LOADER_ATTRS = new Set(['loader', 'exec_module', 'load_module', 'name', 'origin', 'submodule_search_locations']);

function unwrap(n: PyNode): PyNode {
  let cur = n;
  while (cur.parent?.type === 'parenthesized_expression' || cur.parent?.type === 'await') cur = cur.parent;
  return cur;
}

function rootName(n: PyNode): string {
  let u = unparen(n);
  while (u.type === 'attribute') u = field(u, 'object') ?? u;
  return u.type === 'identifier' ? u.text : '';
}
