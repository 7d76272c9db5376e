/**
 * Slicing a Python verifier for a control case: the flagged function, its enclosing class (only
 * the methods it reaches through `self.`/`cls.`), the module-level definitions and imports it
 * references (transitively, decorators included), and the project helper modules it imports
 * (sliced the same way). Every kept line stays at its original line number (other lines become
 * empty), so the harness runs the verifier's own bytes and traced line numbers are the file's.
 *
 * Also answers the questions witnesses need: the function's parameters, and which keys and
 * methods the function reads on each parameter.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { parsePython } from '../lang/python/parser.js';
import { field, walk, type PyNode } from '../lang/python/tree.js';
import { loneCrAsLf } from '../core/source.js';
import type { PyModuleSource } from './harness.js';

interface Parsed {
  text: string;
  root: PyNode;
  lineStarts: number[];
}

const parseCache = new Map<string, Parsed>();

async function parseText(text: string): Promise<Parsed> {
  const hit = parseCache.get(text);
  if (hit) return hit;
  // lines end at LF alone once a lone CR is one (as Python and the findings count them); same offsets
  const lf = loneCrAsLf(text);
  const root = await parsePython(lf);
  const lineStarts = [0];
  for (let i = 0; i < lf.length; i++) if (lf.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const p = { text: lf, root, lineStarts };
  if (parseCache.size > 200) parseCache.clear();
  parseCache.set(text, p);
  return p;
}

function lineOf(p: Parsed, offset: number): number {
  let lo = 0;
  let hi = p.lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (p.lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const txt = (p: Parsed, n: PyNode) => p.text.slice(n.start, n.end);

/** The definition node inside a possibly decorated statement. */
function inner(n: PyNode): PyNode {
  if (n.type === 'decorated_definition') return field(n, 'definition') ?? n;
  return n;
}

function bodyStatements(n: PyNode): PyNode[] {
  const body = field(inner(n), 'body');
  return body ? body.children.filter((c) => c.named && c.type !== 'comment') : [];
}

/** Names a top-level statement binds. */
function definedNames(p: Parsed, st: PyNode): string[] {
  const d = inner(st);
  if (d.type === 'function_definition' || d.type === 'class_definition') {
    const nm = field(d, 'name');
    return nm ? [txt(p, nm)] : [];
  }
  const out: string[] = [];
  if (d.type === 'import_statement') {
    for (const c of d.children) {
      if (c.type === 'dotted_name') out.push(txt(p, c).split('.')[0]!);
      if (c.type === 'aliased_import') out.push(txt(p, field(c, 'alias')!));
    }
    return out;
  }
  if (d.type === 'import_from_statement') {
    for (const c of d.children) {
      if (c.field === 'module_name') continue;
      if (c.type === 'dotted_name') out.push(txt(p, c));
      if (c.type === 'aliased_import') out.push(txt(p, field(c, 'alias')!));
      if (c.type === 'wildcard_import') out.push('*');
    }
    return out;
  }
  // assignments, augmented assignments, with/for/if/try blocks at top level: every identifier on a
  // left-hand side or target.
  walk(d, (n) => {
    if (n.type === 'function_definition' || n.type === 'class_definition') {
      const nm = field(n, 'name');
      if (nm) out.push(txt(p, nm));
      return false;
    }
    if (n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement') {
      const left = field(n, 'left');
      if (left) walk(left, (m) => void (m.type === 'identifier' && out.push(txt(p, m))));
    }
    if (n.type === 'as_pattern_target' || n.type === 'named_expression') {
      const t = n.type === 'named_expression' ? field(n, 'name') : n;
      if (t) walk(t, (m) => void (m.type === 'identifier' && out.push(txt(p, m))));
    }
    return true;
  });
  return out;
}

function identifiersIn(p: Parsed, n: PyNode, into: Set<string>, skip?: (m: PyNode) => boolean): void {
  walk(n, (m) => {
    if (skip?.(m)) return false;
    if (m.type === 'identifier') {
      // skip attribute names (`x.attr`) and keyword argument names
      const par = m.parent;
      if (par?.type === 'attribute' && m.field === 'attribute') return;
      if (par?.type === 'keyword_argument' && m.field === 'name') return;
      into.add(txt(p, m));
    }
  });
}

function selfAttrsIn(p: Parsed, n: PyNode, selfNames: Set<string>, into: Set<string>): void {
  walk(n, (m) => {
    if (m.type === 'attribute') {
      const obj = field(m, 'object');
      const attr = field(m, 'attribute');
      if (obj?.type === 'identifier' && selfNames.has(txt(p, obj)) && attr) into.add(txt(p, attr));
    }
  });
}

export interface FunctionInfo {
  qualname: string;
  /** 1-based lines of the definition (decorators included). */
  startLine: number;
  endLine: number;
  params: string[];
  isMethod: boolean;
  className?: string;
  /** For each parameter: string keys read (`p["k"]`, `p.get("k")`, `"k" in p`) and methods called on it. */
  reads: Record<string, { keys: string[]; methods: string[] }>;
}

interface FnHit {
  node: PyNode; // decorated_definition or function_definition
  qualname: string;
  cls?: PyNode; // top-level class statement
  /** The function this one is nested in (a nested def cannot run on its own). */
  outer?: FnHit;
}

function functions(p: Parsed): FnHit[] {
  const out: FnHit[] = [];
  const visit = (stmts: PyNode[], prefix: string, cls?: PyNode, outer?: FnHit) => {
    for (const st of stmts) {
      const d = inner(st);
      if (d.type === 'function_definition') {
        const q = prefix + txt(p, field(d, 'name')!);
        const hit: FnHit = { node: st, qualname: q, cls, ...(outer ? { outer } : {}) };
        out.push(hit);
        visit(bodyStatements(st), q + '.', cls, hit);
      } else if (d.type === 'class_definition') {
        const q = prefix + txt(p, field(d, 'name')!);
        visit(bodyStatements(st), q + '.', cls ?? st, outer);
      }
    }
  };
  visit(p.root.children.filter((c) => c.named), '');
  return out;
}

function findFunction(p: Parsed, by: { qualname?: string; line?: number }): FnHit | undefined {
  const all = functions(p);
  if (by.qualname) {
    const hit = all.find((f) => f.qualname === by.qualname);
    if (hit) return hit;
  }
  if (by.line !== undefined) {
    let best: FnHit | undefined;
    for (const f of all) {
      if (lineOf(p, f.node.start) <= by.line && by.line <= lineOf(p, f.node.end) && (!best || f.node.start >= best.node.start)) best = f;
    }
    return best;
  }
  return undefined;
}

function paramNames(p: Parsed, def: PyNode): string[] {
  const ps = field(def, 'parameters');
  const out: string[] = [];
  for (const c of ps?.children ?? []) {
    if (c.type === 'identifier') out.push(txt(p, c));
    else if (c.type === 'typed_parameter' || c.type === 'default_parameter' || c.type === 'typed_default_parameter') {
      const nm = c.type === 'typed_parameter' ? c.children.find((x) => x.type === 'identifier') : field(c, 'name');
      if (nm) out.push(txt(p, nm));
    } else if (c.type === 'list_splat_pattern' || c.type === 'dictionary_splat_pattern') {
      const nm = c.children.find((x) => x.type === 'identifier');
      if (nm) out.push((c.type === 'list_splat_pattern' ? '*' : '**') + txt(p, nm));
    }
  }
  return out;
}

function unquote(s: string): string | undefined {
  const m = /^[rbuRBU]{0,2}(['"])(.*)\1$/s.exec(s);
  return m ? m[2] : undefined;
}

export async function functionInfo(text: string, by: { qualname?: string; line?: number }): Promise<FunctionInfo | undefined> {
  const p = await parseText(text);
  const hit = findFunction(p, by);
  if (!hit) return undefined;
  const def = inner(hit.node);
  const params = paramNames(p, def);
  const reads: FunctionInfo['reads'] = {};
  for (const prm of params) reads[prm.replace(/^\*+/, '')] = { keys: [], methods: [] };
  const add = (name: string, kind: 'keys' | 'methods', v: string) => {
    const r = reads[name];
    if (r && !r[kind].includes(v)) r[kind].push(v);
  };
  walk(def, (n) => {
    if (n.type === 'subscript') {
      const v = field(n, 'value');
      const sub = field(n, 'subscript');
      if (v?.type === 'identifier' && sub?.type === 'string') {
        const k = unquote(txt(p, sub));
        if (k !== undefined) add(txt(p, v), 'keys', k);
      }
    } else if (n.type === 'call') {
      const fn = field(n, 'function');
      if (fn?.type === 'attribute') {
        const obj = field(fn, 'object');
        const attr = field(fn, 'attribute');
        if (obj?.type === 'identifier' && attr) {
          const name = txt(p, obj);
          add(name, 'methods', txt(p, attr));
          const args = field(n, 'arguments');
          const first = args?.children.find((c) => c.named);
          if (txt(p, attr) === 'get' && first?.type === 'string') {
            const k = unquote(txt(p, first));
            if (k !== undefined) add(name, 'keys', k);
          }
        }
      }
    } else if (n.type === 'comparison_operator') {
      const [a, b] = n.children.filter((c) => c.named);
      if (a?.type === 'string' && b?.type === 'identifier' && /\bin\b/.test(p.text.slice(a.end, b.start))) {
        const k = unquote(txt(p, a));
        if (k !== undefined) add(txt(p, b), 'keys', k);
      }
    }
  });
  const isMethod = hit.cls !== undefined && hit.qualname.split('.').length === 2 && params[0] !== undefined && !/^\*/.test(params[0]);
  return {
    qualname: hit.qualname,
    startLine: lineOf(p, hit.node.start),
    endLine: lineOf(p, hit.node.end - 1),
    params,
    isMethod,
    className: hit.cls ? txt(p, field(inner(hit.cls), 'name')!) : undefined,
    reads,
  };
}

export interface Slice {
  modules: PyModuleSource[];
  /** Dotted name of the module holding the flagged function. */
  entryModule: string;
  qualname: string;
  /** Files whose lines the harness traces. */
  traceFiles: string[];
  info: FunctionInfo;
  /** Top-level names of the modules the kept import statements of the verifier's own files name
   *  that are not project modules (third-party or standard library; the harness doubles only those
   *  this Python cannot import). Imports inside `try` are left out (they carry their own fallback). */
  externalImports: string[];
}

/** The directory Python would have on sys.path for this file (above its outermost package). */
function importRoot(file: string): string {
  let dir = dirname(file);
  while (existsSync(join(dir, '__init__.py')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function moduleName(file: string, root: string): string {
  const rel = relative(root, file).split(sep).join('/').replace(/\.py$/, '');
  const parts = rel.split('/');
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts.join('.') || basename(file, '.py');
}

function resolveModuleFile(root: string, dotted: string): string | undefined {
  const base = join(root, ...dotted.split('.'));
  if (existsSync(base + '.py')) return base + '.py';
  if (existsSync(join(base, '__init__.py'))) return join(base, '__init__.py');
  return undefined;
}

/** Slice `file` for a control case of the function named `qualname` (or containing `line`). */
export async function slicePython(
  file: string,
  by: { qualname?: string; line?: number; /** the whole module (module-level code): qualname '' */ module?: boolean },
  readText: (path: string) => string = (f) => readFileSync(f, 'utf8'),
): Promise<Slice | undefined> {
  const text = readText(file);
  const p = await parseText(text);
  let hit = by.module ? undefined : findFunction(p, by);
  if (!hit && !by.module) return undefined;
  // A nested def runs only through the function that defines it: slice and run that one.
  while (hit?.outer) hit = hit.outer;
  const info: FunctionInfo = hit
    ? (await functionInfo(text, { qualname: hit.qualname }))!
    : { qualname: '', startLine: 1, endLine: p.lineStarts.length, params: [], isMethod: false, reads: {} };
  const root = importRoot(file);
  const entryModule = moduleName(file, root);
  const slicer = new Slicer(root, readText);
  await slicer.sliceModule(entryModule, file, text, hit ? new Set() : 'all', hit);
  await slicer.slicePending(entryModule);
  // Package __init__ modules on the way to each module are served as empty namespaces by the harness
  // unless the project has them sliced above.
  const modules = [...slicer.modules.values()];
  return {
    modules,
    entryModule,
    qualname: hit?.qualname ?? '',
    traceFiles: modules.map((m) => m.filename),
    info,
    externalImports: [...slicer.external].sort(),
  };
}

/** The top-level names wanted from a module, or all of its top-level code. */
type Roots = Set<string> | 'all';

const isPkgFile = (f: string) => basename(f) === '__init__.py';

/** The modules of one slice: each sliced for the names wanted from it, following project imports. */
class Slicer {
  readonly modules = new Map<string, PyModuleSource>();
  readonly external = new Set<string>();
  private readonly wanted = new Map<string, { file: string; roots: Roots }>();
  private readonly pending: string[] = [];

  constructor(
    private readonly root: string,
    private readonly readText: (path: string) => string,
  ) {}

  /** Slice module `mod` (file `mfile`, text `mtext`) for `roots`, or for the flagged function `target`. */
  async sliceModule(mod: string, mfile: string, mtext: string, roots: Roots, target?: FnHit): Promise<void> {
    const mp = await parseText(mtext);
    const kept = new KeptStatements(mp);
    kept.seed(roots, target);
    kept.close();
    this.followImports(mp, mod, mfile, kept.keep);
    this.modules.set(mod, { name: mod, filename: mfile, source: renderSlice(mp, kept.keep, kept.blank), isPackage: isPkgFile(mfile) });
  }

  /** Slice the project modules the sliced ones import, until no module wants more names. */
  async slicePending(entryModule: string): Promise<void> {
    const done = new Set<string>();
    let guard = 0;
    while (this.pending.length && guard++ < 200) {
      const mod = this.pending.shift()!;
      if (mod === entryModule) continue;
      const w = this.wanted.get(mod)!;
      const key = `${mod}:${w.roots === 'all' ? '*' : [...w.roots].sort().join(',')}`;
      if (done.has(key)) continue;
      done.add(key);
      await this.sliceModule(mod, w.file, this.readText(w.file), w.roots);
    }
  }

  private addWanted(mod: string, f: string, roots: Roots): void {
    const w = this.wanted.get(mod);
    if (!w) {
      this.wanted.set(mod, { file: f, roots });
      this.pending.push(mod);
      return;
    }
    if (w.roots === 'all') return;
    const before = w.roots.size;
    if (roots === 'all') w.roots = 'all';
    else for (const r of roots) w.roots.add(r);
    if (w.roots === 'all' || w.roots.size !== before) this.pending.push(mod);
  }

  /** Project helpers imported by kept import statements (the rest are external imports). */
  private followImports(mp: Parsed, mod: string, mfile: string, keep: Set<PyNode>): void {
    for (const st of keep) {
      const d = inner(st);
      if (d.type === 'import_from_statement') this.followImportFrom(mp, st, mod, mfile);
      else if (d.type === 'import_statement') this.followImport(mp, d);
    }
  }

  /** `from m import a, b` (`st`) in module `mod`: wants `a`, `b` from `m`, or the submodules `m.a`, `m.b`. */
  private followImportFrom(mp: Parsed, st: PyNode, mod: string, mfile: string): void {
    const d = inner(st);
    const modNode = field(d, 'module_name');
    if (!modNode) return;
    const raw = txt(mp, modNode);
    const dotted = raw.startsWith('.') ? absoluteModule(raw, mod, mfile) : raw;
    const imported = definedNames(mp, st);
    const origNames: string[] = [];
    for (const c of d.children) {
      if (c.field === 'module_name') continue;
      if (c.type === 'dotted_name') origNames.push(txt(mp, c));
      if (c.type === 'aliased_import') origNames.push(txt(mp, field(c, 'name')!));
    }
    const f = resolveModuleFile(this.root, dotted);
    if (!f && !raw.startsWith('.')) this.external.add(dotted.split('.')[0]!);
    if (!f) return;
    const ownNames = new Set<string>();
    for (const n of origNames) {
      const sub = resolveModuleFile(this.root, `${dotted}.${n}`);
      if (sub) this.addWanted(`${dotted}.${n}`, sub, 'all');
      else ownNames.add(n);
    }
    if (ownNames.size || imported.includes('*')) this.addWanted(dotted, f, imported.includes('*') ? 'all' : ownNames);
    else this.addWanted(dotted, f, new Set());
  }

  /** `import m, n as o`: wants all of each project module. */
  private followImport(mp: Parsed, d: PyNode): void {
    for (const c of d.children) {
      const nm = c.type === 'dotted_name' ? c : c.type === 'aliased_import' ? field(c, 'name') : undefined;
      if (!nm) continue;
      const dotted = txt(mp, nm);
      const f = resolveModuleFile(this.root, dotted);
      if (f) this.addWanted(dotted, f, 'all');
      else this.external.add(dotted.split('.')[0]!);
    }
  }
}

/** The dotted name of the relative import `raw` (`..pkg.mod`) made in module `mod` (file `mfile`). */
function absoluteModule(raw: string, mod: string, mfile: string): string {
  const dots = /^\.+/.exec(raw)![0].length;
  const pkgParts = mod.split('.');
  if (!isPkgFile(mfile)) pkgParts.pop();
  for (let i = 1; i < dots; i++) pkgParts.pop();
  return [...pkgParts, raw.slice(dots)].filter(Boolean).join('.');
}

/** The top-level statements of one module kept in its slice, and the class methods blanked inside them. */
class KeptStatements {
  /** In the order they were kept. */
  readonly keep = new Set<PyNode>();
  /** [start,end) offsets of blanked methods inside a kept class. */
  readonly blank: Array<[number, number]> = [];
  private readonly top: PyNode[];
  private readonly byName = new Map<string, PyNode[]>();
  private readonly queue: PyNode[] = [];

  constructor(private readonly mp: Parsed) {
    this.top = mp.root.children.filter((c) => c.named && c.type !== 'comment');
    for (const st of this.top) for (const n of definedNames(mp, st)) this.byName.set(n, [...(this.byName.get(n) ?? []), st]);
  }

  private include(st: PyNode): void {
    if (this.keep.has(st)) return;
    this.keep.add(st);
    this.queue.push(st);
  }

  /** The statements kept for their own sake: star and future imports, then `roots` or the target. */
  seed(roots: Roots, target?: FnHit): void {
    const mp = this.mp;
    for (const st of this.top) {
      const d = inner(st);
      // `from x import *` and `__future__` imports are always kept; `if __name__ == "__main__"` never.
      if (d.type === 'future_import_statement' || (d.type === 'import_from_statement' && definedNames(mp, st).includes('*'))) this.include(st);
    }
    if (roots === 'all') {
      for (const st of this.top) {
        const d = inner(st);
        if (d.type === 'if_statement' && /__name__/.test(txt(mp, field(d, 'condition') ?? d))) continue;
        if (d.type === 'expression_statement' && d.children[0]?.type === 'string') continue;
        this.include(st);
      }
    }
    if (target) {
      const cls = target.cls;
      if (cls) {
        // The class, with only the methods the flagged function reaches through self/cls.
        this.include(cls);
        this.blank.push(...unreachedMethods(mp, cls, target));
      } else {
        this.include(target.node);
      }
    } else if (roots !== 'all') {
      for (const r of roots) for (const st of this.byName.get(r) ?? []) this.include(st);
    }
  }

  /** Keep the definitions of every name a kept statement references, transitively. */
  close(): void {
    const { mp, blank } = this;
    while (this.queue.length) {
      const st = this.queue.shift()!;
      const ids = new Set<string>();
      // identifiers of blanked methods do not pull anything in
      identifiersIn(mp, st, ids, (n) => blank.some(([a, b]) => n.start === a && n.end === b));
      for (const id of ids) for (const dst of this.byName.get(id) ?? []) this.include(dst);
    }
  }
}

/** The [start,end) ranges of the methods of `cls` that `target` does not reach through self/cls (dunders always stay). */
function unreachedMethods(mp: Parsed, cls: PyNode, target: FnHit): Array<[number, number]> {
  const methods = new Map<string, PyNode>();
  for (const st of bodyStatements(cls)) {
    const d = inner(st);
    if (d.type === 'function_definition') methods.set(txt(mp, field(d, 'name')!), st);
  }
  const reach = new Set<string>();
  const todo: PyNode[] = [target.node];
  const tdef = inner(target.node);
  const selfName = paramNames(mp, tdef)[0];
  const selfNames = new Set(['self', 'cls', ...(selfName ? [selfName.replace(/^\*+/, '')] : [])]);
  const topMethod = [...methods.values()].find((m) => m.start <= target.node.start && target.node.end <= m.end);
  if (topMethod) reach.add(txt(mp, field(inner(topMethod), 'name')!));
  // dunder methods are always kept: what they reach (decorators included) is kept too
  for (const [name, st] of methods) {
    if (!name.startsWith('__') || reach.has(name)) continue;
    reach.add(name);
    todo.push(st);
  }
  while (todo.length) {
    const cur = todo.pop()!;
    const attrs = new Set<string>();
    selfAttrsIn(mp, cur, selfNames, attrs);
    // class-body decorators are named without `self.` (`@_env_handler`)
    if (cur.type === 'decorated_definition')
      for (const dec of cur.children.filter((c) => c.type === 'decorator')) identifiersIn(mp, dec, attrs);
    for (const a of attrs) {
      const m = methods.get(a);
      if (m && !reach.has(a)) {
        reach.add(a);
        todo.push(m);
      }
    }
  }
  const blank: Array<[number, number]> = [];
  for (const [name, st] of methods) if (!reach.has(name) && !name.startsWith('__')) blank.push([st.start, st.end]);
  return blank;
}

/** The sliced text: kept lines verbatim, everything else (and blanked ranges) empty. */
function renderSlice(mp: Parsed, keep: Set<PyNode>, blank: Array<[number, number]>): string {
  const lines = mp.text.split('\n');
  const keepLine = new Array<boolean>(lines.length).fill(false);
  for (const st of keep) {
    const a = lineOf(mp, st.start);
    const b = lineOf(mp, Math.max(st.start, st.end - 1));
    for (let l = a; l <= b; l++) keepLine[l - 1] = true;
  }
  for (const [s, e] of blank) {
    const a = lineOf(mp, s);
    const b = lineOf(mp, Math.max(s, e - 1));
    for (let l = a; l <= b; l++) keepLine[l - 1] = false;
  }
  return lines.map((l, i) => (keepLine[i] ? l : '')).join('\n');
}
